package mcpclient

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/joho/godotenv"
)

// resolved is a definition with its references replaced, alive only while a
// server starts: it is passed to the process or the HTTP client and never
// stored, logged or returned.
type resolved struct {
	command string
	args    []string
	env     []string // NAME=value, added to tandem's own environment
	cwd     string
	url     string
	headers map[string]string
}

// resolve replaces the references the configuration formats users write:
// ${env:NAME} (VS Code, Cursor), ${NAME} and ${NAME:-default} (.mcp.json),
// ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome} and
// ${pathSeparator} (or ${/}), and reads the envFile. An unset variable
// without a default is an error naming it, so a server never starts with a
// silently empty key.
func (d Def) resolve() (resolved, error) {
	var firstErr error
	x := func(s string) string {
		if d.Literal {
			return s
		}
		out, err := expand(s, d.Root)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return out
	}
	r := resolved{command: x(d.Command), url: x(d.URL), cwd: x(d.Cwd)}
	for _, a := range d.Args {
		r.args = append(r.args, x(a))
	}
	if d.EnvFile != "" {
		vars, err := d.readEnvFile(x(d.EnvFile))
		if err != nil && firstErr == nil {
			firstErr = err
		}
		for k, v := range vars {
			r.env = append(r.env, k+"="+v)
		}
	}
	// env's values come after the envFile's: a process gets the last value
	// of a name, so env wins over envFile, as in VS Code.
	for k, v := range d.Env {
		r.env = append(r.env, k+"="+x(v))
	}
	if len(d.Headers) > 0 {
		r.headers = map[string]string{}
		for k, v := range d.Headers {
			r.headers[k] = x(v)
		}
	}
	switch {
	case r.cwd == "":
		r.cwd = d.Root
	case !filepath.IsAbs(r.cwd) && d.Root != "":
		r.cwd = filepath.Join(d.Root, r.cwd)
	}
	return r, firstErr
}

// readEnvFile reads a dotenv file, relative to the workspace folder.
func (d Def) readEnvFile(path string) (map[string]string, error) {
	if !filepath.IsAbs(path) {
		if d.Root == "" {
			return nil, fmt.Errorf("its envFile %s is relative and a server of the user settings has no workspace folder; write an absolute path, such as ${userHome}/%s", path, path)
		}
		path = filepath.Join(d.Root, path)
	}
	vars, err := godotenv.Read(path)
	if err != nil {
		return nil, fmt.Errorf("its envFile %s cannot be read (%v); create it, or remove envFile from the server's entry in %s", path, err, d.Source)
	}
	return vars, nil
}

func expand(s, root string) (string, error) {
	return expandWith(s, func(ref string) (string, error) { return lookup(ref, root) })
}

// expandWith replaces each ${ref} of s by what value gives for it.
func expandWith(s string, value func(ref string) (string, error)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		ref := s[i+2 : i+j]
		s = s[i+j+1:]
		v, err := value(ref)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
	}
}

// envRef returns the environment variable a reference reads: NAME of
// ${env:NAME}, ${NAME} or ${NAME:-default}; ok is false for every other
// reference (${workspaceFolder}, ${userHome}, ${input:…}, …).
func envRef(ref string) (name, def string, hasDef, ok bool) {
	switch ref {
	case "workspaceFolder", "workspaceFolderBasename", "userHome", "pathSeparator", "/":
		return "", "", false, false
	}
	if name, ok := strings.CutPrefix(ref, "env:"); ok {
		return name, "", false, true
	}
	if strings.Contains(ref, ":") && !strings.Contains(ref, ":-") {
		return "", "", false, false
	}
	name, def, hasDef = strings.Cut(ref, ":-")
	return name, def, hasDef, true
}

// environment lists the variables that a definition passes on as the
// server's plain environment ("PATH": "${PATH}:/opt/bin") rather than as a
// key, so EnvKeys never counts them as keys.
var environment = map[string]bool{"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "TERM": true, "LANG": true, "TZ": true, "TMPDIR": true, "PWD": true}

// EnvKeys returns the variables of tandem's environment whose values the
// definition hands its server in its env, headers, args or url: its keys
// (`--header Authorization:${AUTH}` is as common as a header). The
// variables of a process's plain environment (PATH, HOME, LANG, LC_*,
// XDG_*…) are left out.
func (d Def) EnvKeys() []string {
	var names []string
	collect := func(ref string) (string, error) {
		if name, _, _, ok := envRef(ref); ok && !environment[name] && !strings.HasPrefix(name, "LC_") && !strings.HasPrefix(name, "XDG_") {
			names = append(names, name)
		}
		return "", nil
	}
	for _, v := range d.Env {
		_, _ = expandWith(v, collect)
	}
	for _, v := range d.Headers {
		_, _ = expandWith(v, collect)
	}
	for _, v := range append([]string{d.URL}, d.Args...) {
		_, _ = expandWith(v, collect)
	}
	sort.Strings(names)
	return slices.Compact(names)
}

func lookup(ref, root string) (string, error) {
	switch {
	case ref == "workspaceFolder":
		if root == "" {
			return "", fmt.Errorf("${workspaceFolder} has no meaning in user settings; write the path")
		}
		return root, nil
	case ref == "workspaceFolderBasename":
		if root == "" {
			return "", fmt.Errorf("${workspaceFolderBasename} has no meaning in user settings; write the name")
		}
		return filepath.Base(root), nil
	case ref == "userHome":
		return os.UserHomeDir()
	case ref == "pathSeparator", ref == "/":
		return string(os.PathSeparator), nil
	case strings.HasPrefix(ref, "input:"):
		id := ref[len("input:"):]
		return "", fmt.Errorf("${input:%s} asks VS Code to prompt for the input %q, and tandem cannot prompt for VS Code inputs; put the value in an environment variable and write ${env:NAME}, or in the server's envFile", id, id)
	}
	name, def, hasDef, ok := envRef(ref)
	switch {
	case !ok:
		return "", fmt.Errorf("${%s} is not supported; use ${env:NAME}", ref)
	case strings.HasPrefix(ref, "env:"):
		if v, ok := os.LookupEnv(name); ok {
			return v, nil
		}
		return "", fmt.Errorf("the environment variable %s is not set; set it before starting the editor", name)
	}
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v, nil
	}
	if hasDef {
		return def, nil
	}
	return "", fmt.Errorf("the environment variable %s is not set; set it before starting the editor", name)
}
