package sandbox

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/internal/denysys"
	"github.com/tandemdev/tandem/internal/tcpcatch"
)

// requireLandlock fails on a kernel without Landlock: the enforcement tests
// must run, unless the machine is declared to lack it.
func requireLandlock(t *testing.T) {
	t.Helper()
	if err := Supported().Unavailable; err != nil {
		if os.Getenv("TANDEM_TEST_NO_LANDLOCK") == "1" {
			t.Skipf("TANDEM_TEST_NO_LANDLOCK=1: %v", err)
		}
		t.Fatalf("%v (set TANDEM_TEST_NO_LANDLOCK=1 on a machine known to lack it)", err)
	}
}

type world struct {
	home, ws, scratch, outside string
	sb                         *Sandbox
	viaFiles                   bool   // programs' output goes to files
	umask                      uint32 // the programs' file mode mask
}

func newWorld(t *testing.T) *world {
	t.Helper()
	return newWorldWith(t)
}

// newWorldWith is a world whose tandem has env (KEY=VALUE) in its
// environment besides HOME and PATH.
func newWorldWith(t *testing.T, env ...string) *world {
	t.Helper()
	requireLandlock(t)
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{home: tmp + "/home", ws: tmp + "/ws", scratch: tmp + "/scratch", outside: tmp + "/outside"}
	writeFiles(t, map[string]string{
		w.home + "/.ssh/id_test":               "PRIVATE-KEY-TEST\n",
		w.home + "/notes.txt":                  "notes\n",
		w.home + "/.bashrc":                    "# rc\n",
		w.ws + "/main.go":                      "package main\n",
		w.ws + "/.git/config":                  "[core]\n",
		w.ws + "/.git/HEAD":                    "ref: refs/heads/main\n",
		w.ws + "/.git/hooks/pre-commit.sample": "#!/bin/sh\n",
		w.ws + "/.git/info/attributes":         "*.md diff\n",
		w.ws + "/.git/worktrees/wt/commondir":  "../..\n",
		w.ws + "/.tandem/settings.json":        "{}\n",
		w.scratch + "/.keep":                   "",
		w.outside + "/keep.txt":                "keep\n",
	}, 0o600)
	p := approvals.NewPolicy(approvals.PolicyConfig{Roots: []string{w.ws}, Home: w.home,
		Env: append([]string{"HOME=" + w.home, "PATH=/usr/bin:/bin"}, env...), Scratch: []string{w.scratch}})
	w.umask = processUmask
	if w.sb, err = New(p); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.sb.Close)
	return w
}

// run runs a shell command line sandboxed with grant, in the workspace, as
// a program tandem cannot see into.
func (w *world) run(t *testing.T, grant approvals.Effects, script string) (string, error) {
	t.Helper()
	return w.runJudged(t, grant, approvals.Of(approvals.Exec), script)
}

// runJudged runs a shell command line sandboxed with grant as a program
// whose own effects were judged to be effects.
func (w *world) runJudged(t *testing.T, grant, effects approvals.Effects, script string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir, cmd.Stdout, cmd.Stderr = w.ws, &out, &out
	if w.viaFiles {
		// Files (as tandem's shell gives): a program tandem cannot see into
		// then goes through the spawner, not a launcher of its own.
		f, err := os.CreateTemp(t.TempDir(), "out")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd.Stdout, cmd.Stderr = f, f
	}
	cmd.Env = []string{"HOME=" + w.home, "PATH=/usr/bin:/bin"}
	if err := w.sb.Start(cmd, grant, effects, w.umask); err != nil {
		t.Fatalf("start: %v", err)
	}
	err := cmd.Wait()
	if w.viaFiles {
		f := cmd.Stdout.(*os.File)
		f.Seek(0, 0)
		out.ReadFrom(f)
	}
	return out.String(), err
}

// bothWays runs a test of programs tandem cannot see into the two ways they
// start: through a launcher of their own (output to a buffer) and through
// the spawner (output to files).
func bothWays(t *testing.T, test func(t *testing.T, w *world)) {
	for _, viaFiles := range []bool{false, true} {
		t.Run(map[bool]string{false: "launcher", true: "spawner"}[viaFiles], func(t *testing.T) {
			w := newWorld(t)
			w.viaFiles = viaFiles
			test(t, w)
		})
	}
}

