package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/mcpclient"
	"github.com/tandemdev/tandem/shell"
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

// writableDirs reads shell.writableDirs, the scratch places, from the
// user's own settings: a workspace that could name ~/.bashrc's directory
// would turn writes there into plain writes. Each entry is absolute or
// starts with "~/". Unset, or on error, the defaults apply (DefaultScratch).
func writableDirs(st *config.Settings, home string, env []string) ([]string, error) {
	dirs, set, err := userDirs(st, "shell.writableDirs", home)
	if err != nil {
		return approvals.DefaultScratch(home, env), fmt.Errorf("%w; the defaults apply", err)
	}
	if !set {
		return approvals.DefaultScratch(home, env), nil
	}
	return dirs, nil
}

// readableDirs reads shell.readableDirs, the places in the home a step
// reads without outside beyond the built-in ones, from the user's own
// settings: a workspace that could name ~/.config would open every store
// no list names. On error none is added.
func readableDirs(st *config.Settings, home string) ([]string, error) {
	dirs, _, err := userDirs(st, "shell.readableDirs", home)
	if err != nil {
		return nil, fmt.Errorf("%w; none is added", err)
	}
	return dirs, nil
}

// userDirs reads a list of directories, each absolute or starting with
// "~/", from the user's own settings; set says whether key is there.
func userDirs(st *config.Settings, key, home string) (dirs []string, set bool, err error) {
	v, ok := st.User(key)
	if !ok {
		return nil, false, nil
	}
	if err := v.Decode(&dirs); err != nil {
		return nil, true, fmt.Errorf("%s must be a list of directories: %w", key, err)
	}
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		if rest, ok := strings.CutPrefix(d, "~/"); ok && home != "" {
			d = filepath.Join(home, rest)
		}
		if !filepath.IsAbs(d) {
			return nil, true, fmt.Errorf("%s (%s): %q is neither absolute nor under ~/", key, v.Source, d)
		}
		out = append(out, d)
	}
	return out, true, nil
}

// sandboxOn reads shell.sandbox from the user's own settings: a workspace
// that could turn the sandbox off would let its scripts do anything. Unset
// or not a boolean (an error), it is on.
func sandboxOn(st *config.Settings) (bool, error) {
	v, ok := st.User("shell.sandbox")
	if !ok {
		return true, nil
	}
	var on bool
	if err := v.Decode(&on); err != nil {
		return true, fmt.Errorf("shell.sandbox (%s) must be true or false; the sandbox stays on", v.Source)
	}
	return on, nil
}

// envRule is what bash steps get of tandem's environment beyond the rule of
// names (shell.IsCredential), read from the user's own settings alone: a
// workspace can neither pass a key to its steps nor drop what they need.
// Keys are every provider's apiKeyEnv in agent.providers (the built-ins'
// ANTHROPIC_API_KEY and OPENAI_API_KEY are credentials by name) and what
// each server of mcp.servers is handed from tandem's environment; Pass is
// shell.passEnv. A bad shell.passEnv is an error, and passes nothing.
func envRule(st *config.Settings) (shell.EnvRule, error) {
	var rule shell.EnvRule
	if v, ok := st.User("agent.providers"); ok {
		var providers map[string]struct {
			APIKeyEnv string `json:"apiKeyEnv"`
		}
		if v.Decode(&providers) == nil { // a bad value is the agent's to report
			for _, p := range providers {
				if p.APIKeyEnv != "" {
					rule.Keys = append(rule.Keys, p.APIKeyEnv)
				}
			}
		}
	}
	if v, ok := st.User("mcp.servers"); ok {
		for _, d := range mcpclient.Load(nil, v.Raw, "mcp.servers").Servers {
			rule.Keys = append(rule.Keys, d.EnvKeys()...)
		}
	}
	v, ok := st.User("shell.passEnv")
	if !ok {
		return rule, nil
	}
	if err := v.Decode(&rule.Pass); err != nil {
		return shell.EnvRule{Keys: rule.Keys}, fmt.Errorf("shell.passEnv (%s) must be a list of variable names: %w; no credential is passed", v.Source, err)
	}
	return rule, nil
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
	if _, err := sandboxOn(st); err != nil {
		out = append(out, err)
	}
	if _, err := envRule(st); err != nil {
		out = append(out, err)
	}
	home, _ := config.Home()
	if _, err := writableDirs(st, home, os.Environ()); err != nil {
		out = append(out, err)
	}
	if _, err := readableDirs(st, home); err != nil {
		out = append(out, err)
	}
	return out
}
