package classify

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// gitRepoFixture is a real clone with a remote branch feat (no local one),
// a local branch tracked with a config section and one without, its
// policy, and a function that runs git in a fresh copy of it.
type gitRepoFixture struct {
	ws     string
	policy *approvals.Policy
	env    []string
}

func newGitRepo(t *testing.T) *gitRepoFixture {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(tmp, "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=/usr/bin:/bin", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t",
		"GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_EDITOR=true"}
	run := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	run(tmp, "init", "-q", "--bare", "-b", "main", "origin.git")
	run(tmp, "clone", "-q", "origin.git", "seed")
	seed := filepath.Join(tmp, "seed")
	writeFile(t, seed+"/a", "a\n")
	run(seed, "add", "a")
	run(seed, "commit", "-qm", "a")
	run(seed, "push", "-q", "origin", "main")
	run(seed, "checkout", "-qb", "feat")
	run(seed, "commit", "-q", "--allow-empty", "-m", "b")
	run(seed, "push", "-q", "origin", "feat")
	run(tmp, "clone", "-q", "origin.git", "ws")
	ws := filepath.Join(tmp, "ws")
	run(ws, "branch", "withcfg")
	run(ws, "config", "branch.withcfg.description", "x")
	run(ws, "branch", `q"b`) // its section is [branch "q\"b"]
	run(ws, "config", `branch.q"b.description`, "x")
	run(ws, "branch", "plain")
	return &gitRepoFixture{ws: ws, env: env,
		policy: approvals.NewPolicy(approvals.PolicyConfig{Roots: []string{ws}, Home: home, Env: env})}
}

// changesConfig runs argv (git …) in a copy of the repository and reports
// whether the repository's config changed.
func (r *gitRepoFixture) changesConfig(t *testing.T, argv []string) bool {
	t.Helper()
	cp := r.ws + "-" + strings.ReplaceAll(strings.Join(argv, "-"), "/", "_")
	if out, err := exec.Command("cp", "-a", r.ws, cp).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	defer os.RemoveAll(cp)
	before, _ := os.ReadFile(cp + "/.git/config")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = cp, r.env
	out, _ := cmd.CombinedOutput()
	after, _ := os.ReadFile(cp + "/.git/config")
	t.Logf("%q: %s", argv, out)
	return !bytes.Equal(before, after)
}

