package documents

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// Ignore rules follow git: the global excludes file, then .git/info/exclude,
// then each directory's .gitignore from the top down, a deeper file winning
// over a shallower one and a later line over an earlier one; "!" re-includes.
// A directory's .ignore (as ripgrep reads it) ranks above its .gitignore.
// An ignored directory is not entered, so nothing under it can be
// re-included, as in git. go-git's matcher decides each pattern; tandem keeps
// the per-directory stack itself.

// ignoreFiles are the per-directory files, lowest precedence first.
var ignoreFiles = [...]string{".gitignore", ".ignore"}

// rules is the list of patterns in force in one directory, lowest precedence
// first. Directories share their parent's slice until they add their own.
type rules []gitignore.Pattern

// ignored reports whether the entry at parts (path components from the
// ignore root) is excluded.
func (r rules) ignored(parts []string, isDir bool) bool {
	for i := len(r) - 1; i >= 0; i-- {
		if m := r[i].Match(parts, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}

// with returns r plus the patterns of the ignore files in dir (whose
// components from the ignore root are domain), never changing r itself.
func (r rules) with(dir string, domain []string, names []string) rules {
	out := r
	for _, name := range names {
		ps := readPatterns(filepath.Join(dir, name), domain)
		if len(ps) > 0 {
			out = append(out[:len(out):len(out)], ps...)
		}
	}
	return out
}

// readPatterns parses one ignore file. Missing or unreadable files add
// nothing, as in git.
func readPatterns(path string, domain []string) []gitignore.Pattern {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	data = bytes.TrimPrefix(data, bom)
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		// go-git reads "[!a]" as a literal "!"; git means negation, which
		// Go's path.Match spells "[^a]".
		line = strings.ReplaceAll(line, "[!", "[^")
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// findGitRoot returns the nearest directory at or above dir holding .git.
func findGitRoot(dir string) (string, bool) {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// baseRules are the rules in force at the ignore root: inside a git
// repository, the global excludes file and .git/info/exclude.
func baseRules(top string, inRepo bool) rules {
	if !inRepo {
		return nil
	}
	var r rules
	if f := globalExcludesFile(top); f != "" {
		r = append(r, readPatterns(f, nil)...)
	}
	return append(r, readPatterns(filepath.Join(top, ".git", "info", "exclude"), nil)...)
}

// globalExcludesFile is core.excludesFile from git's config files (system,
// then the user's — $GIT_CONFIG_GLOBAL if set — then the repository's, the
// later winning), else $XDG_CONFIG_HOME/git/ignore.
func globalExcludesFile(top string) string {
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	// git's order, lowest precedence first: system, global, repository.
	var configs []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		configs = append(configs, "/etc/gitconfig")
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		configs = append(configs, g)
	} else {
		configs = append(configs, filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig"))
	}
	configs = append(configs, filepath.Join(top, ".git", "config"))
	var file string
	for _, cfg := range configs {
		if v := excludesOption(cfg); v != "" {
			file = v
		}
	}
	if file == "" {
		if xdg == "" {
			return ""
		}
		return filepath.Join(xdg, "git", "ignore")
	}
	if rest, ok := strings.CutPrefix(file, "~/"); ok && home != "" {
		file = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(top, file)
	}
	return file
}

func excludesOption(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(f).Decode(cfg); err != nil {
		return ""
	}
	return cfg.Section("core").Option("excludesfile")
}