func TestSecretsNeedTheirGrant(t *testing.T) {
	w := newWorld(t)
	for _, script := range []string{"cat " + w.home + "/.ssh/id_test", "cd " + w.home + "/.ssh && cat /proc/self/cwd/id_test", "cat < " + w.home + "/.ssh/id_test"} {
		out, err := w.run(t, 0, script)
		// The secret is hidden: open to no one (so a read is refused), or,
		// to root, not there.
		if err == nil || strings.Contains(out, "PRIVATE") || os.Getuid() != 0 && strings.HasPrefix(script, "cat ") && !MayHaveRefused(out) {
			t.Errorf("%s without secret: %v %q", script, err, out)
		}
	}
	if out, err := w.run(t, 0, "echo x >> "+w.home+"/.ssh/id_test"); err == nil {
		t.Errorf("a secret was written without secret: %q", out)
	}
	if out, err := w.run(t, approvals.Of(approvals.Secret), "cat "+w.home+"/.ssh/id_test"); err != nil || !strings.Contains(out, "PRIVATE") {
		t.Errorf("with secret granted the key is not read: %v %q", err, out)
	}
	// Plain files beside the secret are held back too, unless outside is
	// granted (or secret, which opens all reads). Their names are not:
	// Landlock grants listing a directory to all beneath it, and the
	// home's ancestors are listed.
	if out, err := w.run(t, 0, "cat "+w.home+"/notes.txt"); err == nil || strings.Contains(out, "notes\n") || !MayHaveRefused(out) {
		t.Errorf("a plain file in the home without outside: %v %q", err, out)
	}
	for _, grant := range []approvals.Effect{approvals.Outside, approvals.Secret} {
		if out, err := w.run(t, approvals.Of(grant), "cat "+w.home+"/notes.txt && ls -a "+w.home); err != nil || !strings.Contains(out, ".ssh") {
			t.Errorf("the home's other files with %s: %v %q", grant, err, out)
		}
	}
}

// Deny by default: what no list names in the home is held back, while the
// readable places (git's config, the toolchains) are read by every step.
func TestHomeHeldBackButForTheReadablePlaces(t *testing.T) {
	w := newWorld(t)
	writeFiles(t, map[string]string{
		w.home + "/.config/unnamed-store/token": "UNNAMED-TOKEN\n",
		w.home + "/.gitconfig":                  "[user]\n\tname = Everyday\n",
		w.home + "/.cargo/bin/tool":             "#!/bin/sh\necho tool ran\n",
		w.home + "/.cargo/credentials.toml":     "CARGO-TOKEN\n",
	}, 0o700)
	w.sb.Close()
	p := approvals.NewPolicy(approvals.PolicyConfig{Roots: []string{w.ws}, Home: w.home,
		Env: []string{"HOME=" + w.home, "PATH=/usr/bin:/bin"}, Scratch: []string{w.scratch}})
	var err error
	if w.sb, err = New(p); err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{"cat " + w.home + "/.config/unnamed-store/token", "cat " + w.home + "/.cargo/credentials.toml", "grep -r TOKEN " + w.home} {
		if out, err := w.run(t, 0, script); err == nil || strings.Contains(out, "TOKEN\n") {
			t.Errorf("%s without outside: %v %q", script, err, out)
		}
	}
	if out, err := w.run(t, 0, "git config --global user.name && "+w.home+"/.cargo/bin/tool"); err != nil || out != "Everyday\ntool ran\n" {
		t.Errorf("the readable places: %v %q", err, out)
	}
}

func TestWritesStayInTheirPlaces(t *testing.T) {
	w := newWorld(t)
	if out, err := w.run(t, 0, "echo a > made && mkdir -p d/e && echo b > "+w.scratch+"/s && echo c > /dev/null"); err != nil {
		t.Fatalf("workspace and scratch writes: %v %q", err, out)
	}
	if out, err := w.run(t, 0, "echo x > "+w.outside+"/new"); err == nil {
		t.Errorf("an outside write ran without outside: %q", out)
	}
	if out, err := w.run(t, 0, "rm "+w.outside+"/keep.txt"); err == nil {
		t.Errorf("an outside removal ran without outside: %q", out)
	}
	if out, err := w.run(t, approvals.Of(approvals.Outside), "echo x > "+w.outside+"/new"); err != nil {
		t.Errorf("an outside write with outside: %v %q", err, out)
	}
	if out, err := w.run(t, approvals.Of(approvals.Outside), "echo x >> "+w.home+"/.ssh/id_test"); err == nil {
		t.Errorf("outside granted a secret write: %q", out)
	}
}