// Every git command that changes the repository's config is judged a
// protected write, and asked; the everyday ones that change none are not.
// Each judgement is checked against what git itself does to the file.
func TestGitConfigWritesAreProtected(t *testing.T) {
	r := newGitRepo(t)
	cases := []struct {
		args      string
		protected bool
	}{
		{"status", false},
		{"log --oneline", false},
		{"diff", false},
		{"add a", false},
		{"commit --allow-empty -qm x", false},
		{"stash", false},
		{"fetch", false},
		{"pull", false},
		{"merge origin/feat", false},
		{"rebase origin/feat", false},
		{"branch", false},
		{"branch new", false},
		{"branch new main", false},
		{"branch -d plain", false},
		{"switch plain", false},
		{"switch -c new", false},
		{"switch --no-guess feat", false},
		{"switch -c new --no-track origin/feat", false},
		{"switch -d origin/feat", false},
		{"checkout -b new main", false},
		{"checkout origin/feat", false},
		{"remote -v", false},
		{"remote set-head origin main", false},
		{"config --get remote.origin.url", false},
		{"tag v1", false},
		{"worktree add ../wt-new-plain plain", false},
		// They set an upstream.
		{"switch feat", true},
		{"checkout feat", true},
		{"checkout -b new origin/feat", true},
		{"checkout -B main origin/main", true},
		{"checkout --track origin/feat", true},
		{"switch -t origin/feat", true},
		{"switch -c new origin/feat", true},
		{"switch -c new @{upstream}", true},
		{"branch new origin/feat", true},
		{"branch --track new main", true},
		{"branch -u origin/feat", true},
		{"branch --set-upstream-to=origin/feat plain", true},
		{"branch --unset-upstream", true},
		{"push -u origin main:pushed", true},
		{"fetch --set-upstream origin main", true},
		{"worktree add -b new ../wt-new-b origin/feat", true},
		{"worktree add ../wt-new-feat feat", true},
		// They rename, copy or drop a branch's section (-m rewrites the
		// file even when no section moves: read-only, it fails).
		{"branch -d withcfg", true},
		{"branch -D withcfg", true},
		{`branch -d 'q"b'`, true},
		{"branch -m withcfg renamed", true},
		{"branch -M main", true},
		{"branch -c withcfg copied", true},
		// Remotes, keys, submodules, sparse checkouts.
		{"remote add o2 ../origin.git", true},
		{"remote rename origin o2", true},
		{"remote set-url origin ../x", true},
		{"remote rm origin", true},
		{"config core.fsmonitor ./fsm", true},
		{"sparse-checkout set a", true},
		// Global options and aliases before the subcommand.
		{"-c color.ui=auto config core.hooksPath .hk", true},
		{"--git-dir=.git config core.pager less", true},
		{"--git-dir .git --work-tree . config core.pager less", true},
		{"-p config core.fsmonitor ./fsm", true},
		{"-P --no-replace-objects --literal-pathspecs config core.editor vi", true},
		{"--namespace=x config core.editor vi", true},
		{"-c alias.z=config z core.fsmonitor ./fsm", true},
		{"-c alias.y=z -c alias.z=branch\\ -u\\ origin/feat y", true},
		{"-c alias.z=log z", false},
		// A clone's config is git's own, unless the command line adds to it.
		{"clone -q ../origin.git cloned", false},
		{"clone -q -c core.fsmonitor=./fsm ../origin.git cloned", true},
		{"clone -q --config=core.hooksPath=.hk ../origin.git", true},
		{"clone -q --template=../home ../origin.git cloned", true},
	}
	for _, c := range cases {
		argv := append([]string{"git"}, splitArgs(t, c.args)...)
		s := Command(argv, r.ws, envOf(r.env), r.policy)
		if got := s.Effects.Has(approvals.Protected); got != c.protected {
			t.Errorf("%s: %v, want protected %v (paths %+v)", approvals.Show(argv), s.Effects, c.protected, s.Paths)
		}
		if !c.protected && r.changesConfig(t, argv) {
			t.Errorf("%s changes the config, judged %v", approvals.Show(argv), s.Effects)
		}
	}
	// --config-env takes an alias from the step's environment.
	env := envOf(append(append([]string{}, r.env...), "ZALIAS=config core.hooksPath .hk"))
	if s := Command([]string{"git", "--config-env=alias.z=ZALIAS", "z"}, r.ws, env, r.policy); !s.Effects.Has(approvals.Protected) {
		t.Errorf("an alias from --config-env: %v", s.Effects)
	}
	// So does GIT_CONFIG_COUNT.
	env = envOf(append(append([]string{}, r.env...), "GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=user.name",
		"GIT_CONFIG_VALUE_0=x", "GIT_CONFIG_KEY_1=alias.z", "GIT_CONFIG_VALUE_1=remote add o u"))
	if s := Command([]string{"git", "z"}, r.ws, env, r.policy); !s.Effects.Has(approvals.Protected) {
		t.Errorf("an alias from GIT_CONFIG_COUNT: %v", s.Effects)
	}
	// Packed refs are read as well as loose ones.
	cmd := exec.Command("git", "pack-refs", "--all", "--prune")
	cmd.Dir, cmd.Env = r.ws, r.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pack-refs: %v %s", err, out)
	}
	for args, want := range map[string]bool{"switch feat": true, "switch plain": false, "branch new origin/feat": true, "branch new main": false} {
		argv := append([]string{"git"}, strings.Fields(args)...)
		if got := Command(argv, r.ws, envOf(r.env), r.policy).Effects.Has(approvals.Protected); got != want {
			t.Errorf("packed: %s: protected %v, want %v", args, got, want)
		}
	}
}

