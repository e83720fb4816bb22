package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/config"
)

// The auto set is an execution gate: only the user's own settings set it. A
// workspace's settings (initializationOptions outside "user",
// workspace/configuration) can neither set nor widen it, and a value naming
// secret or an unknown effect is refused without widening anything.
func TestAutoSetComesOnlyFromUserSettings(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no user config file
	auto := func(user, initOther, wsConfig string) approvals.Effects {
		t.Helper()
		st := config.New()
		init := map[string]json.RawMessage{}
		if user != "" {
			init["user"] = json.RawMessage(user)
		}
		if initOther != "" {
			init["workspace"] = json.RawMessage(initOther)
		}
		raw, _ := json.Marshal(init)
		if err := st.SetInitializationOptions(raw); err != nil {
			t.Fatal(err)
		}
		if wsConfig != "" {
			if err := st.Set(config.SourceConfiguration, json.RawMessage(wsConfig)); err != nil {
				t.Fatal(err)
			}
		}
		s := Open(Options{Roots: []string{t.TempDir()}, Settings: st})
		return s.Gate().Auto()
	}
	read := approvals.Of(approvals.Read)
	all := `{"shell": {"autoEffects": ["read","write","exec","net","outside","protected"]}}`
	none := `{"shell": {"autoEffects": []}}`
	cases := []struct {
		name                      string
		user, initOther, wsConfig string
		want                      approvals.Effects
	}{
		{"default", "", "", "", approvals.DefaultAuto},
		{"user narrows", `{"shell": {"autoEffects": ["read"]}}`, "", "", read},
		{"workspace init cannot widen", `{"shell": {"autoEffects": ["read"]}}`, all, "", read},
		{"workspace configuration cannot widen", `{"shell": {"autoEffects": ["read"]}}`, "", all, read},
		{"workspace cannot set", "", none, none, approvals.DefaultAuto},
		{"workspace cannot widen the default", "", all, all, approvals.DefaultAuto},
		{"dotted workspace key cannot set", "", `{"shell.autoEffects": []}`, `{"shell.autoEffects": ["read"]}`, approvals.DefaultAuto},
		{"secret is refused", `{"shell": {"autoEffects": ["read", "secret"]}}`, "", "", approvals.DefaultAuto},
		{"an unknown name is refused", `{"shell": {"autoEffects": ["everything"]}}`, "", "", approvals.DefaultAuto},
	}
	for _, c := range cases {
		if got := auto(c.user, c.initOther, c.wsConfig); got != c.want {
			t.Errorf("%s: auto set %v, want %v", c.name, got, c.want)
		}
	}

	// The user config file is user level; a workspace file named like it is
	// not read.
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	if err := os.MkdirAll(filepath.Dir(config.UserFile()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config.UserFile(), []byte(`{"shell": {"autoEffects": ["read"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	st := config.New()
	if err := st.LoadUser(); err != nil {
		t.Fatal(err)
	}
	s := Open(Options{Roots: []string{t.TempDir()}, Settings: st})
	if got := s.Gate().Auto(); got != read {
		t.Errorf("user file: auto set %v, want read", got)
	}
}