func TestNetNeedsItsGrant(t *testing.T) {
	w := newWorld(t)
	catch := tcpcatch.Listen(t)
	send := "curl -s --max-time 5 --data LEAK http://127.0.0.1:" + catch.Port + "/"
	if out, err := w.run(t, 0, send); err == nil {
		t.Errorf("a connection without net: %q", out)
	}
	if got := catch.Received(t); len(got) != 0 {
		t.Fatalf("the listener got %q without net", got)
	}
	w.run(t, approvals.Of(approvals.Net), send)
	if got := catch.Received(t); len(got) != 1 || !strings.Contains(got[0], "POST") {
		t.Errorf("with net the listener got %q", got)
	}
}

// Landlock's ptrace rules keep a sandboxed process out of the environment
// of tandem and of any process outside its own domain.
func TestOtherProcessesEnvironmentsAreClosed(t *testing.T) {
	w := newWorld(t)
	sibling := exec.Command("sleep", "30")
	sibling.Env = []string{"GITHUB_TOKEN=planted-sibling-token"}
	if err := sibling.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sibling.Process.Kill(); sibling.Wait() }()
	other := exec.Command("sleep", "30")
	if err := w.sb.Start(other, Restricted, 0, processUmask); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	// tandem's environment holds the planted token (see TestMain).
	if env, err := os.ReadFile("/proc/self/environ"); err != nil || !strings.Contains(string(env), plantedToken) {
		t.Fatalf("the token is not planted: %v", err)
	}
	pids := []int{os.Getpid(), os.Getppid(), sibling.Process.Pid, other.Process.Pid}
	// The spawners' two processes hold no environment of tandem's at all.
	if len(w.sb.spawners) == 0 {
		t.Fatal("no spawner started")
	}
	for _, z := range w.sb.spawners {
		for _, pid := range []int{z.cmd.Process.Pid, z.starter.Pid} {
			if env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ"); err != nil || len(env) != 0 {
				t.Errorf("spawner process %d's environment: %v %q", pid, err, env)
			}
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		out, err := w.run(t, Restricted, "cat /proc/"+strconv.Itoa(pid)+"/environ; cat /proc/"+strconv.Itoa(pid)+"/mem")
		if err == nil || strings.Contains(out, "planted") || strings.Contains(out, "PATH=") {
			t.Errorf("pid %d's environment was read (%v): %q", pid, err, out)
		}
	}
	// Its own too (/proc/self): no pid directory is granted. Its links
	// still resolve, to places judged as themselves.
	if out, err := w.run(t, 0, "cat /proc/self/environ"); err == nil {
		t.Errorf("its own environment was read: %q", out)
	}
	if out, err := w.run(t, 0, "cat /proc/self/cwd/main.go && readlink /proc/self/exe"); err != nil || !strings.Contains(out, "package main") {
		t.Errorf("the links of /proc/self: %v %q", err, out)
	}
}

func TestHeldIsWhatIsNotGranted(t *testing.T) {
	w := newWorld(t)
	if got := w.sb.Held(approvals.Of(approvals.Net, approvals.Secret, approvals.Exec)); got != approvals.Of(approvals.Outside, approvals.Protected) {
		t.Errorf("Held = %v", got)
	}
	var off *Sandbox
	if got := off.Held(0); got != 0 {
		t.Errorf("a sandbox that is off holds %v", got)
	}
}

// A program tandem cannot see into cannot change what git and tandem later
// run or obey in a root (a hook, the repository's config, .tandem), nor put
// another .git in place of the root's; git's own writes to .git still land.
func TestGuardedPlacesNeedProtected(t *testing.T) { bothWays(t, guardedPlacesNeedProtected) }