// splitArgs splits a case's words as git splits an alias (a backslash
// keeps a space).
func splitArgs(t *testing.T, s string) []string {
	w, ok := splitGitCmdline(s)
	if !ok {
		t.Fatalf("bad case %q", s)
	}
	return w
}

// A program that is git under another name (a link to it, git-core's
// git-SUB names) is judged as git: its config writes are asked.
func TestGitUnderAnotherNameIsJudgedAsGit(t *testing.T) {
	f := corpus.NewFixture(t)
	git, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	core := strings.TrimSpace(string(out))
	for _, l := range []string{"g", "git-config", "bin/git"} {
		if err := os.Symlink(git, filepath.Join(f.WS, l)); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(f.WS, "notgit"), "#!/bin/sh\n")
	// A name on PATH (the fixture's bin/) that links to git.
	if err := os.Symlink(git, filepath.Join(f.Bin, "gg")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"./g", "config", "core.hooksPath", ".hk"}, "exec+write+protected"},
		{[]string{"./g", "-c", "x.y=z", "remote", "add", "o", "u"}, "net+exec+write+protected"},
		{[]string{"./git-config", "core.fsmonitor", "./fsm"}, "exec+write+protected"},
		{[]string{core + "/git-config", "core.fsmonitor", "./fsm"}, "exec+write+protected"},
		{[]string{core + "/git", "branch", "-u", "origin/main"}, "read+write+exec+protected"},
		{[]string{"bin/git", "log"}, "read+exec"},
		{[]string{"./g", "log"}, "read+exec"},
		{[]string{"./notgit", "config", "core.hooksPath", ".hk"}, "exec"},
		{[]string{"gg", "config", "core.hooksPath", ".hk"}, "exec+write+protected"},
		{[]string{"tool", "config", "core.hooksPath", ".hk"}, "exec"},
	} {
		got := classifyIn(f, c.argv...)
		if want := corpus.Effects(t, c.want); got.Effects != want {
			t.Errorf("%s: %v, want %v (paths %+v)", approvals.Show(c.argv), got.Effects, want, got.Paths)
		}
	}
}

// A git command that reaches a remote over ssh signs with the user's keys
// (the agent's, ~/.ssh's): it is asked once as net and secret, naming the
// keys; over https or a local path it is net alone, and runs unasked.
func TestGitOverSSHNeedsTheKeys(t *testing.T) {
	r := newGitRepo(t)
	set := exec.Command("git", "remote", "add", "gh", "git@github.com:tandemdev/tandem.git")
	set.Dir, set.Env = r.ws, r.env
	if out, err := set.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	set = exec.Command("git", "remote", "add", "web", "https://github.com/tandemdev/tandem.git")
	set.Dir, set.Env = r.ws, r.env
	if out, err := set.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	for _, c := range []struct {
		args   string
		secret bool
	}{
		{"push gh main", true},
		{"fetch gh", true},
		{"pull gh main", true},
		{"ls-remote ssh://git@example.com/x.git", true},
		{"clone git@example.com:x/y.git y", true},
		{"fetch --all", true},
		{"remote update", true},
		{"push web main", false},
		{"fetch origin", false},
		{"clone https://example.com/x.git y", false},
		{"clone ../origin.git y", false},
	} {
		s := Command(append([]string{"git"}, strings.Fields(c.args)...), r.ws, envOf(r.env), r.policy)
		if !s.Effects.Has(approvals.Net) || s.Effects.Has(approvals.Secret) != c.secret {
			t.Errorf("git %s: %v, want net and secret %v", c.args, s.Effects, c.secret)
		}
	}

	// git reads a key on the section's own line too; a config read any
	// other way than git's is asked about as if it named ssh.
	config, err := os.OpenFile(filepath.Join(r.ws, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := config.WriteString("[remote \"one\"] url = git@github.com:tandemdev/tandem.git\n"); err != nil {
		t.Fatal(err)
	}
	config.Close()
	s := Command([]string{"git", "push", "one", "main"}, r.ws, envOf(r.env), r.policy)
	if !s.Effects.Has(approvals.Secret) {
		t.Errorf("git push one main, its url on the section's line: %v, want secret", s.Effects)
	}
}
