package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Guarded are the places in the workspace roots that a program tandem
// cannot see into may not change without protected: what git or tandem
// later runs or obeys. Landlock cannot carve them out of a root (see
// NewPlan), so they are held another way: a mount namespace where they are
// read-only (Linux), or a deny rule (macOS).
type Guarded struct {
	// Pinned are directories made mount points: they cannot be renamed or
	// removed, so a program cannot put another .git in their place. What is
	// beneath them stays writable (git writes its objects and refs).
	Pinned []string
	// ReadOnly are the files and trees no write reaches.
	ReadOnly []string
	// GitConfig are the repositories' config files: read-only but to git
	// itself, which writes upstreams and remotes there (a git config command
	// that sets a key is judged a protected write, and asked).
	GitConfig []string
}

// For is what is guarded from the program at path: the config files are
// read-only to any program but git.
func (g Guarded) For(path string) Guarded {
	if !isGit(path) {
		g.ReadOnly = append(slices.Clone(g.ReadOnly), g.GitConfig...)
	}
	g.GitConfig = nil
	return g
}

// isGit reports whether path is the git tandem finds on its own PATH.
func isGit(path string) bool {
	git := theGit()
	real, err := filepath.EvalSymlinks(path)
	return git != "" && err == nil && real == git
}

var theGit = sync.OnceValue(func() string {
	p, err := exec.LookPath("git")
	if err == nil {
		p, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		return ""
	}
	return p
})

// Empty reports whether nothing is guarded.
func (g Guarded) Empty() bool {
	return len(g.Pinned) == 0 && len(g.ReadOnly) == 0 && len(g.GitConfig) == 0
}

// GuardedIn finds, as they are now, what is guarded in roots: each root's
// .tandem, and of its repository (.git, a directory or a gitdir file) the
// config and hooks that name the programs git runs (hooks, fsmonitor,
// filters, aliases, an ssh command), its worktrees' and submodules' too. A
// symlinked .git or .tandem is left alone: it points out of the root, where
// the write rules hold.
func GuardedIn(roots []string) Guarded {
	var g Guarded
	for _, root := range roots {
		if isDir(filepath.Join(root, ".tandem")) {
			g.ReadOnly = append(g.ReadOnly, filepath.Join(root, ".tandem"))
		}
		dotGit := filepath.Join(root, ".git")
		fi, err := os.Lstat(dotGit)
		switch {
		case err != nil:
		case fi.IsDir():
			g.Pinned = append(g.Pinned, dotGit)
			g.guardGitDir(dotGit, 0)
		case fi.Mode().IsRegular():
			// A worktree or a submodule: .git names its git directory.
			g.ReadOnly = append(g.ReadOnly, dotGit)
			if dir := gitdirOf(dotGit); dir != "" {
				g.guardGitDir(dir, 0)
				if common := commonDirOf(dir); common != "" {
					g.guardGitDir(common, 0)
				}
			}
		}
	}
	return g
}

// guardGitDir guards a git directory's config and hooks, and those of the
// submodules and worktrees it holds (modules nest; depth bounds the walk).
func (g *Guarded) guardGitDir(dir string, depth int) {
	for _, name := range []string{"config", "config.worktree", "hooks"} {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		switch {
		case err != nil || fi.Mode()&os.ModeSymlink != 0 || slices.Contains(g.ReadOnly, p) || slices.Contains(g.GitConfig, p):
		case name == "hooks":
			g.ReadOnly = append(g.ReadOnly, p)
		default:
			g.GitConfig = append(g.GitConfig, p)
		}
	}
	if depth >= 4 {
		return
	}
	for _, sub := range []string{"modules", "worktrees"} {
		ents, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range ents {
			if e.IsDir() {
				g.guardGitDir(filepath.Join(dir, sub, e.Name()), depth+1)
			}
		}
	}
}

// gitdirOf reads the "gitdir: PATH" line of a .git file; "" when it has none.
func gitdirOf(dotGit string) string {
	b, err := os.ReadFile(dotGit)
	if err != nil || len(b) > 4096 {
		return ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	return absDir(filepath.Dir(dotGit), strings.TrimSpace(dir))
}

// commonDirOf reads a linked worktree's commondir file; "" when it has none.
func commonDirOf(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil || len(b) > 4096 {
		return ""
	}
	return absDir(gitDir, strings.TrimSpace(string(b)))
}

// absDir is dir taken from base, and "" unless it is a directory.
func absDir(base, dir string) string {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(base, dir)
	}
	if !isDir(dir) {
		return ""
	}
	return filepath.Clean(dir)
}

func isDir(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.IsDir()
}
