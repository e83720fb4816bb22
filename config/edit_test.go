package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The editor's setup sets the model in the user's own file without
// touching anything else of it — other settings, their order and layout — and
// makes a private file where there was none; the settings read back hold
// the value.
func TestSetUserEditsTheFileInPlace(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	file := filepath.Join(dir, "tandem", "config.json")
	if err := SetUser(Setting{"agent.model", "anthropic/claude-x"}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the new file: %v %v", st, err)
	}
	before := "{\n  \"shell\": {\"autoEffects\": [\"read\"]},\n  \"agent\": {\n    \"maxToolCalls\": 5\n  }\n}\n"
	if err := os.WriteFile(file, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(file, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := SetUser(Setting{"agent.providers.local", map[string]any{"api": "openai-chat", "url": "http://127.0.0.1:8080/v1"}}, Setting{"agent.model", "local/qwen"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	got := string(b)
	for _, kept := range []string{"{\n  \"shell\": {\"autoEffects\": [\"read\"]},\n  \"agent\": {\n    \"maxToolCalls\": 5"} {
		if !strings.Contains(got, kept) {
			t.Errorf("%q was lost:\n%s", kept, got)
		}
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o640 {
		t.Errorf("the file's mode changed to %v", st.Mode().Perm())
	}
	s := New()
	if err := s.LoadUser(); err != nil {
		t.Fatal(err)
	}
	var model, url string
	if v, ok := s.User("agent.model"); !ok || v.Decode(&model) != nil || model != "local/qwen" {
		t.Errorf("agent.model reads back as %q:\n%s", model, got)
	}
	if v, ok := s.User("agent.providers.local.url"); !ok || v.Decode(&url) != nil || url != "http://127.0.0.1:8080/v1" {
		t.Errorf("the provider's url reads back as %q:\n%s", url, got)
	}
	// A value on the way that is not an object is refused, and nothing written.
	if err := os.WriteFile(file, []byte(`{"agent": "x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SetUser(Setting{"agent.model", "a/b"}); err == nil || !strings.Contains(err.Error(), "agent is not an object") {
		t.Errorf("agent as a string: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != `{"agent": "x"}` {
		t.Errorf("the refused file was written: %s", b)
	}
}
