package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/internal/tcpcatch"
)

// Programs tandem cannot see into run unasked with exec in the auto set;
// what they do is held by the kernel: judged by outcome, not by words.
func TestKernelHoldsWhatTheGateCannotSee(t *testing.T) {
	sb := newTestbed(t)
	key := filepath.Join(sb.home, ".ssh", "id_ed25519")
	tandemEnv := "HOME=" + os.Getenv("HOME")
	for name, script := range map[string]string{
		"python reads the key":           `python3 -c 'print(open("` + key + `").read())'`,
		"a shell behind python":          `python3 -c 'import subprocess; subprocess.run(["sh", "-c", "cat ~/.ssh/id_ed25519"], check=True)'`,
		"the key through /proc/self/cwd": `python3 -c 'import os; os.chdir("` + sb.home + `/.ssh"); print(open("/proc/self/cwd/id_ed25519").read())'`,
		"curl file://":                   `curl -s file://` + key,
		"tandem's environment":           `python3 -c 'import os; print(open("/proc/%d/environ" % os.getppid()).read())'`,
		"a sibling step's environment":   `env TOKEN=planted-sibling python3 -c 'import os, time; open("pid", "w").write(str(os.getpid())); time.sleep(5)' & sleep 1; python3 -c 'print(open("/proc/%s/environ" % open("pid").read()).read())'`,
	} {
		t.Run(name, func(t *testing.T) {
			res := runScript(t, script, sb.opts(approvals.DefaultAuto, answering(approvals.Deny)))
			out := Render(res)
			if o := res.Output.Text; strings.Contains(o, "PRIVATE") || strings.Contains(o, "planted-sibling") || strings.Contains(o, tandemEnv) {
				t.Fatalf("leaked:\n%s", out)
			}
			if res.Status == 0 {
				t.Fatalf("the step did not fail:\n%s", out)
			}
		})
	}
	// A failed step that read like a refusal is told what it ran without.
	// (To root a hidden secret directory is empty instead, which reads as
	// no refusal: the user's own ids are what holds it shut.)
	res := runScript(t, `python3 -c 'open("`+key+`")'`, sb.opts(approvals.Grantable, nil))
	if os.Getuid() != 0 && (!strings.Contains(Render(res), "sandbox: step 1 (`python3 -c") || !strings.Contains(res.Sandbox, "without secret")) {
		t.Fatalf("no sandbox note:\n%s", Render(res))
	}
	// With the user's yes, the step that named the secret reads it.
	res = runScript(t, "cat "+key, sb.opts(approvals.DefaultAuto, answering(approvals.AllowOnce)))
	if res.Status != 0 || !strings.Contains(res.Output.Text, "PRIVATE") || res.Sandbox != "" {
		t.Fatalf("an approved secret read failed:\n%s", Render(res))
	}
}

// A step's programs signal no process but their own: the kernel refuses
// tandem, the editor and other programs of the user, while the script's
// `kill $!` of its own background program is delivered by tandem.
func TestKernelHoldsSignalsToTheStep(t *testing.T) {
	sb := newTestbed(t)
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer other.Process.Kill()
	pid := strconv.Itoa(other.Process.Pid)
	for _, script := range []string{"kill -9 " + pid, "kill -STOP " + strconv.Itoa(os.Getpid()), "python3 -c 'import os; os.kill(" + pid + ", 9)'", "pkill -9 -x sleep"} {
		res := runScript(t, script, sb.opts(approvals.DefaultAuto, answering(approvals.AllowOnce)))
		if stat, err := os.ReadFile("/proc/" + pid + "/stat"); err != nil || !strings.Contains(string(stat), ") S ") {
			t.Fatalf("%s signalled another process (%q):\n%s", script, stat, Render(res))
		}
	}
	own := `python3 -c 'import os, time; open("pid", "w").write(str(os.getpid())); time.sleep(3)' & until [ -s pid ]; do sleep 0.1; done; kill $(cat pid); wait $!; echo status $?`
	res := runScript(t, own, sb.opts(approvals.DefaultAuto, nil))
	if res.Status != 0 || !strings.Contains(res.Output.Text, "status 143") {
		t.Fatalf("the script's own kill:\n%s", Render(res))
	}
}