func guardedPlacesNeedProtected(t *testing.T, w *world) {
	if !Supported().Guards {
		t.Fatalf("no guards here: %s", Supported().Limits)
	}
	net := approvals.Of(approvals.Net)
	for _, script := range []string{
		"echo '[core] fsmonitor = evil' >> .git/config",
		"echo evil > .git/hooks/pre-commit",
		"rm .git/hooks/pre-commit.sample",
		"mv .git/hooks .git/old-hooks",
		"mv .git .git-old",
		"rm -rf .git",
		"echo '{}' > .tandem/settings.json",
		"mv .git/config .git/config-old",
		"echo '[core] fsmonitor = evil' > .git/config.new && mv .git/config.new .git/config",
		"echo '* filter=evil' >> .git/info/attributes",
		"echo /tmp/evil > .git/worktrees/wt/commondir",
		// git itself is held like any program: a git command that must
		// write its config is judged protected, and asked.
		"git config --file .git/config core.fsmonitor evil",
		"git config --file .git/config branch.main.remote origin",
	} {
		out, err := w.run(t, net, script)
		if err == nil {
			t.Errorf("%s ran without protected: %q", script, out)
		}
	}
	if b, _ := os.ReadFile(w.ws + "/.git/config"); string(b) != "[core]\n" {
		t.Errorf(".git/config changed: %q", b)
	}
	if _, err := os.Stat(w.ws + "/.git/hooks/pre-commit"); err == nil {
		t.Error("a hook was planted")
	}
	// Beneath .git, what git itself writes (objects, refs, the index).
	if out, err := w.run(t, net, "mkdir -p .git/refs/heads && echo 0000 > .git/refs/heads/main && echo x > .git/index && rm .git/index"); err != nil {
		t.Errorf("git's own writes: %v %q", err, out)
	}
	// With protected granted the write lands. A program whose words were
	// judged is held as closely: a write the gate saw it name was asked as
	// protected, and one it did not see is refused.
	if out, err := w.run(t, net|approvals.Of(approvals.Protected), "echo '# approved' >> .git/config"); err != nil {
		t.Errorf("with protected: %v %q", err, out)
	}
	if out, err := w.runJudged(t, net, approvals.Of(approvals.Write), "echo '# judged' >> .git/config"); err == nil {
		t.Errorf("a judged program wrote the config without protected: %q", out)
	}
	// git asked as protected writes its config (an upstream, a remote).
	if out, err := w.run(t, net|approvals.Of(approvals.Protected), "git config --file .git/config branch.main.remote origin"); err != nil {
		t.Errorf("git config with protected: %v %q", err, out)
	}
	if b, _ := os.ReadFile(w.ws + "/.git/config"); string(b) != "[core]\n# approved\n[branch \"main\"]\n\tremote = origin\n" {
		t.Errorf(".git/config = %q", b)
	}
	// A repository without a hooks directory (made without a template)
	// gets no hook either.
	if err := os.RemoveAll(w.ws + "/.git/hooks"); err != nil {
		t.Fatal(err)
	}
	if out, err := w.run(t, net, "mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit"); err == nil {
		t.Errorf("a hook was planted where there was no hooks directory: %q", out)
	}
	if _, err := os.Stat(w.ws + "/.git/hooks/pre-commit"); err == nil {
		t.Error("a hook was planted")
	}
}

// A program in the namespaces runs as tandem's user, not as the root of
// the namespace that mounts, and cannot undo the mounts: so for an ordinary
// user (whose own user the namespace maps to root to mount) as for root.
func TestProgramsRunAsTheUser(t *testing.T) { bothWays(t, programsRunAsTheUser) }

func programsRunAsTheUser(t *testing.T, w *world) {
	want := strconv.Itoa(os.Getuid()) + " " + strconv.Itoa(os.Getgid())
	if out, err := w.run(t, 0, "echo $(id -u) $(id -g)"); err != nil || strings.TrimSpace(out) != want {
		t.Errorf("ids in the namespaces: %v %q, want %q", err, out, want)
	}
	if out, err := w.run(t, 0, "umount -l .git/hooks; umount -l .git/config; echo evil > .git/hooks/pre-commit"); err == nil {
		t.Errorf("the guards were undone: %q", out)
	}
	if _, err := os.Stat(w.ws + "/.git/hooks/pre-commit"); err == nil {
		t.Error("a hook was planted")
	}
}

// Without net a program tandem cannot see into is off the network whole:
// UDP too, which Landlock does not hold.
func TestNetHeldBeyondTCP(t *testing.T) { bothWays(t, netHeldBeyondTCP) }

func netHeldBeyondTCP(t *testing.T, w *world) {
	udp, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	send := "python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"LEAK\", (\"127.0.0.1\", " + strconv.Itoa(udp.LocalAddr().(*net.UDPAddr).Port) + "))'"
	received := func() string {
		// The datagram, if sent, was queued before the sender exited.
		raw, err := udp.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 16)
		n := 0
		raw.Read(func(fd uintptr) bool {
			n, _, _ = unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT)
			return true
		})
		return string(buf[:max(n, 0)])
	}
	if out, err := w.run(t, 0, send); err == nil || received() != "" {
		t.Errorf("a datagram went out without net: %v %q", err, out)
	}
	if out, err := w.run(t, approvals.Of(approvals.Net), send); err != nil || received() != "LEAK" {
		t.Errorf("with net the datagram did not arrive: %v %q", err, out)
	}
}

