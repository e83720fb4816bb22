package tools

import (
	"fmt"
	"time"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/config"
)

// autoEffects reads shell.autoEffects from the user's own settings. A bad
// value is an error naming the allowed effects; the caller keeps the auto
// set it had, so a bad value never widens what runs unasked.
func autoEffects(st *config.Settings) (approvals.Effects, error) {
	v, ok := st.User("shell.autoEffects")
	if !ok {
		return approvals.DefaultAuto, nil
	}
	var names []string
	if err := v.Decode(&names); err != nil {
		return 0, fmt.Errorf("shell.autoEffects must be a list of effect names: %w", err)
	}
	auto, err := approvals.ParseAuto(names)
	if err != nil {
		return 0, fmt.Errorf("shell.autoEffects (%s): %w", v.Source, err)
	}
	return auto, nil
}

// budget is shell.budgetSeconds (any settings layer: it bounds waiting, not
// what runs). A bad value is an error, and the budget is DefaultBudget.
func budget(st *config.Settings) (time.Duration, error) {
	v, ok := st.Get("shell.budgetSeconds")
	if !ok {
		return DefaultBudget, nil
	}
	var secs float64
	if err := v.Decode(&secs); err != nil || secs <= 0 {
		return DefaultBudget, fmt.Errorf("shell.budgetSeconds (%s) must be a number of seconds above 0; %s applies", v.Source, DefaultBudget)
	}
	return time.Duration(secs * float64(time.Second)), nil
}

// SettingsProblems says what in st the tools refuse, each as one sentence
// that names the setting and what applies instead. Front doors show them
// where the user looks (the editor, standard error, tandem doctor): a
// refused value must not look as if it applied.
func SettingsProblems(st *config.Settings) []error {
	var out []error
	if _, err := autoEffects(st); err != nil {
		out = append(out, fmt.Errorf("%w; until it is fixed the auto set stays as it was (at start, the default)", err))
	}
	if _, err := budget(st); err != nil {
		out = append(out, err)
	}
	return out
}
