package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
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
}

func newWorld(t *testing.T) *world {
	t.Helper()
	requireLandlock(t)
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{home: tmp + "/home", ws: tmp + "/ws", scratch: tmp + "/scratch", outside: tmp + "/outside"}
	for path, body := range map[string]string{
		w.home + "/.ssh/id_test": "PRIVATE-KEY-TEST\n",
		w.home + "/notes.txt":    "notes\n",
		w.ws + "/main.go":        "package main\n",
		w.ws + "/.git/config":    "[core]\n",
		w.scratch + "/.keep":     "",
		w.outside + "/keep.txt":  "keep\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := approvals.NewPolicy(approvals.PolicyConfig{Roots: []string{w.ws}, Home: w.home,
		Env: []string{"HOME=" + w.home, "PATH=/usr/bin:/bin"}, Scratch: []string{w.scratch}})
	if w.sb, err = New(p); err != nil {
		t.Fatal(err)
	}
	return w
}

// run runs a shell command line sandboxed with grant, in the workspace.
func (w *world) run(t *testing.T, grant approvals.Effects, script string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.Dir, cmd.Stdout, cmd.Stderr = w.ws, &out, &out
	cmd.Env = []string{"HOME=" + w.home, "PATH=/usr/bin:/bin"}
	if err := w.sb.Start(cmd, grant); err != nil {
		t.Fatalf("start: %v", err)
	}
	err := cmd.Wait()
	return out.String(), err
}

func TestSecretsNeedTheirGrant(t *testing.T) {
	w := newWorld(t)
	for _, script := range []string{"cat " + w.home + "/.ssh/id_test", "cd " + w.home + "/.ssh && cat /proc/self/cwd/id_test", "cat < " + w.home + "/.ssh/id_test"} {
		out, err := w.run(t, 0, script)
		if err == nil || strings.Contains(out, "PRIVATE") || !MayHaveRefused(out) {
			t.Errorf("%s without secret: %v %q", script, err, out)
		}
	}
	if out, err := w.run(t, 0, "echo x >> "+w.home+"/.ssh/id_test"); err == nil {
		t.Errorf("a secret was written without secret: %q", out)
	}
	if out, err := w.run(t, approvals.Of(approvals.Secret), "cat "+w.home+"/.ssh/id_test"); err != nil || !strings.Contains(out, "PRIVATE") {
		t.Errorf("with secret granted the key is not read: %v %q", err, out)
	}
	// Plain files beside the secret, and the names in the home, stay readable.
	if out, err := w.run(t, 0, "cat "+w.home+"/notes.txt && ls -a "+w.home); err != nil || !strings.Contains(out, ".ssh") {
		t.Errorf("the home's other files: %v %q", err, out)
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
	if err := w.sb.Start(other, Restricted); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()
	// tandem's environment holds the planted token (see TestMain).
	if env, err := os.ReadFile("/proc/self/environ"); err != nil || !strings.Contains(string(env), plantedToken) {
		t.Fatalf("the token is not planted: %v", err)
	}
	for _, pid := range []int{os.Getpid(), os.Getppid(), sibling.Process.Pid, other.Process.Pid} {
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
