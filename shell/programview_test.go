package shell

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

// A program's /proc/self is its own process: its cwd is the script's
// directory, not tandem's. Reading or planting through /proc/self/cwd,
// /proc/thread-self/cwd or /dev/fd/../cwd after cd ~/.ssh is a secret
// step, asked and, denied, not run; reading the program's own entries
// (its streams, its executable, its descriptors) asks nothing.
func TestProgramViewOfProcSelf(t *testing.T) {
	sb := newTestbed(t)
	for _, script := range []string{
		`cd ~/.ssh; cat /proc/self/cwd/id_ed25519`,
		`cd ~/.ssh; cat /proc/thread-self/cwd/id_ed25519`,
		`cd ~/.ssh; cat /dev/fd/../cwd/id_ed25519`,
		`cd ~/.ssh; cat < /proc/self/cwd/id_ed25519`,
		`cd ~/.ssh; touch /proc/self/cwd/planted`,
		`cd ~/.ssh; echo x >> /proc/self/cwd/id_ed25519`,
	} {
		a := answering(approvals.Deny)
		res := runScript(t, script, sb.opts(approvals.DefaultAuto, a))
		if len(a.asked()) != 1 || res.End != Refused || strings.Contains(Render(res), "PRIVATE") {
			t.Errorf("%s: asked %d, ended %v:\n%s", script, len(a.asked()), res.End, Render(res))
		}
		if _, err := os.Lstat(filepath.Join(sb.home, ".ssh", "planted")); err == nil {
			t.Fatalf("%s: planted a file in ~/.ssh", script)
		}
		if b, _ := os.ReadFile(filepath.Join(sb.home, ".ssh", "id_ed25519")); string(b) != "PRIVATE\n" {
			t.Fatalf("%s: the key changed: %q", script, b)
		}
	}
	for _, script := range []string{
		`echo hi | cat /dev/stdin`,
		`readlink /proc/self/exe`,
		`ls /proc/self/fd`,
		`echo out > /proc/thread-self/fd/1`,
		`cd ~/.ssh; head -n 3 /dev/null`,
	} {
		a := answering(approvals.Deny)
		res := runScript(t, script, sb.opts(approvals.DefaultAuto, a))
		if len(a.asked()) != 0 || res.End != Finished || res.Status != 0 {
			t.Errorf("%s: asked %d, ended %v %d:\n%s", script, len(a.asked()), res.End, res.Status, Render(res))
		}
	}
	// The shell has no process of its own: a redirection from its /proc
	// entries would open tandem's, so it fails.
	a := answering(approvals.Deny)
	res := runScript(t, `cat < /proc/self/environ`, sb.opts(approvals.DefaultAuto, a))
	if len(a.asked()) != 0 || res.Status == 0 || strings.Contains(Render(res), "PATH=") {
		t.Errorf("cat < /proc/self/environ: asked %d, status %d:\n%s", len(a.asked()), res.Status, Render(res))
	}
}

// Another process's environment, arguments and memory are secret: tandem's
// own, read by its pid, asks.
func TestOtherProcessesEnvironmentIsSecret(t *testing.T) {
	sb := newTestbed(t)
	pid := strconv.Itoa(os.Getpid())
	for _, script := range []string{
		`cat /proc/` + pid + `/environ`,
		`tr '\0' '\n' < /proc/` + pid + `/environ`,
		`cat /proc/` + pid + `/task/` + pid + `/cmdline`,
		`grep -r TOKEN /proc/` + pid,
	} {
		a := answering(approvals.Deny)
		res := runScript(t, script, sb.opts(approvals.DefaultAuto, a))
		if len(a.asked()) != 1 || res.End != Refused || strings.Contains(Render(res), "PATH=") {
			t.Errorf("%s: asked %d, ended %v:\n%s", script, len(a.asked()), res.End, Render(res))
		}
	}
}