// The spawner's programs are tandem's own children: waited for with their
// status, stopped by a signal to their group; a start that fails after the
// child was made leaves no zombie; a guarded place replaced on tandem's side
// is guarded again.
func TestSpawnerProgramsAreTandemsChildren(t *testing.T) {
	w := newWorld(t)
	spawn := func(dir string, argv ...string) (*exec.Cmd, error) {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.SysProcAttr = dir, &syscall.SysProcAttr{Setpgid: true}
		return cmd, w.sb.Start(cmd, approvals.Of(approvals.Net), approvals.Of(approvals.Exec), processUmask)
	}
	cmd, err := spawn(w.ws, "sh", "-c", "exit 3")
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3 {
		t.Errorf("exit status: %v", err)
	}
	sleeper, err := spawn(w.ws, "sleep", "30")
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(-sleeper.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatalf("the group: %v", err)
	}
	sleeper.Wait()
	if ws, ok := sleeper.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
		t.Errorf("not killed: %v", sleeper.ProcessState)
	}
	// A program still open for writing fails in the child, after it was
	// made (ETXTBSY): the child is reaped.
	script := w.ws + "/busy.sh"
	busy, err := os.OpenFile(script, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	busy.WriteString("#!/bin/sh\n")
	if _, err := spawn(w.ws, script); !errors.Is(err, syscall.ETXTBSY) {
		t.Errorf("a program open for writing: %v", err)
	}
	busy.Close()
	if z := zombieChildren(t); len(z) > 0 {
		t.Errorf("zombies left: %v", z)
	}
	if _, err := spawn(w.ws+"/gone", "sh", "-c", "true"); err == nil || !strings.Contains(err.Error(), "chdir "+w.ws+"/gone") {
		t.Errorf("a start in a directory that is gone: %v", err)
	}
	// tandem's side replaces the hooks: the next program finds them guarded.
	if err := os.RemoveAll(w.ws + "/.git/hooks"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(w.ws+"/.git/hooks", 0o755); err != nil {
		t.Fatal(err)
	}
	w.viaFiles = true
	if out, err := w.run(t, approvals.Of(approvals.Net), "echo evil > .git/hooks/pre-commit"); err == nil {
		t.Errorf("a replaced hooks directory is not guarded: %q", out)
	}
}

// The spawner's starter restricts a thread once and starts every program
// of one ruleset on it; a ruleset built again (a place it was split along
// changed) restricts the programs after it, not the thread kept for the
// old one. Landlock alone holds this case: a directory granted by the old
// ruleset, moved into the home, would stay readable.
func TestSpawnerRestrictsByTheRulesetBuiltAgain(t *testing.T) {
	w := newWorld(t)
	w.viaFiles = true
	if out, err := w.run(t, 0, "cat "+w.outside+"/keep.txt"); err != nil || out != "keep\n" {
		t.Fatalf("outside the home is read: %v %q", err, out)
	}
	moved := w.home + "/moved"
	if err := os.Rename(w.outside, moved); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if out, err := w.run(t, 0, "cat "+moved+"/keep.txt"); err == nil || strings.HasPrefix(out, "keep") {
			t.Errorf("a directory moved into the home is read without outside: %v %q", err, out)
		}
	}
	if out, err := w.run(t, approvals.Of(approvals.Outside), "cat "+moved+"/keep.txt"); err != nil || out != "keep\n" {
		t.Errorf("with outside: %v %q", err, out)
	}
}

// A program the spawner starts has its own environment, whether the one
// before it had the same (sent once) or another.
func TestSpawnerProgramsHaveTheirOwnEnvironment(t *testing.T) {
	w := newWorld(t)
	for _, x := range []string{"one", "two", "two", "", "one"} {
		out, err := os.CreateTemp(t.TempDir(), "out")
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("/bin/sh", "-c", "echo ${X-unset}")
		cmd.Dir, cmd.Stdout, cmd.Env = w.ws, out, []string{"PATH=/usr/bin:/bin"}
		if x != "" {
			cmd.Env = append(cmd.Env, "X="+x)
		}
		if err := w.sb.Start(cmd, 0, approvals.Of(approvals.Exec), processUmask); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		got, _ := os.ReadFile(out.Name())
		if want := cmp.Or(x, "unset") + "\n"; string(got) != want {
			t.Errorf("X=%s: the program printed %q, want %q", x, got, want)
		}
		out.Close()
	}
}

