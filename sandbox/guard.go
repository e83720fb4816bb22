package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Guarded are the places in the workspace roots that a step's programs
// may not change without protected: what git or tandem later runs or
// obeys. Landlock cannot carve them out of a root (see NewPlan), so they are
// held another way: a mount namespace where they are read-only (Linux), or
// a deny rule (macOS). git itself is held like any program: a git command
// that must write its config is judged a protected write and asked, so a
// step without protected never needs to change them.
type Guarded struct {
	// Pinned are directories made mount points: they cannot be renamed or
	// removed, so a program cannot put another .git in their place. What is
	// beneath them stays writable (git writes its objects and refs).
	Pinned []string
	// ReadOnly are the files and trees no write reaches.
	ReadOnly []string
}

// GuardedIn finds, as they are now, what is guarded in roots: each root's
// .tandem, and of its repository (.git, a directory or a gitdir file) what
// names the programs git runs or which config it reads (see gitGuarded),
// its worktrees' and submodules' too. A symlinked .git or .tandem is left
// alone: it points out of the root, where the write rules hold.
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

// gitGuarded are the names in a git directory that make git run a program
// or read another config: the config (fsmonitor, hooksPath, pager, filters,
// aliases, ssh and credential programs, include.path), a worktree's own
// config, the hooks, the attributes that pick a config's filter and diff
// drivers, and a linked worktree's commondir (where its config is read).
var gitGuarded = []string{"config", "config.worktree", "hooks", "info/attributes", "commondir"}

// guardGitDir guards a git directory's gitGuarded names, and those of the
// submodules and worktrees it holds (modules nest; depth bounds the walk).
func (g *Guarded) guardGitDir(dir string, depth int) {
	if _, err := os.Lstat(filepath.Join(dir, "commondir")); err != nil {
		// A repository made without a template (git init -c
		// init.templateDir=, as tandem's own runs) has no hooks directory,
		// and one a program made there would run at the next commit: make
		// it, empty, as git init does, so that it is held too. (A linked
		// worktree's hooks are its common directory's.)
		_ = os.Mkdir(filepath.Join(dir, "hooks"), 0o755)
	}
	for _, name := range gitGuarded {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err == nil && fi.Mode()&os.ModeSymlink == 0 && !slices.Contains(g.ReadOnly, p) {
			g.ReadOnly = append(g.ReadOnly, p)
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

// absDir returns dir taken from base, or "" unless it is a directory.
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
