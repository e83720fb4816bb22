package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func TestGuardedInFindsWhatGitAndTandemObey(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	main, wt, plain, linked := tmp+"/main", tmp+"/wt", tmp+"/plain", tmp+"/linked"
	for path, body := range map[string]string{
		main + "/.git/config":                          "[core]\n",
		main + "/.git/hooks/pre-commit":                "#!/bin/sh\n",
		main + "/.git/modules/sub/config":              "[core]\n",
		main + "/.git/modules/sub/hooks/post-checkout": "#!/bin/sh\n",
		main + "/.git/worktrees/wt/config.worktree":    "[core]\n",
		main + "/.git/worktrees/wt/commondir":          "../..\n",
		main + "/.tandem/settings.json":                "{}\n",
		wt + "/.git":                                   "gitdir: " + main + "/.git/worktrees/wt\n",
		plain + "/README":                              "",
		tmp + "/elsewhere/.git/config":                 "[core]\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tmp+"/elsewhere/.git", linked+"/.git"); err != nil {
		t.Fatal(err)
	}
	g := GuardedIn([]string{main, wt, plain, linked})
	if want := []string{main + "/.git"}; !slices.Equal(g.Pinned, want) {
		t.Errorf("Pinned = %q, want %q", g.Pinned, want)
	}
	wantRO := []string{main + "/.tandem", main + "/.git/hooks", main + "/.git/modules/sub/hooks", wt + "/.git"}
	wantConfig := []string{main + "/.git/config", main + "/.git/modules/sub/config", main + "/.git/worktrees/wt/config.worktree"}
	slices.Sort(g.ReadOnly)
	slices.Sort(wantRO)
	slices.Sort(g.GitConfig)
	slices.Sort(wantConfig)
	if !slices.Equal(g.ReadOnly, wantRO) {
		t.Errorf("ReadOnly = %q\nwant %q", g.ReadOnly, wantRO)
	}
	if !slices.Equal(g.GitConfig, wantConfig) {
		t.Errorf("GitConfig = %q\nwant %q", g.GitConfig, wantConfig)
	}
	if g := GuardedIn([]string{plain, linked}); !g.Empty() {
		t.Errorf("a root without .git, and a symlinked .git, guard %+v", g)
	}

	// The config files are read-only to every program but git.
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	if ro := g.For(python).ReadOnly; len(ro) != len(wantRO)+len(wantConfig) {
		t.Errorf("for python3: %q", ro)
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	if ro := g.For(git).ReadOnly; len(ro) != len(wantRO) || g.For(git).GitConfig != nil {
		t.Errorf("for git: %q", ro)
	}
}
