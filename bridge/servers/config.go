// Package servers is tandem's MCP client of the servers a user configured:
// it reads the configuration files users already have, starts a server on
// first use (after the user approved a definition a workspace file names),
// calls its tools with the engine's timeouts, and stops every server it
// started together with its process group.
package servers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Def is one server definition as written in a configuration file. Values
// keep their ${...} references: they are resolved only when the server
// starts, and the resolved values are never written anywhere.
type Def struct {
	Name string `json:"name"`
	// Source is the file the definition came from.
	Source string `json:"source"`
	// Workspace reports whether a workspace file named the server. Starting
	// such a server runs a program (or sends headers to a URL) the workspace
	// chose, so it needs the user's approval once per definition.
	Workspace bool `json:"-"`
	// Root is the workspace folder: ${workspaceFolder}, and the base of a
	// relative cwd. Empty for the user's own servers.
	Root string `json:"root,omitempty"`
	// Literal reports that the values are final, as an ACP client sends
	// them: no ${...} in them is replaced.
	Literal bool `json:"-"`

	Type    string            `json:"type"` // "stdio" or "http"
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
}

// Hash identifies a definition for its approval: the unresolved fields and
// the workspace folder (the same text in another folder can run another
// program). Any change to the definition asks again.
func (d Def) Hash() string {
	d.Source = "" // the file name does not matter, only what it says
	b, _ := json.Marshal(d)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Describe is the definition as one line for an approval question: what
// would run, with its references unresolved.
func (d Def) Describe() string {
	if d.Type == "http" {
		var hs []string
		for k := range d.Headers {
			hs = append(hs, k)
		}
		sort.Strings(hs)
		s := "connect to " + d.URL
		if len(hs) > 0 {
			s += " sending the headers " + strings.Join(hs, ", ")
		}
		return s
	}
	parts := append([]string{d.Command}, d.Args...)
	s := "run `" + strings.Join(parts, " ") + "`"
	if d.Cwd != "" {
		s += " in " + d.Cwd
	}
	if len(d.Env) > 0 {
		var ks []string
		for k := range d.Env {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		s += " with " + strings.Join(ks, ", ") + " set"
	}
	return s
}

// rawServer is the union of the entry shapes of .mcp.json, .vscode/mcp.json
// and tandem's settings.
type rawServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	Cwd     string            `json:"cwd"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// Config is the servers tandem can reach, by name, and the problems met
// while reading them (a file that is not valid JSON, an entry without a
// command). A problem hides only what it concerns.
type Config struct {
	Servers  map[string]Def
	Problems []error
}

// Names returns the server names, sorted.
func (c Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Load reads the workspace files of each root — `.mcp.json` (key
// `mcpServers`) and `.vscode/mcp.json` (key `servers`) — and the user's own
// servers (the `servers` object of the mcp section of tandem's settings; nil
// for none). When a name is defined twice, the user's definition wins over a
// workspace's, then the first root, then `.mcp.json` over `.vscode/mcp.json`.
func Load(roots []string, user json.RawMessage, userSource string) Config {
	c := Config{Servers: map[string]Def{}}
	if len(user) > 0 {
		c.add(userSource, "", false, user)
	}
	for _, root := range roots {
		for _, f := range []struct{ rel, key string }{
			{".mcp.json", "mcpServers"},
			{filepath.Join(".vscode", "mcp.json"), "servers"},
		} {
			path := filepath.Join(root, f.rel)
			data, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				c.Problems = append(c.Problems, fmt.Errorf("%s: %v", path, err))
				continue
			}
			var file map[string]json.RawMessage
			if err := json.Unmarshal(data, &file); err != nil {
				c.Problems = append(c.Problems, fmt.Errorf("%s is not valid JSON (%v); its servers are not available", path, err))
				continue
			}
			if raw, ok := file[f.key]; ok {
				c.add(path, root, true, raw)
			}
		}
	}
	return c
}

func (c *Config) add(source, root string, workspace bool, raw json.RawMessage) {
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		c.Problems = append(c.Problems, fmt.Errorf("%s: the servers are not a JSON object (%v)", source, err))
		return
	}
	for name, e := range entries {
		if _, dup := c.Servers[name]; dup {
			continue
		}
		d, err := parseEntry(name, e)
		if err != nil {
			c.Problems = append(c.Problems, fmt.Errorf("%s: server %q: %v", source, name, err))
			continue
		}
		d.Source, d.Root, d.Workspace = source, root, workspace
		c.Servers[name] = d
	}
}

func parseEntry(name string, raw json.RawMessage) (Def, error) {
	var r rawServer
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&r); err != nil {
		return Def{}, err
	}
	return checkEntry(name, r)
}

// Client checks a server an editor named for one session (ACP's
// session/new mcpServers) as a configuration file's entry is checked; its
// values are taken as they are (Literal) and a stdio server runs in root.
func Client(d Def, root string) (Def, error) {
	c, err := checkEntry(d.Name, rawServer{Type: d.Type, Command: d.Command, Args: d.Args, Env: d.Env, URL: d.URL, Headers: d.Headers})
	if err != nil {
		return Def{}, err
	}
	c.Source, c.Root, c.Literal = "the editor's session/new", root, true
	return c, nil
}

func checkEntry(name string, r rawServer) (Def, error) {
	if name == "" || strings.ContainsAny(name, "/ \t\n") {
		return Def{}, errors.New("a server name must be non-empty and hold no slash or space")
	}
	d := Def{Name: name, Command: r.Command, Args: r.Args, Env: r.Env, Cwd: r.Cwd, URL: r.URL, Headers: r.Headers}
	switch r.Type {
	case "", "stdio":
		if r.Command == "" {
			if r.URL != "" {
				d.Type = "http"
				return d, nil
			}
			return Def{}, errors.New("it has neither a command nor a url")
		}
		d.Type = "stdio"
	case "http", "streamable-http", "streamableHttp":
		if r.URL == "" {
			return Def{}, errors.New("an http server needs a url")
		}
		d.Type = "http"
	default:
		return Def{}, fmt.Errorf("transport %q is not supported (use stdio or http)", r.Type)
	}
	return d, nil
}
