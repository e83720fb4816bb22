package servers

import (
	"fmt"
	"os"
	"path/filepath"
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
	// After the envFile's: the last value of a name is the one a process
	// gets, and env wins over envFile as in VS Code.
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
		v, err := lookup(ref, root)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
	}
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
	case strings.HasPrefix(ref, "env:"):
		name := ref[len("env:"):]
		if v, ok := os.LookupEnv(name); ok {
			return v, nil
		}
		return "", fmt.Errorf("the environment variable %s is not set; set it before starting the editor", name)
	case strings.Contains(ref, ":") && !strings.Contains(ref, ":-"):
		return "", fmt.Errorf("${%s} is not supported; use ${env:NAME}", ref)
	}
	name, def, hasDef := strings.Cut(ref, ":-")
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v, nil
	}
	if hasDef {
		return def, nil
	}
	return "", fmt.Errorf("the environment variable %s is not set; set it before starting the editor", name)
}