func TestKernelHoldsNetToItsGrant(t *testing.T) {
	sb := newTestbed(t)
	catch := tcpcatch.Listen(t)
	send := `python3 -c 'import socket; s = socket.create_connection(("127.0.0.1", ` + catch.Port + `)); s.sendall(b"sent")'`
	res := runScript(t, send, sb.opts(approvals.DefaultAuto&^approvals.Of(approvals.Net), nil))
	if got := catch.Received(t); len(got) != 0 {
		t.Fatalf("without net the listener got %q:\n%s", got, Render(res))
	}
	if res.Status == 0 || !strings.Contains(res.Sandbox, "without net") {
		t.Fatalf("a refused connection is not reported:\n%s", Render(res))
	}
	// The run's grant (what the user approved for it) opens it too.
	o := sb.opts(approvals.DefaultAuto&^approvals.Of(approvals.Net), nil)
	o.Grant = approvals.Of(approvals.Net)
	res = runScript(t, send, o)
	if got := catch.Received(t); len(got) != 1 || got[0] != "sent" {
		t.Fatalf("with net the listener got %q:\n%s", got, Render(res))
	}
}

func TestKernelHoldsWritesOutsideToTheirGrant(t *testing.T) {
	sb := newTestbed(t)
	outside := filepath.Join(filepath.Dir(sb.root), "out")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	write := `python3 -c 'open("` + outside + `/made", "w").write("x")'`
	res := runScript(t, write, sb.opts(approvals.DefaultAuto&^approvals.Of(approvals.Outside), nil))
	if _, err := os.Stat(outside + "/made"); err == nil || !strings.Contains(res.Sandbox, "without outside") {
		t.Fatalf("an outside write without outside (%v):\n%s", err, Render(res))
	}
	// The workspace and the scratch places stay writable.
	res = runScript(t, `python3 -c 'import os; open("made", "w").write("x"); open(os.environ["TMPDIR"] + "/made", "w").write("x")'`, sb.opts(approvals.DefaultAuto&^approvals.Of(approvals.Outside), nil))
	if res.Status != 0 {
		t.Fatalf("workspace and scratch writes:\n%s", Render(res))
	}
	res = runScript(t, write, sb.opts(approvals.DefaultAuto|approvals.Of(approvals.Outside), nil))
	if _, err := os.Stat(outside + "/made"); err != nil {
		t.Fatalf("an outside write with outside (%v):\n%s", err, Render(res))
	}
}

