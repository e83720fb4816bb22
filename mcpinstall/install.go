// Package mcpinstall adds tandem's MCP server (`tandem mcp serve`) to the
// configuration files of the agents that read one, and takes it out again.
//
// Each file is edited in place: tandem's entry lives under its own key
// `tandem`, and every other byte of the file stays as it was, comments and
// trailing commas included. A file that does not parse is never written; a
// `tandem` entry that tandem did not write is left alone. Writing nothing
// when nothing changes is what makes a second run change no byte.
package mcpinstall

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/tandemdev/tandem/config"
)

// Key is the name tandem's entry has in every agent's server list.
const Key = "tandem"

// serveArgs start tandem's MCP server; an entry with these arguments and a
// command named tandem is tandem's own.
var serveArgs = []string{"mcp", "serve"}

// Scope says whose configuration is written.
type Scope string

const (
	Project Scope = "project" // the workspace's files, shared with everyone who clones it
	User    Scope = "user"    // the user's own files in their home directory
)

// Agent is one agent and where its configuration lives.
type Agent struct {
	Name    string
	format  format
	project string // relative to the workspace root
	// user is the user-scope file: base, a directory the user or the
	// system keeps, and the file's place below it.
	user func(Env) (base, rel string, err error)
}

// Env is what locating and writing the files depends on.
type Env struct {
	Root    string              // the workspace root, for project scope
	Home    string              // the user's home directory
	Getenv  func(string) string // the agents' own variables (CLAUDE_CONFIG_DIR, CODEX_HOME)
	Command string              // the command the entry runs
}

// Agents are the supported agents, in the order they are reported.
var Agents = []Agent{
	{
		Name:    "claude",
		format:  jsonFormat{container: "mcpServers", alwaysLoad: true},
		project: ".mcp.json",
		// Claude Code keeps its user settings in ~/.claude.json, or in
		// $CLAUDE_CONFIG_DIR/.claude.json when that is set.
		user: func(e Env) (string, string, error) {
			if d := e.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
				return d, ".claude.json", nil
			}
			return e.Home, ".claude.json", nil
		},
	},
	{
		Name:   "codex",
		format: tomlFormat{},
		// Codex reads a project's .codex/config.toml once the user trusts the project.
		project: filepath.Join(".codex", "config.toml"),
		user: func(e Env) (string, string, error) {
			if d := e.Getenv("CODEX_HOME"); d != "" {
				return d, "config.toml", nil
			}
			return e.Home, filepath.Join(".codex", "config.toml"), nil
		},
	},
	{
		Name:    "gemini",
		format:  jsonFormat{container: "mcpServers"},
		project: filepath.Join(".gemini", "settings.json"),
		user:    homeFile(".gemini", "settings.json"),
	},
	{
		Name:    "cursor",
		format:  jsonFormat{container: "mcpServers"},
		project: filepath.Join(".cursor", "mcp.json"),
		user:    homeFile(".cursor", "mcp.json"),
	},
	{
		Name:    "vscode",
		format:  jsonFormat{container: "servers", typed: true},
		project: filepath.Join(".vscode", "mcp.json"),
		// VS Code's user profile: $XDG_CONFIG_HOME/Code/User (~/.config) on
		// Linux, ~/Library/Application Support/Code/User on macOS.
		user: func(Env) (string, string, error) {
			d, err := os.UserConfigDir()
			return d, filepath.Join("Code", "User", "mcp.json"), err
		},
	},
}

func homeFile(parts ...string) func(Env) (string, string, error) {
	return func(e Env) (string, string, error) {
		return e.Home, filepath.Join(parts...), nil
	}
}

// AgentNamed finds an agent by its name.
func AgentNamed(name string) (Agent, bool) {
	for _, a := range Agents {
		if a.Name == name {
			return a, true
		}
	}
	return Agent{}, false
}

// Path is the file the agent reads in scope.
func (a Agent) Path(scope Scope, e Env) (string, error) {
	base, rel, err := a.place(scope, e)
	return filepath.Join(base, rel), err
}

// place is Path as the directory it is under (the workspace, the home
// directory, the user's config directory or one an agent's variable names)
// and the file's place below it.
func (a Agent) place(scope Scope, e Env) (base, rel string, err error) {
	if scope == Project {
		return e.Root, a.project, nil
	}
	return a.user(e)
}

// Action is what happened to one file.
type Action string

const (
	Added    Action = "added"
	Updated  Action = "updated"
	Already  Action = "already there"
	Removed  Action = "removed"
	NotThere Action = "not there"
	Skipped  Action = "skipped"
)

// Result is the outcome for one agent.
type Result struct {
	Agent  string
	Path   string
	Action Action
	Reason string // why, for Skipped; what changed, for Updated
}

