package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A workspace can set any value, but never one read through User: the
// execution gates cannot be opened by a repository the user merely opened.
func TestUserIgnoresWorkspaceSources(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if err := os.MkdirAll(filepath.Join(dir, "tandem"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tandem", "config.json"),
		[]byte(`{"shell": {"autoEffects": ["read"]}, "log": {"level": "info"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := New()
	if err := s.LoadUser(); err != nil {
		t.Fatal(err)
	}
	if err := s.SetInitializationOptions(json.RawMessage(
		`{"shell.autoEffects": ["read","write","exec"], "workspace": {"log.level": "debug"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(SourceConfiguration, json.RawMessage(`{"shell": {"autoEffects": ["exec"]}}`)); err != nil {
		t.Fatal(err)
	}

	var auto []string
	v, ok := s.User("shell.autoEffects")
	if !ok || v.Decode(&auto) != nil || len(auto) != 1 || auto[0] != "read" || v.Source.Scope() != ScopeUser {
		t.Fatalf("User(shell.autoEffects) = %s from %v, want [read] from the user file", v.Raw, v.Source)
	}
	if v, _ := s.Get("shell.autoEffects"); string(v.Raw) != `["exec"]` || v.Source != SourceConfiguration {
		t.Fatalf("Get sees %s from %v, want the workspace/configuration value", v.Raw, v.Source)
	}
	if v, _ := s.Get("log.level"); string(v.Raw) != `"debug"` || v.Source.Scope() != ScopeWorkspace {
		t.Fatalf("log.level = %s from %v", v.Raw, v.Source)
	}

	// The editor's user-level settings override the file and stay user level.
	if err := s.SetInitializationOptions(json.RawMessage(`{"user": {"shell": {"autoEffects": ["read","write"]}}}`)); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.User("shell.autoEffects"); string(v.Raw) != `["read","write"]` || v.Source != SourceClientUser {
		t.Fatalf("User after client user settings = %s from %v", v.Raw, v.Source)
	}
}

func TestBadSettingsChangeNothing(t *testing.T) {
	s := New()
	if err := s.Set(SourceConfiguration, json.RawMessage(`{"a": 1}`)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{`[1]`, `{"a":`, `"x"`} {
		if err := s.Set(SourceConfiguration, json.RawMessage(bad)); err == nil {
			t.Errorf("Set(%s) accepted", bad)
		}
	}
	if err := s.SetInitializationOptions(json.RawMessage(`{"user": 3}`)); err == nil {
		t.Error(`initializationOptions with "user": 3 accepted`)
	}
	if v, ok := s.Get("a"); !ok || string(v.Raw) != "1" {
		t.Fatalf("a = %s, %v after rejected input", v.Raw, ok)
	}
	var nilSettings *Settings
	if _, ok := nilSettings.User("a"); ok {
		t.Fatal("nil settings returned a value")
	}
}

// One object may write a setting both nested and dotted; the dotted key, the
// more specific, wins every time, whatever order the object's keys come in.
func TestDottedKeyWinsOverNested(t *testing.T) {
	for range 64 {
		s := New()
		if err := s.Set(SourceUserFile, json.RawMessage(`{"shell": {"autoEffects": ["read"]}, "shell.autoEffects": ["exec"]}`)); err != nil {
			t.Fatal(err)
		}
		if v, _ := s.User("shell.autoEffects"); string(v.Raw) != `["exec"]` {
			t.Fatalf("shell.autoEffects = %s, want the dotted key's [\"exec\"]", v.Raw)
		}
	}
}
