// Package mcpclient is tandem's MCP client of the servers a user
// configured. It reads the configuration files users already have, starts a
// server on first use (once the user has approved a definition that a
// workspace file names), calls its tools within tandem's timeouts
// (StartTimeout, CallTimeout), and stops every server it started together
// with the server's process group.
package mcpclient

import (
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

	"github.com/tailscale/hujson"
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
	// Root is the workspace folder: the value of ${workspaceFolder}, and
	// the base of a relative cwd. It is empty for the user's own servers.
	Root string `json:"root,omitempty"`
	// Literal reports that the values are final, as an ACP client sends
	// them: no ${...} in them is replaced.
	Literal bool `json:"-"`

	Type    string            `json:"type"` // "stdio", "http" or "sse"
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// EnvFile is a dotenv file whose variables the server gets beneath
	// Env's, relative to the workspace folder.
	EnvFile string            `json:"envFile,omitempty"`
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

// Describe returns the definition as one line for an approval question:
// what would run, with its references unresolved.
func (d Def) Describe() string {
	if d.Type != "stdio" {
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
	if d.EnvFile != "" {
		s += " and the variables of " + d.EnvFile
	}
	return s
}

// rawServer is the union of the entry shapes of .mcp.json, .vscode/mcp.json,
// .cursor/mcp.json and tandem's settings.
type rawServer struct {
	Type     string            `json:"type"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	EnvFile  string            `json:"envFile"`
	Cwd      string            `json:"cwd"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Disabled bool              `json:"disabled"`
}

// Config is the servers tandem can reach, by name, and the problems met
// while reading them (a file that is not valid JSON, an entry without a
// command). A problem hides only what it concerns.
type Config struct {
	Servers  map[string]Def
	Problems []error
	// claimed holds every name a definition took, a disabled one too: a
	// disabled entry turns its name off rather than letting a definition of
	// lower precedence start.
	claimed map[string]bool
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

// workspaceFiles are the files of a workspace root that name servers, in
// their order of precedence, with the key holding their servers. Each is
// read as JSONC: VS Code's mcp.json allows comments and trailing commas.
var workspaceFiles = []struct{ rel, key string }{
	{".mcp.json", "mcpServers"},
	{filepath.Join(".vscode", "mcp.json"), "servers"},
	{filepath.Join(".cursor", "mcp.json"), "mcpServers"},
}

// Load reads the workspace files of each root — `.mcp.json`,
// `.vscode/mcp.json` and `.cursor/mcp.json` — and the user's own servers (the
// `servers` object of the mcp section of tandem's settings; nil for none).
// When a name is defined twice, the user's definition wins over a
// workspace's, then the first root, then the files in workspaceFiles'
// order.
func Load(roots []string, user json.RawMessage, userSource string) Config {
	c := Config{Servers: map[string]Def{}, claimed: map[string]bool{}}
	if len(user) > 0 {
		c.add(userSource, "", false, user)
	}
	for _, root := range roots {
		for _, f := range workspaceFiles {
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
			std, err := hujson.Standardize(data)
			if err == nil {
				err = json.Unmarshal(std, &file)
			}
			if err != nil {
				c.Problems = append(c.Problems, fmt.Errorf("%s is not valid JSON (%v); its servers are not available until it is corrected", path, err))
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
		if c.claimed[name] {
			continue
		}
		d, disabled, err := parseEntry(name, e)
		if err != nil {
			c.Problems = append(c.Problems, fmt.Errorf("%s: server %q: %v", source, name, err))
			continue
		}
		c.claimed[name] = true
		if disabled {
			continue
		}
		d.Source, d.Root, d.Workspace = source, root, workspace
		c.Servers[name] = d
	}
}

// parseEntry reads one entry; a disabled one is reported as such and not
// checked further, since it never starts.
func parseEntry(name string, raw json.RawMessage) (d Def, disabled bool, err error) {
	var r rawServer
	if err := json.Unmarshal(raw, &r); err != nil {
		return Def{}, false, err
	}
	if r.Disabled {
		return Def{}, true, nil
	}
	d, err = checkEntry(name, r)
	return d, false, err
}

// Client checks a server that an editor named for one session (ACP's
// session/new mcpServers) in the same way as a configuration file's entry.
// The returned definition takes the values as they are (Literal), and a
// stdio server runs in root.
func Client(d Def, root string) (Def, error) {
	if d.Type == "sse" {
		// tandem's ACP capabilities declare http only.
		return Def{}, errors.New(`transport "sse" is not supported for a server an editor names; name its streamable HTTP url instead`)
	}
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
	d := Def{Name: name, Command: r.Command, Args: r.Args, Env: r.Env, EnvFile: r.EnvFile, Cwd: r.Cwd, URL: r.URL, Headers: r.Headers}
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
	case "sse":
		if r.URL == "" {
			return Def{}, errors.New("an sse server needs a url")
		}
		d.Type = "sse"
	default:
		return Def{}, fmt.Errorf("transport %q is not supported; write stdio, http or sse", r.Type)
	}
	return d, nil
}
