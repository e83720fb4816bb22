package servers

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
// ${env:NAME} (VS Code), ${NAME} and ${NAME:-default} (.mcp.json),
// ${workspaceFolder} and ${userHome}. An unset variable without a default
// is an error naming it, so a server never starts with a silently empty key.
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
	case ref == "userHome":
		return os.UserHomeDir()
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