// Where no user namespace can be made for real (clone with CLONE_NEWUSER
// refused, as a sysctl does), a program's spawner cannot start: the probe
// then finds no namespaces, the program starts all the same, and the
// guarded places are held by its ruleset.
func TestProgramsStartWhereNoNamespaceCanBeMade(t *testing.T) {
	if os.Getenv("TANDEM_TEST_NO_USERNS") == "" {
		requireLandlock(t)
		cmd := denysys.Command(denysys.UserNamespaces, os.Args[0], "-test.run", "^TestProgramsStartWhereNoNamespaceCanBeMade$", "-test.count", "1")
		cmd.Env = append(cmd.Env, "TANDEM_TEST_NO_USERNS=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("without user namespaces: %v\n%s", err, out)
		}
		return
	}
	w := newWorld(t)
	w.viaFiles = true
	net := approvals.Of(approvals.Net)
	if out, err := w.run(t, net, "echo ran"); err != nil || out != "ran\n" {
		t.Fatalf("a program did not run: %v %q", err, out)
	}
	if out, err := w.run(t, net, "echo evil > .git/hooks/pre-commit"); err == nil {
		t.Errorf("a hook was planted without protected: %q", out)
	}
	if Supported().Guards {
		t.Errorf("namespaces are said to hold where none can be made")
	}
}

// withoutNamespaces makes the sandbox start programs as where no user
// namespace can be made, until the test ends.
func withoutNamespaces(t *testing.T) {
	saved, savedFirst := namespaces, spawnFirst
	namespaces = func() error { return errors.New("no user namespaces here") }
	spawnFirst = func() bool { return false }
	t.Cleanup(func() { namespaces, spawnFirst = saved, savedFirst })
}

// zombieChildren are this process's children that exited as a failed exec
// does (253) and were not reaped.
func zombieChildren(t *testing.T) []string {
	t.Helper()
	tasks, err := filepath.Glob("/proc/self/task/*/children")
	if err != nil || len(tasks) == 0 {
		t.Fatalf("no children lists: %v", err)
	}
	var out []string
	for _, task := range tasks {
		b, _ := os.ReadFile(task)
		for _, pid := range strings.Fields(string(b)) {
			stat, _ := os.ReadFile("/proc/" + pid + "/stat")
			if s := string(stat); strings.Contains(s, ") Z ") && strings.HasSuffix(strings.TrimSpace(s), " "+strconv.Itoa(253<<8)) {
				out = append(out, s)
			}
		}
	}
	return out
}

// A program signals no process outside its own sandbox, whatever its grant:
// not tandem, the editor, or another step's program; inside, its own
// children.
func TestSignalsStayInTheSandbox(t *testing.T) {
	w := newWorld(t)
	other := exec.Command("sleep", "30")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer other.Process.Kill()
	all := Restricted
	for _, grant := range []approvals.Effects{0, all} {
		for _, script := range []string{
			"kill -TERM " + strconv.Itoa(other.Process.Pid),
			"kill -STOP " + strconv.Itoa(other.Process.Pid),
			"python3 -c 'import os, signal; os.kill(" + strconv.Itoa(other.Process.Pid) + ", signal.SIGKILL)'",
		} {
			if out, err := w.run(t, grant, script); err == nil {
				t.Errorf("%s ran with grant %v: %q", script, grant, out)
			}
		}
	}
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(other.Process.Pid) + "/stat"); err != nil || !strings.Contains(string(stat), ") S ") {
		t.Fatalf("the other process was signalled: %v %q", err, stat)
	}
	if out, err := w.run(t, 0, "sleep 30 & kill $!; wait $!; echo status $?"); err != nil || !strings.Contains(out, "status 143") {
		t.Errorf("a program's own child: %v %q", err, out)
	}
}

// Where no user namespace can be made (a sysctl, or AppArmor's
// restriction on Ubuntu), the guarded places still hold for a program
// tandem cannot see into: its ruleset carves them out, fail closed, at the
// cost of new names at a root's top; the rest of the workspace stays
// writable.
func TestGuardedPlacesHeldWithoutNamespaces(t *testing.T) {
	w := newWorld(t)
	withoutNamespaces(t)
	net := approvals.Of(approvals.Net)
	for _, script := range []string{
		"echo '[core] fsmonitor = evil' >> .git/config",
		"echo evil > .git/hooks/pre-commit",
		"mv .git .git-old",
		"mv .git/config .git/config-old",
		"echo '{}' > .tandem/settings.json",
	} {
		if out, err := w.run(t, net, script); err == nil {
			t.Errorf("%s ran without protected: %q", script, out)
		}
	}
	if b, _ := os.ReadFile(w.ws + "/.git/config"); string(b) != "[core]\n" {
		t.Errorf(".git/config changed: %q", b)
	}
	if out, err := w.run(t, net, "echo changed > main.go && echo ref: refs/heads/x > .git/HEAD"); err != nil {
		t.Errorf("the workspace's files: %v %q", err, out)
	}
	if out, err := w.run(t, net|approvals.Of(approvals.Protected), "echo '# approved' >> .git/config"); err != nil {
		t.Errorf("with protected: %v %q", err, out)
	}
}

