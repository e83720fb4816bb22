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
		main + "/.git/info/attributes":                 "* filter=x\n",
		main + "/.git/info/exclude":                    "*.o\n",
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
	// git itself is held like any program: its config is read-only too.
	wantRO := []string{main + "/.tandem", main + "/.git/hooks", main + "/.git/modules/sub/hooks", wt + "/.git",
		main + "/.git/config", main + "/.git/info/attributes", main + "/.git/modules/sub/config",
		main + "/.git/worktrees/wt/config.worktree", main + "/.git/worktrees/wt/commondir"}
	slices.Sort(g.ReadOnly)
	slices.Sort(wantRO)
	if !slices.Equal(g.ReadOnly, wantRO) {
		t.Errorf("ReadOnly = %q\nwant %q", g.ReadOnly, wantRO)
	}
	if g := GuardedIn([]string{plain, linked}); len(g.Pinned)+len(g.ReadOnly) > 0 {
		t.Errorf("a root without .git, and a symlinked .git, guard %+v", g)
	}
	// A repository made without a template has no hooks directory: it is
	// made, so that no program can make one and plant a hook in it.
	bare := tmp + "/bare"
	if out, err := exec.Command("git", "-c", "init.templateDir=", "init", "-q", bare).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	if g := GuardedIn([]string{bare}); !slices.Contains(g.ReadOnly, bare+"/.git/hooks") || !isDir(bare+"/.git/hooks") {
		t.Errorf("a repository without hooks guards %q", g.ReadOnly)
	}
}
