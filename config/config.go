// Package config holds tandem's settings and knows where each value came
// from. Values that gate execution (the shell's auto set, the bridge, remote
// hosts) must come from the user alone: a workspace can be written by anyone
// whose repository the user opens, so User ignores every workspace-level
// source while Get sees them all.
//
// The package also owns where the user's own files are (Home, Dir,
// StateDir, UserFile) and whether a file of the user's is trusted, that is,
// whether nobody else can have written it (Trusted).
//
// Sources, lowest precedence first:
//
//	user file        $XDG_CONFIG_HOME/tandem/config.json       user level
//	                 (read only when Trusted holds for it)
//	client, user     initializationOptions.user                user level
//	client, other    initializationOptions (other keys) and
//	                 initializationOptions.workspace           workspace level
//	configuration    workspace/configuration section "tandem"  workspace level
//
// A key is a dotted path ("shell.autoEffects"); in every source it may be
// written nested ({"shell": {"autoEffects": …}}) or dotted, or mixed.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
)

// Scope says who could have written a value.
type Scope uint8

const (
	// ScopeUser values come from the user's own settings.
	ScopeUser Scope = iota + 1
	// ScopeWorkspace values may come from files in the opened workspace.
	ScopeWorkspace
)

func (s Scope) String() string {
	if s == ScopeUser {
		return "user"
	}
	return "workspace"
}

// Source names one place settings come from.
type Source uint8

const (
	SourceUserFile      Source = iota // the user config file
	SourceClientUser                  // initializationOptions.user
	SourceClientOther                 // the rest of initializationOptions
	SourceConfiguration               // workspace/configuration and didChangeConfiguration
	numSources
)

var sourceNames = [numSources]string{"the user config file", "the editor's user settings", "the editor's workspace settings", "workspace/configuration"}

func (s Source) String() string { return sourceNames[s] }

// Scope returns the trust level of s.
func (s Source) Scope() Scope {
	if s == SourceUserFile || s == SourceClientUser {
		return ScopeUser
	}
	return ScopeWorkspace
}

// Value is one setting and where it came from.
type Value struct {
	Raw    json.RawMessage
	Source Source
}

// Decode unmarshals the value into v, naming the source in the error.
func (v Value) Decode(dst any) error {
	if err := json.Unmarshal(v.Raw, dst); err != nil {
		return fmt.Errorf("setting from %s: %w", v.Source, err)
	}
	return nil
}

// Settings holds the layered settings of one server or standalone run. The
// zero value and nil are empty settings. Safe for concurrent use.
type Settings struct {
	mu     sync.RWMutex
	layers [numSources]map[string]any
}

// New returns empty settings.
func New() *Settings { return &Settings{} }

// Set replaces the layer of src with the settings object raw (nested or
// dotted keys). Invalid input changes nothing and is an error.
func (s *Settings) Set(src Source, raw json.RawMessage) error {
	tree, err := parse(raw)
	if err != nil {
		return fmt.Errorf("settings from %s: %w", src, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.layers[src] = tree
	return nil
}

// SetInitializationOptions takes the client's initializationOptions: the
// object under "user" is user level, everything else workspace level.
func (s *Settings) SetInitializationOptions(raw json.RawMessage) error {
	tree, err := parse(raw)
	if err != nil {
		return fmt.Errorf("initializationOptions: %w", err)
	}
	user, _ := tree["user"].(map[string]any)
	if _, ok := tree["user"]; ok && user == nil {
		return errors.New(`initializationOptions: "user" must be an object of settings`)
	}
	delete(tree, "user")
	if ws, ok := tree["workspace"].(map[string]any); ok {
		delete(tree, "workspace")
		merge(tree, ws)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.layers[SourceClientUser] = user
	s.layers[SourceClientOther] = tree
	return nil
}

// Get returns the effective value of key from any source, the highest
// precedence first. Never use it for a setting that gates execution.
func (s *Settings) Get(key string) (Value, bool) { return s.lookup(key, ScopeWorkspace) }

// User returns key from user-level sources only; workspace values of the
// same key are ignored. Settings that gate execution are read only here.
func (s *Settings) User(key string) (Value, bool) { return s.lookup(key, ScopeUser) }

func (s *Settings) lookup(key string, widest Scope) (Value, bool) {
	if s == nil {
		return Value{}, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for src := numSources - 1; ; src-- {
		if src.Scope() <= widest {
			if v, ok := find(s.layers[src], key); ok {
				raw, err := json.Marshal(v)
				if err == nil {
					return Value{Raw: raw, Source: src}, true
				}
			}
		}
		if src == 0 {
			return Value{}, false
		}
	}
}

func find(tree map[string]any, key string) (any, bool) {
	var cur any = tree
	for _, part := range strings.Split(key, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// parse reads a settings object and nests dotted keys.
func parse(raw json.RawMessage) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("settings must be a JSON object")
	}
	return nest(obj), nil
}

// nest turns dotted keys into nested objects. Keys are taken in sorted
// order, so a key comes before its dotted extensions ("shell" before
// "shell.autoEffects") and the more specific one wins when an object writes
// one setting both ways; in map order the winner would change from run to
// run.
func nest(obj map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := obj[k]
		if m, ok := v.(map[string]any); ok {
			v = nest(m)
		}
		parts := strings.Split(k, ".")
		cur := out
		for _, p := range parts[:len(parts)-1] {
			next, ok := cur[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[p] = next
			}
			cur = next
		}
		last := parts[len(parts)-1]
		if m, ok := v.(map[string]any); ok {
			if old, ok := cur[last].(map[string]any); ok {
				merge(old, m)
				continue
			}
		}
		cur[last] = v
	}
	return out
}

// merge copies src into dst, objects merged key by key.
func merge(dst, src map[string]any) {
	for k, v := range src {
		if m, ok := v.(map[string]any); ok {
			if old, ok := dst[k].(map[string]any); ok {
				merge(old, m)
				continue
			}
		}
		dst[k] = v
	}
}

// LoadUser reads the user config file into s. A missing file is no error;
// a file tandem does not trust (Trusted) is not read, and the error says why.
func (s *Settings) LoadUser() error {
	file := UserFile()
	if file == "" {
		_, err := Home()
		return err
	}
	raw, err := ReadTrusted(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.Set(SourceUserFile, raw); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}
