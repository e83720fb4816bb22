package approvals

import (
	"errors"
	"fmt"
	"strings"
)

// Effect is one thing a step or a document access can do that the user may
// want to be asked about. A step's effects are the union of the effects of
// every part of it: its program, its options, the paths it names, its
// redirections.
type Effect uint8

// The seven effects, in the order they are shown.
const (
	Read      Effect = 1 << iota // reads files it names (or its working directory)
	Write                        // changes files inside the workspace
	Exec                         // runs a program whose behaviour tandem cannot classify
	Net                          // talks to the network
	Outside                      // writes outside every workspace root, or reads the home outside the workspace and the readable places
	Protected                    // writes a protected path (.git, .tandem, a PATH dir, tandem's config)
	Secret                       // reads or writes a secret (~/.ssh, credential stores)
)

var effectNames = [...]string{"read", "write", "exec", "net", "outside", "protected", "secret"}

// String is the effect's setting name ("read", …, "secret").
func (e Effect) String() string {
	for i, n := range effectNames {
		if e == 1<<i {
			return n
		}
	}
	return fmt.Sprintf("effect(%d)", uint8(e))
}

// Effects is a set of effects. The zero value is the empty set: a step with
// no effects (echo, pwd) always runs.
type Effects uint8

// All holds every effect; Grantable holds every effect the auto set may
// hold (all but Secret). DefaultAuto runs reads, workspace writes, programs
// and the network without asking. It leaves out a write outside the
// workspace (the temporary directory and the build caches are not outside)
// and a write to a protected path (what a later shell, editor or git
// runs): both are rare enough in everyday work to be worth a question.
const (
	All         = Effects(Read | Write | Exec | Net | Outside | Protected | Secret)
	Grantable   = All &^ Effects(Secret)
	DefaultAuto = Effects(Read | Write | Exec | Net)
)

// Of builds a set from effects.
func Of(es ...Effect) Effects {
	var s Effects
	for _, e := range es {
		s |= Effects(e)
	}
	return s
}

// Has reports whether e is in the set.
func (s Effects) Has(e Effect) bool { return s&Effects(e) != 0 }

// With returns the union of two sets.
func (s Effects) With(o Effects) Effects { return s | o }

// Within reports whether every effect of s is in o.
func (s Effects) Within(o Effects) bool { return s&^o == 0 }

// List returns the set's effects in display order.
func (s Effects) List() []Effect {
	var out []Effect
	for i := range effectNames {
		if e := Effect(1 << i); s.Has(e) {
			out = append(out, e)
		}
	}
	return out
}

// Names returns the set's setting names in display order.
func (s Effects) Names() []string {
	out := []string{}
	for _, e := range s.List() {
		out = append(out, e.String())
	}
	return out
}

// String joins the names with "+" ("write+outside"); the empty set is "none".
func (s Effects) String() string {
	if s == 0 {
		return "none"
	}
	return strings.Join(s.Names(), "+")
}

// MarshalText writes the "+"-joined form so sets read well in JSON maps and logs.
func (s Effects) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnknownEffectError is the typed error for a name that is not an effect, or
// for "secret" where only grantable effects are allowed (the auto set).
type UnknownEffectError struct {
	Name string
	// Ungrantable is true when Name is a real effect that can never be in the
	// auto set ("secret").
	Ungrantable bool
	// Allowed lists the names that would have been accepted.
	Allowed Effects
}

func (e *UnknownEffectError) Error() string {
	if e.Ungrantable {
		return fmt.Sprintf("effect %q can never run unasked; allowed names: %s", e.Name, strings.Join(e.Allowed.Names(), ", "))
	}
	return fmt.Sprintf("unknown effect %q; allowed names: %s", e.Name, strings.Join(e.Allowed.Names(), ", "))
}

// ParseEffect reads one effect name; names are exact and lower case.
func ParseEffect(name string) (Effect, error) {
	for i, n := range effectNames {
		if name == n {
			return Effect(1 << i), nil
		}
	}
	return 0, &UnknownEffectError{Name: name, Allowed: All}
}

// ParseEffects reads a list of effect names (any of the seven). Duplicates are
// harmless; an unknown name is an *UnknownEffectError and the result is empty.
func ParseEffects(names []string) (Effects, error) {
	var s Effects
	for _, n := range names {
		e, err := ParseEffect(n)
		if err != nil {
			return 0, err
		}
		s |= Effects(e)
	}
	return s, nil
}

// ParseAuto reads the setting shell.autoEffects: a list of the six grantable
// names. "secret" and any unknown name are an *UnknownEffectError; the caller
// keeps its previous auto set (or DefaultAuto) on error, so a bad value never
// widens what runs unasked.
//
// The auto set is an execution gate: callers must read it only from the
// user's own settings (the user config file, the editor's user-level
// settings), never from a workspace folder or project file.
func ParseAuto(names []string) (Effects, error) {
	s, err := ParseEffects(names)
	var unknown *UnknownEffectError
	if errors.As(err, &unknown) {
		return 0, &UnknownEffectError{Name: unknown.Name, Allowed: Grantable}
	}
	if s.Has(Secret) {
		return 0, &UnknownEffectError{Name: Secret.String(), Ungrantable: true, Allowed: Grantable}
	}
	return s, nil
}
