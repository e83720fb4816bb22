package approvals

import (
	"path/filepath"
	"runtime"
	"strings"
)

// DefaultScratch is where programs write as a matter of course outside the
// workspace: the temporary directory and the user's build caches (Go's
// build and module caches as `go env` finds them, npm's, cargo's registry,
// pip's and the rest of the user's cache directory). env is KEY=VALUE.
func DefaultScratch(home string, env []string) []string {
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	abs := func(name string) string {
		if v := vars[name]; filepath.IsAbs(v) {
			return v
		}
		return ""
	}
	out := []string{"/tmp"}
	if t := abs("TMPDIR"); t != "" && filepath.Clean(t) != "/tmp" {
		out = append(out, t)
	}
	if home == "" {
		return out
	}
	cache := filepath.Join(home, ".cache")
	if runtime.GOOS == "darwin" {
		cache = filepath.Join(home, "Library/Caches")
	} else if c := abs("XDG_CACHE_HOME"); c != "" {
		cache = c
	}
	out = append(out, cache)
	if c := abs("GOCACHE"); c != "" {
		out = append(out, c)
	}
	mod := abs("GOMODCACHE")
	if mod == "" {
		gopath := filepath.Join(home, "go")
		if first := filepath.SplitList(vars["GOPATH"]); len(first) > 0 && filepath.IsAbs(first[0]) {
			gopath = first[0]
		}
		mod = filepath.Join(gopath, "pkg/mod")
	}
	out = append(out, mod)
	if c := abs("PIP_CACHE_DIR"); c != "" {
		out = append(out, c)
	}
	return append(out, filepath.Join(home, ".npm"), filepath.Join(home, ".cargo/registry"), filepath.Join(home, ".cargo/git"))
}
