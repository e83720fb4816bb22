package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandemdev/tandem/approvals"
)

// orphanMode names, in a child of the test, the way its program starts.
const orphanMode = "TANDEM_TEST_ORPHAN"

// A step's program dies with tandem whichever way it started — through
// the spawner, through a launcher, by tandem itself restricted by Landlock
// alone (no namespaces), or with the sandbox off: a child of the test
// stands for tandem, starts a sleep in a process group of its own (as the
// shell starts each step), and is killed with SIGKILL; the sleep is then
// gone soon after (the process table is polled; nothing is timed).
func TestProgramsDieWithTandemEitherWay(t *testing.T) {
	if way := os.Getenv(orphanMode); way != "" {
		startOrphan(t, way)
		return
	}
	requireLandlock(t)
	if !Supported().Guards {
		t.Fatalf("no spawner or launcher here: %s", Supported().Limits)
	}
	for i, way := range []string{"spawner", "launcher", "landlock", "unsandboxed"} {
		t.Run(way, func(t *testing.T) {
			arg := fmt.Sprintf("1000.%d%d", os.Getpid(), i)
			child := exec.Command(os.Args[0], "-test.run=^TestProgramsDieWithTandemEitherWay$")
			// Its temporary files go where this test removes them.
			child.Env = append(os.Environ(), orphanMode+"="+way, "TANDEM_TEST_ORPHAN_ARG="+arg, "TMPDIR="+t.TempDir())
			out, err := child.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			child.Stderr = os.Stderr
			if err := child.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				child.Process.Kill()
				child.Wait()
				for _, pid := range sleepers(arg) { // left by a failure
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil || !strings.HasPrefix(line, "started ") {
				t.Fatalf("the child said %q (%v)", line, err)
			}
			eventually(t, "the child's sleep to run", func() bool { return sleeping(arg) })
			child.Process.Kill()
			child.Wait()
			eventually(t, "the sleep to die with its tandem", func() bool { return !sleeping(arg) })
		})
	}
}

// startOrphan is the child: it starts sleep the way named, says so, and
// waits to be killed.
func startOrphan(t *testing.T, way string) {
	if way == "landlock" {
		withoutNamespaces(t)
	}
	w := newWorld(t)
	if way == "unsandboxed" {
		w.sb = nil
	}
	cmd := exec.Command("/bin/sleep", os.Getenv("TANDEM_TEST_ORPHAN_ARG"))
	cmd.Dir, cmd.Env = w.ws, []string{"PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if way != "launcher" {
		f, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout = f
	} else {
		cmd.Stdout = &bytes.Buffer{} // not a file: the spawner cannot take it
	}
	if err := w.sb.Start(cmd, 0, approvals.Of(approvals.Exec), processUmask); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("started %d\n", cmd.Process.Pid)
	cmd.Wait()
}

// sleeping reports whether a sleep with this argument runs.
func sleeping(arg string) bool { return len(sleepers(arg)) > 0 }

// sleepers are the running sleeps with this argument (a zombie has no
// command line).
func sleepers(arg string) []int {
	var pids []int
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		if b, err := os.ReadFile(filepath.Join(d, "cmdline")); err == nil && string(b) == "/bin/sleep\x00"+arg+"\x00" {
			pid, _ := strconv.Atoi(filepath.Base(d))
			pids = append(pids, pid)
		}
	}
	return pids
}

// eventually polls cond until it holds; the deadline only ends a test that
// would otherwise hang.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
