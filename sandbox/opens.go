package sandbox

import (
	"math/bits"
	"path/filepath"
	"slices"

	"github.com/tandemdev/tandem/approvals"
)

// Access is what a step was kept from at one path: the grant that would
// have given it, and whether what it lacked was a write (else a read).
type Access struct {
	Need  approvals.Effects
	Write bool
}

// Opens answers, from the sandbox's own rules rather than the words of an
// error, what a step held back from held lacked at path (real, symlinks
// resolved) and the fewest effects whose grant opens it: the plan built
// for the step is asked whether it reads or writes path, and so are the
// plans of each wider grant. An existing path the step could not read
// needs a read; any other it could not write (a file to make, such as
// ~/go for a Go build) needs a write. The guarded places in the roots, held
// read-only by the view rather than by the plan, need protected. Zero when
// the step's own plan gave it path, or no grant of held would.
func Opens(pl Places, guarded Guarded, held approvals.Effects, path string, list Lister) Access {
	held &= Restricted &^ approvals.Of(approvals.Net)
	grant := Restricted &^ held
	now := NewPlan(pl, grant, list)
	var lacks func(Plan) bool
	write := false
	switch {
	case exists(list, path) && !now.reads(path):
		lacks = func(p Plan) bool { return !p.reads(path) }
	case !now.writes(path):
		lacks = func(p Plan) bool { return !p.writes(path) }
		write = true
	case held.Has(approvals.Protected) && (underAny(path, guarded.ReadOnly) || slices.Contains(guarded.Pinned, path)):
		return Access{Need: approvals.Of(approvals.Protected), Write: true}
	default:
		return Access{}
	}
	for _, need := range widenings(held) {
		if !lacks(NewPlan(pl, grant|need, list)) {
			return Access{Need: need, Write: write}
		}
	}
	return Access{}
}

// widenings are the non-empty subsets of held, fewest effects first and,
// among as many, those without secret (always asked) first.
func widenings(held approvals.Effects) []approvals.Effects {
	var out []approvals.Effects
	for s := held; s != 0; s = (s - 1) & held {
		out = append(out, s)
	}
	secret := approvals.Of(approvals.Secret)
	slices.SortStableFunc(out, func(a, b approvals.Effects) int {
		if n, m := bits.OnesCount8(uint8(a)), bits.OnesCount8(uint8(b)); n != m {
			return n - m
		}
		if a&secret != b&secret {
			return int(a&secret) - int(b&secret)
		}
		return int(a) - int(b)
	})
	return out
}

// exists reports whether path is a name in its directory, as list sees it.
func exists(list Lister, path string) bool {
	ents, err := list(filepath.Dir(path))
	return err == nil && slices.ContainsFunc(ents, func(e Dirent) bool { return e.Name == filepath.Base(path) })
}

// reads reports whether the plan lets a step read path.
func (p Plan) reads(path string) bool {
	return underAny(path, p.Read) || underAny(path, p.Write) || underAny(path, p.Devices)
}

// writes reports whether the plan lets a step change path (or make it).
func (p Plan) writes(path string) bool { return underAny(path, p.Write) || underAny(path, p.Devices) }