// Everyday work runs unasked and works inside the sandbox, with the auto
// set that holds neither outside nor protected.
func TestEverydayWorkRunsInTheSandbox(t *testing.T) {
	sb := newTestbed(t)
	for _, tool := range []string{"go", "git", "make", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing (scripts/setup installs the tools)", tool)
		}
	}
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	sb.env = append(sb.env, "GOCACHE="+goEnv("GOCACHE"), "GOMODCACHE="+goEnv("GOMODCACHE"), "GOFLAGS=-mod=mod",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	sb.scratch = append(approvals.DefaultScratch(sb.home, sb.env), sb.tmp)
	sb.rebox(t)
	for path, body := range map[string]string{
		"go.mod":            "module example.com/everyday\n\ngo 1.22\n",
		"main.go":           "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(greet()) }\n\nfunc greet() string { return \"hi\" }\n",
		"main_test.go":      "package main\n\nimport \"testing\"\n\nfunc TestGreet(t *testing.T) {\n\tif greet() != \"hi\" {\n\t\tt.Fatal(greet())\n\t}\n}\n",
		"Makefile":          "out.txt: main.go\n\tgo run . > out.txt\n",
		"package.json":      `{"name": "everyday", "version": "1.0.0", "scripts": {"test": "node test.js"}}`,
		"package-lock.json": `{"name": "everyday", "version": "1.0.0", "lockfileVersion": 3, "requires": true, "packages": {"": {"name": "everyday", "version": "1.0.0"}}}`,
		"test.js":           "require('assert').strictEqual(1 + 1, 2); console.log('node ok');\n",
		"test_greet.py":     "def test_greet():\n    assert 'hi'.upper() == 'HI'\n",
	} {
		if err := os.WriteFile(filepath.Join(sb.root, path), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The repository exists, with a remote beside it (git init and git
	// remote add write .git, a protected place, and ask under this auto
	// set).
	origin := filepath.Join(sb.tmp, "origin.git")
	for _, args := range [][]string{{"init", "-q", sb.root}, {"init", "-q", "--bare", origin}, {"-C", sb.root, "remote", "add", "origin", origin}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v %s", args, err, out)
		}
	}
	auto := approvals.DefaultAuto &^ approvals.Of(approvals.Outside, approvals.Protected)
	runUnasked(t, sb, auto, []everyday{
		{"git", "git add -A && git commit -qm first && echo '// more' >> main.go && git status --short && git diff --stat && git add main.go && git commit -qm second && git log --oneline | wc -l", "2"},
		{"go build and test", "go build -o greet . && ./greet && go test ./...", "ok"},
		{"make", "make && cat out.txt", "hi"},
		{"npm", "npm ci --no-audit --no-fund && npm test", "node ok"},
		{"pytest", "/usr/bin/python3 -m pytest -q -p no:cacheprovider", "1 passed"},
		// Everyday git with its config read-only to it: none of these
		// writes the config.
		{"git branches", "base=$(git branch --show-current) && git branch topic && git branch && git switch -q topic && echo '// t' >> main.go && git stash -q && git stash pop -q && git commit -qam topic && git checkout -q $base && git merge -q --no-edit topic && git checkout -q -b side HEAD~1 && echo '// s' >> go.mod && git commit -qam side && git rebase -q $base && git log -1 --format=%s", "side"},
		{"git remote", "base=$(git branch --show-current) && git push -q origin $base && git fetch -q origin && git pull -q --no-rebase origin $base && git switch -q -c pulled origin/$base --no-track && git status --short --branch", "## pulled"},
	})
	// A git command that sets an upstream is asked as protected; with a
	// no it does not run, with a yes it writes the config.
	a := answering(approvals.Deny)
	res := runScript(t, "git switch -q -c tracked && git branch -q --set-upstream-to=side", sb.opts(auto, a))
	if res.Status == 0 || len(a.asked()) != 1 {
		t.Errorf("a denied upstream, asked %d:\n%s", len(a.asked()), Render(res))
	}
	a = answering(approvals.AllowOnce)
	res = runScript(t, "git branch -q --set-upstream-to=side tracked && git config branch.tracked.merge", sb.opts(auto, a))
	if res.Status != 0 || len(a.asked()) != 1 || !strings.Contains(res.Output.Text, "refs/heads/side") {
		t.Errorf("an allowed upstream, asked %d:\n%s", len(a.asked()), Render(res))
	}
	// A push over ssh signs with the user's keys: asked once, as net and
	// secret; with a no nothing runs.
	if out, err := exec.Command("git", "-C", sb.root, "remote", "add", "gh", "git@github.com:tandemdev/tandem.git").CombinedOutput(); err != nil {
		t.Fatalf("git remote add: %v %s", err, out)
	}
	a = answering(approvals.Deny)
	res = runScript(t, "git push -q gh HEAD", sb.opts(auto, a))
	if q := a.asked(); res.Status == 0 || len(q) != 1 || len(q[0].Steps) != 1 || !q[0].Steps[0].Effects.Has(approvals.Secret) || !q[0].Steps[0].Effects.Has(approvals.Net) ||
		!strings.Contains(res.Steps[0].Text, "git push") || res.Steps[0].Ran {
		t.Errorf("a push over ssh, asked %d:\n%s", len(q), Render(res))
	}
	// No program, git included, writes .git/hooks or .git/config unasked,
	// and a git config that sets a key is asked. (An alias already in the
	// config is git running what the gate cannot see: the kernel holds it.)
	if out, err := exec.Command("git", "-C", sb.root, "config", "alias.z", "config core.fsmonitor ./x").CombinedOutput(); err != nil {
		t.Fatalf("git config: %v %s", err, out)
	}
	config, _ := os.ReadFile(filepath.Join(sb.root, ".git/config"))
	for _, script := range []string{
		"git z",
		"cp $(command -v git) ./g && ./g config core.fsmonitor ./x",
		"cp \"$(git --exec-path)/git\" ./gitcopy && ./gitcopy -c alias.z='config core.hooksPath .hk' z",
		`python3 -c 'open(".git/hooks/pre-commit", "w").write("#!/bin/sh\necho planted\n")'`,
		`python3 -c 'open(".git/config", "a").write("[core]\n\tfsmonitor = ./x\n")'`,
		`make -f /dev/stdin <<'EOF'` + "\nall:\n\tmv .git .git-old\n" + `EOF`,
	} {
		a := answering(approvals.Deny)
		res := runScript(t, script, sb.opts(auto, a))
		if res.Status == 0 || len(a.asked()) > 0 || !strings.Contains(res.Sandbox, "git config or hooks") {
			t.Errorf("asked %d:\n%s", len(a.asked()), Render(res))
		}
	}
	a = answering(approvals.Deny)
	res = runScript(t, "git config core.fsmonitor ./x", sb.opts(auto, a))
	if len(a.asked()) != 1 || res.Status == 0 {
		t.Errorf("a git config that sets a key was not asked (%d):\n%s", len(a.asked()), Render(res))
	}
	if now, _ := os.ReadFile(filepath.Join(sb.root, ".git/config")); string(now) != string(config) {
		t.Errorf(".git/config changed:\n%s", now)
	}
	if _, err := os.Stat(filepath.Join(sb.root, ".git/hooks/pre-commit")); err == nil {
		t.Error("a hook was planted")
	}
}

// The steps of one script reuse what the sandbox built (a grant's view,
// its spawner, a thread restricted by its ruleset), but a guarded place a
// step replaced is guarded again for the steps after it: hooks moved away
// and made again (asked as protected, allowed) take no hook from a program
// the gate cannot see into.
func TestKernelGuardsAPlaceReplacedBetweenSteps(t *testing.T) {
	sb := newTestbed(t)
	if out, err := exec.Command("git", "init", "-q", sb.root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	auto := approvals.DefaultAuto &^ approvals.Of(approvals.Outside, approvals.Protected)
	a := answering(approvals.AllowOnce)
	res := runScript(t, "git status --short\nmv .git/hooks .git/hooks-old && mkdir .git/hooks\n"+
		`python3 -c 'open(".git/hooks/pre-commit", "w").write("#!/bin/sh\necho planted\n")'`, sb.opts(auto, a))
	if len(res.Steps) != 4 || !res.Steps[2].Ran || res.Status == 0 || !strings.Contains(res.Sandbox, "git config or hooks") {
		t.Errorf("asked %d:\n%s", len(a.asked()), Render(res))
	}
	if _, err := os.Stat(filepath.Join(sb.root, ".git/hooks/pre-commit")); err == nil {
		t.Error("a hook was planted in the hooks made again")
	}
}

// The home outside the workspace is held back by default, and the gate
// agrees with the kernel: a step that names a place there is asked once as
// outside, and a yes opens the kernel's view for it; a program the gate
// cannot see into is refused, and its note names the place and the grant
// that opens it; the readable places (git's config) need nothing.
func TestKernelHoldsTheHomeBack(t *testing.T) {
	sb := newTestbed(t)
	token := filepath.Join(sb.home, ".config", "unnamed-vault", "token")
	for path, body := range map[string]string{token: "UNNAMED-TOKEN\n",
		filepath.Join(sb.home, ".gitconfig"):       "[include]\n\tpath = ~/.gitconfig.local\n",
		filepath.Join(sb.home, ".gitconfig.local"): "[user]\n\tname = Home User\n"} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res := runScript(t, `python3 -c 'print(open("`+token+`").read())'`, sb.opts(approvals.DefaultAuto, answering(approvals.Deny)))
	if strings.Contains(res.Output.Text, "UNNAMED-TOKEN") || res.Status == 0 {
		t.Fatalf("a program read the home unasked:\n%s", Render(res))
	}
	if want := "refusal of " + token + ": the sandbox keeps it from a step without outside"; !strings.Contains(res.Sandbox, want) || !strings.Contains(res.Sandbox, `"access": ["outside"]`) {
		t.Fatalf("the note does not name the place and its grant (%q):\n%s", want, Render(res))
	}
	a := answering(approvals.Deny)
	res = runScript(t, "cat "+token, sb.opts(approvals.DefaultAuto, a))
	if qs := a.asked(); len(qs) != 1 || qs[0].Steps[0].Effects != approvals.Of(approvals.Read, approvals.Outside) || strings.Contains(res.Output.Text, "UNNAMED-TOKEN") {
		t.Fatalf("asked %v:\n%s", qs, Render(res))
	}
	if text := approvals.QuestionText(a.asked()[0]); !strings.Contains(text, "outside, in the home directory (outside lets the step read it): "+token) {
		t.Fatalf("the question does not name what it needs:\n%s", text)
	}
	res = runScript(t, "cat "+token, sb.opts(approvals.DefaultAuto, answering(approvals.AllowOnce)))
	if res.Status != 0 || !strings.Contains(res.Output.Text, "UNNAMED-TOKEN") {
		t.Fatalf("an approved home read failed:\n%s", Render(res))
	}
	a = answering(approvals.Deny)
	// A file git's global config includes is read as part of it.
	sb.rebox(t)
	res = runScript(t, "git config user.name && cat ~/.gitconfig.local", sb.opts(approvals.DefaultAuto, a))
	if res.Status != 0 || len(a.asked()) != 0 || !strings.Contains(res.Output.Text, "Home User\n[user]") {
		t.Fatalf("git's config, asked %d:\n%s", len(a.asked()), Render(res))
	}
}

// Everyday work runs unasked with the user's real home held back: the
// toolchains tandem's user has there (pyenv's python3, Go's caches, npm's)
// are readable places.
func TestEverydayWorkWithTheRealHomeHeldBack(t *testing.T) {
	sb := newTestbed(t)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	sb.home = home
	sb.env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C", "TMPDIR=" + sb.tmp}
	sb.scratch = append(approvals.DefaultScratch(home, sb.env), sb.tmp)
	sb.rebox(t)
	for path, body := range map[string]string{
		"go.mod":       "module example.com/everyday\n\ngo 1.22\n",
		"main.go":      "package main\n\nfunc main() { println(\"hi\") }\n",
		"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestNothing(t *testing.T) {}\n",
		"package.json": `{"name": "everyday", "version": "1.0.0", "scripts": {"test": "node -e \"console.log('node ok')\""}}`,
	} {
		if err := os.WriteFile(filepath.Join(sb.root, path), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", sb.root).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	auto := approvals.DefaultAuto &^ approvals.Of(approvals.Outside, approvals.Protected)
	runUnasked(t, sb, auto, []everyday{
		{"python3 on PATH", "python3 -c 'print(6 * 7)'", "42"},
		{"go", "go build -o greet . && go test ./...", "ok"},
		{"npm", "npm test", "node ok"},
		{"git", "git status --short", "main.go"},
	})
}

// everyday is a script of everyday work and what its output shows.
type everyday struct{ name, script, want string }

// runUnasked runs each script in the testbed with the auto set auto: it
// must ask nothing, succeed, and show what it wants.
func runUnasked(t *testing.T, sb *testbed, auto approvals.Effects, scripts []everyday) {
	t.Helper()
	for _, c := range scripts {
		t.Run(c.name, func(t *testing.T) {
			a := answering(approvals.Deny)
			res := runScript(t, c.script, sb.opts(auto, a))
			if res.Status != 0 || len(a.asked()) > 0 || !strings.Contains(res.Output.Text, c.want) {
				t.Fatalf("asked %d, output lacks %q:\n%s", len(a.asked()), c.want, Render(res))
			}
		})
	}
}