// A step not granted secret sees no secret and no agent's socket, and
// changes no secret's or protected place's mode, owner or times — what
// Landlock, which holds content alone, lets through; with the grant it
// reaches them. Programs judged by their words are held the same.
func TestSecretsAndSocketsAreOutOfView(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	agent := tmp + "/agent.sock"
	got := listenUnix(t, agent)
	w := newWorldWith(t, "SSH_AUTH_SOCK="+agent)
	key := w.home + "/.ssh/id_test"
	connect := `python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"SIGN")' ` + agent
	net := approvals.Of(approvals.Net)
	for _, judged := range []approvals.Effects{approvals.Of(approvals.Exec), approvals.Of(approvals.Write)} {
		for _, script := range []string{
			"chmod 644 " + key,
			"chmod 777 " + w.home + "/.ssh",
			"touch -d 2001-01-01 " + key,
			"python3 -c 'import os; os.chmod(\"" + key + "\", 0o644)'",
			connect,
		} {
			if out, err := w.runJudged(t, net, judged, script); err == nil {
				t.Errorf("%s ran without secret: %q", script, out)
			}
		}
		// A protected place keeps its mode with outside granted too.
		script := "chmod 666 " + w.home + "/.bashrc"
		if out, err := w.runJudged(t, net|approvals.Of(approvals.Outside), judged, script); err == nil {
			t.Errorf("%s ran without protected: %q", script, out)
		}
	}
	if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 || fi.ModTime().Year() == 2001 {
		t.Errorf("the key's mode or times changed: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(w.home + "/.bashrc"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf(".bashrc's mode changed: %v %v", fi.Mode(), err)
	}
	select {
	case m := <-got:
		t.Fatalf("the agent got %q without secret", m)
	default:
	}
	if out, err := w.run(t, net|approvals.Of(approvals.Secret), connect); err != nil {
		t.Fatalf("with secret granted: %v %q", err, out)
	}
	if m := <-got; m != "SIGN" {
		t.Errorf("the agent got %q with secret", m)
	}
}

// Without net a program connects to no UNIX socket outside its own (a
// daemon's, D-Bus, a database's), which neither Landlock nor an empty
// network namespace holds for a socket named by a path; a socketpair, its
// own, still works. The three ways a program starts: a launcher, the
// spawner, and a restricted thread where no namespace can be made.
func TestUnixSocketsNeedNet(t *testing.T) {
	bothWays(t, unixSocketsNeedNet)
	t.Run("no namespaces", func(t *testing.T) {
		withoutNamespaces(t)
		unixSocketsNeedNet(t, newWorld(t))
	})
}

func unixSocketsNeedNet(t *testing.T, w *world) {
	daemon := w.outside + "/daemon.sock"
	got := listenUnix(t, daemon)
	connect := `python3 -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"HELLO")' ` + daemon
	if out, err := w.run(t, 0, connect); err == nil || !MayHaveRefused(out) {
		t.Errorf("a UNIX socket without net: %v %q", err, out)
	}
	select {
	case m := <-got:
		t.Fatalf("the daemon got %q without net", m)
	default:
	}
	pair := `python3 -c 'import socket; a, b = socket.socketpair(); a.sendall(b"x"); print(b.recv(1).decode())'`
	if out, err := w.run(t, 0, pair); err != nil || strings.TrimSpace(out) != "x" {
		t.Errorf("a socketpair without net: %v %q", err, out)
	}
	if out, err := w.run(t, approvals.Of(approvals.Net), connect); err != nil {
		t.Fatalf("with net: %v %q", err, out)
	}
	if m := <-got; m != "HELLO" {
		t.Errorf("the daemon got %q with net", m)
	}
}

// Without outside nothing outside the writable places changes its mode,
// owner or times either (Landlock holds content alone): a step cannot make
// the user's files open to others. With outside it can.
func TestNothingOutsideChangesItsMode(t *testing.T) { bothWays(t, nothingOutsideChangesItsMode) }

func nothingOutsideChangesItsMode(t *testing.T, w *world) {
	for _, script := range []string{
		"chmod 666 " + w.home + "/notes.txt",
		"chmod 777 " + w.outside,
		"touch -d 2001-01-01 " + w.outside + "/keep.txt",
		"python3 -c 'import os; os.chmod(\"" + w.home + "/notes.txt\", 0o666)'",
	} {
		if out, err := w.run(t, approvals.Of(approvals.Net), script); err == nil {
			t.Errorf("%s ran without outside: %q", script, out)
		}
	}
	if fi, err := os.Stat(w.home + "/notes.txt"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("notes.txt's mode changed: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(w.outside + "/keep.txt"); err != nil || fi.ModTime().Year() == 2001 {
		t.Errorf("keep.txt's times changed: %v", err)
	}
	// The workspace and the scratch places keep theirs.
	if out, err := w.run(t, 0, "chmod +x main.go && touch -d 2001-01-01 "+w.scratch+"/.keep"); err != nil {
		t.Errorf("in the writable places: %v %q", err, out)
	}
	if out, err := w.run(t, approvals.Of(approvals.Outside), "chmod 640 "+w.home+"/notes.txt"); err != nil {
		t.Errorf("with outside: %v %q", err, out)
	}
}

// listenUnix listens on a UNIX socket at path, as an agent or a daemon
// would, and sends on the channel what each connection wrote first.
func listenUnix(t *testing.T, path string) <-chan string {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			b := make([]byte, 64)
			n, _ := c.Read(b)
			got <- string(b[:n])
			c.Close()
		}
	}()
	return got
}