// entry is tandem's server entry. Its field order is the order written.
type entry struct {
	Type    string   `json:"type,omitempty"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// AlwaysLoad has Claude Code list the tools to its model up front
	// rather than behind its tool search.
	AlwaysLoad bool `json:"alwaysLoad,omitempty"`
}

// format edits one kind of configuration file. edit gets the file's bytes
// (nil when there is none) and returns the new bytes; an empty result means
// the file held nothing but tandem's entry and goes away. emptyDoc is such a
// file's content when it has to stay.
type format interface {
	edit(src []byte, command string, remove bool) (out []byte, act Action, reason string, err error)
	emptyDoc() []byte
}

// Apply installs (or, with remove, removes) tandem's entry for agent a in
// scope. A refusal is a Result, not an error: the other agents go on.
func Apply(a Agent, scope Scope, e Env, remove bool) Result {
	r := Result{Agent: a.Name}
	base, rel, err := a.place(scope, e)
	if err != nil {
		return skip(r, fmt.Sprintf("its %s configuration has no known place here (%v); use the other --scope", scope, err))
	}
	r.Path = filepath.Join(base, rel)
	path, src, exists, err := readTarget(r.Path)
	if err != nil {
		return skip(r, err.Error())
	}
	if !exists && remove {
		r.Action = NotThere
		return r
	}
	out, act, reason, err := editKeepingEnds(a.format, src, e.Command, remove)
	if err != nil {
		return skip(r, fmt.Sprintf("%s: %v", r.Path, err))
	}
	r.Action, r.Reason = act, reason
	if act == Already || act == NotThere {
		return r
	}
	del := len(out) == 0
	if fi, err := os.Lstat(r.Path); del && err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// A linked file (dotfiles) stays, emptied: the link keeps pointing somewhere.
		del, out = false, a.format.emptyDoc()
	}
	if err := commit(path, src, exists, out, del, scope); err != nil {
		return skip(r, fmt.Sprintf("%s: %v", r.Path, err))
	}
	// The agent's own directories left empty go too, up to the directory
	// the file is under (the workspace, the home or config directory),
	// which never does: what an install made, the removal takes away.
	if del {
		for dir := filepath.Dir(r.Path); dir != base && strings.HasPrefix(dir, base+string(filepath.Separator)); dir = filepath.Dir(dir) {
			if os.Remove(dir) != nil { // as it should, on a directory holding anything
				break
			}
		}
	}
	return r
}

// editKeepingEnds is f.edit on a file whose lines all end in CRLF as on
// the same file with LF endings, and its result back in CRLF: the lines
// tandem writes end as the file's own do, and a removal finds them as it
// wrote them.
func editKeepingEnds(f format, src []byte, command string, remove bool) ([]byte, Action, string, error) {
	crlf := bytes.Contains(src, []byte("\r\n")) && bytes.Count(src, []byte("\n")) == bytes.Count(src, []byte("\r\n"))
	if !crlf {
		return f.edit(src, command, remove)
	}
	out, act, reason, err := f.edit(bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n")), command, remove)
	return bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n")), act, reason, err
}

// readTarget reads the file shown as shown. A linked file (dotfiles) is
// read, and later written, where it lives: path is that place, and the link
// is kept. A missing file is no error: exists says whether it was there.
func readTarget(shown string) (path string, src []byte, exists bool, err error) {
	path = shown
	if p, err := filepath.EvalSymlinks(shown); err == nil {
		path = p
	}
	src, err = os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", nil, false, fmt.Errorf("%s cannot be read (%v); make it readable, then run the command again", shown, err)
	}
	return path, src, err == nil, nil
}

func skip(r Result, reason string) Result {
	r.Action, r.Reason = Skipped, reason
	return r
}

// commit writes out over path through a temporary file and a rename, so a
// reader never sees half a file, after checking that no one (a running agent
// rewriting its settings) changed the file since it was read; del deletes
// the file instead.
func commit(path string, src []byte, exists bool, out []byte, del bool, scope Scope) error {
	now, err := os.ReadFile(path)
	if (err == nil) != exists || !bytes.Equal(now, src) {
		return errors.New("the file changed while tandem was editing it (is the agent running?); run the command again")
	}
	if del {
		return os.Remove(path)
	}
	// A user file is private by default: agents later store tokens beside
	// their servers. An existing file keeps its mode.
	mode := fs.FileMode(0o644)
	if scope == User {
		mode = 0o600
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return config.WriteReplacing(path, out, mode)
}

// classify compares an existing entry (decoded) with the one tandem writes.
// It is Already when equal; Updated when it is tandem's own entry with
// another command (a moved binary) or as an earlier tandem wrote it;
// Skipped otherwise, since an entry under tandem's key that tandem did not
// write is the user's.
func classify(have any, want entry) (Action, string) {
	w := asGeneric(want)
	if reflect.DeepEqual(have, w) {
		return Already, ""
	}
	m, ok := have.(map[string]any)
	if ok {
		cmd, _ := m["command"].(string)
		mine := entry{Type: want.Type, Command: cmd, Args: want.Args, AlwaysLoad: want.AlwaysLoad}
		earlier := mine
		earlier.AlwaysLoad = false
		var changed []string
		if cmd != want.Command {
			changed = append(changed, "the command was "+cmd)
		}
		if filepath.Base(cmd) == Key {
			switch {
			case reflect.DeepEqual(have, asGeneric(mine)):
				return Updated, strings.Join(changed, "")
			case want.AlwaysLoad && reflect.DeepEqual(have, asGeneric(earlier)):
				return Updated, strings.Join(append(changed, "its tools were not loaded up front"), ", and ")
			}
		}
	}
	return Skipped, fmt.Sprintf("it already has a %q server that tandem did not write; rename or remove that entry, then run the command again", Key)
}

// asGeneric is e as a JSON or TOML decoder returns it, for comparisons.
func asGeneric(e entry) map[string]any {
	m := map[string]any{"command": e.Command, "args": toAny(e.Args)}
	if e.Type != "" {
		m["type"] = e.Type
	}
	if e.AlwaysLoad {
		m["alwaysLoad"] = true
	}
	return m
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