// writeFiles writes each file with its body and mode, making its
// directories.
func writeFiles(t *testing.T, files map[string]string, mode os.FileMode) {
	t.Helper()
	for path, body := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// A program starts with the file mode mask it is started with (the
// script's), whichever way it starts, and tandem's own mask never changes:
// the mask is one for all of tandem's goroutines.
func TestProgramsGetTheUmaskTheyAreStartedWith(t *testing.T) {
	ways := map[string]func(t *testing.T, w *world){
		"launcher":      func(*testing.T, *world) {},
		"spawner":       func(_ *testing.T, w *world) { w.viaFiles = true },
		"no namespaces": func(t *testing.T, _ *world) { withoutNamespaces(t) },
		"no sandbox":    func(_ *testing.T, w *world) { w.sb = nil },
	}
	for name, way := range ways {
		t.Run(name, func(t *testing.T) {
			w := newWorld(t)
			way(t, w)
			for _, mask := range []uint32{0o077, 0, 0o027, processUmask} {
				w.umask = mask
				// In the scratch place: without namespaces the roots' tops
				// take no new names.
				out, err := w.run(t, 0, "cd "+w.scratch+" && umask && touch f && mkdir d && stat -c '%a' f d; rm -r f d")
				want := fmt.Sprintf("%04o\n%o\n%o\n", mask, 0o666&^mask, 0o777&^mask)
				if err != nil || out != want {
					t.Errorf("started with umask %04o: %v %q, want %q", mask, err, out, want)
				}
				if got := tandemsUmask(t); got != processUmask {
					t.Fatalf("tandem's own umask became %04o (was %04o)", got, processUmask)
				}
			}
		})
	}
}

// tandemsUmask is the mask a file tandem makes gets: the mask of the
// thread the test runs on, one of those tandem's goroutines share.
func tandemsUmask(t *testing.T) uint32 {
	f, err := os.CreateTemp(t.TempDir(), "tandems")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.Remove(f.Name())
	f, err = os.OpenFile(f.Name(), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o777)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return 0o777 &^ uint32(fi.Mode().Perm())
}

// A program gets its arguments and environment byte for byte, also bytes
// that are not UTF-8 (`printf '\377'`), through the spawner too.
func TestRawBytesReachThePrograms(t *testing.T) { bothWays(t, rawBytesReachThePrograms) }

func rawBytesReachThePrograms(t *testing.T, w *world) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", `printf '%s|%s' "$1" "$RAW"`, "sh", "a\xffb")
	cmd.Dir, cmd.Stdout, cmd.Stderr = w.ws, &buf, &buf
	if w.viaFiles {
		cmd.Stdout, cmd.Stderr = f, f
	}
	cmd.Env = []string{"PATH=/usr/bin:/bin", "RAW=\xfe\x80"}
	if err := w.sb.Start(cmd, 0, approvals.Of(approvals.Exec), processUmask); err != nil {
		t.Fatalf("start: %v", err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if w.viaFiles {
		f.Seek(0, 0)
		buf.ReadFrom(f)
	}
	if want := "a\xffb|\xfe\x80"; buf.String() != want {
		t.Errorf("the program printed %q, want %q", buf.String(), want)
	}
}
