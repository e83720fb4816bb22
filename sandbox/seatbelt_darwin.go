package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"

	"github.com/tandemdev/tandem/approvals"
)

// sandboxExec runs a program under a Seatbelt profile given as text.
const sandboxExec = "/usr/bin/sandbox-exec"

var support = sync.OnceValue(func() Support {
	if _, err := os.Stat(sandboxExec); err != nil {
		return Support{Unavailable: errors.New("this macOS has no " + sandboxExec + ", so what a step's programs do is held only by the gate's questions")}
	}
	return Support{Net: true, Guards: true, Layers: []string{"Seatbelt (" + sandboxExec + ") holds what each program reads and writes, the connections it makes, and git's config and hooks and .tandem"}}
})

// Supported returns what this system can hold.
func Supported() Support { return support() }

// kernelSupport returns what starting a sandbox needs to know.
func kernelSupport() Support { return support() }

// start runs cmd's program under sandbox-exec with the step's profile. The
// program's argv[0] becomes its path: sandbox-exec runs it by that name.
// The guarded places hold for every program not granted protected, one
// judged by its words too (git writes its config only when asked).
func (s *Sandbox) start(cmd *exec.Cmd, grant approvals.Effects, _ bool, umask uint32) error {
	var g Guarded
	if !grant.Has(approvals.Protected) {
		g = GuardedIn(s.places.Roots)
	}
	argv := append([]string{"sandbox-exec", "-p", SeatbeltProfile(s.places, grant, g), cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = sandboxExec, argv
	return startWatched(cmd, umask)
}

// startWatched starts cmd, a step's program under the watchdog, which
// gives it the file mode mask umask.
func startWatched(cmd *exec.Cmd, umask uint32) error {
	if err := watched(cmd, umask); err != nil {
		return err
	}
	return cmd.Start()
}

// watchPipe is a pipe whose write end ([1]) only tandem holds: the kernel
// closes it when tandem exits in any way, SIGKILL included. Each step's
// watcher holds its read end ([0]). Neither is ever closed; held here, no
// finalizer closes them.
var watchPipe = sync.OnceValues(func() ([2]*os.File, error) {
	r, w, err := os.Pipe()
	return [2]*os.File{r, w}, err
})

// watchdog starts a watcher in the program's process group and becomes
// the program ("$@"), as mcpclient's does for an MCP server: the watcher
// kills the group once the pipe's other end is closed (tandem exited), and
// leaves once the program has ($$ is the program, after exec), looking
// every 2 s; the program gets the script's file mode mask (%[2]04o), set
// here since macOS has no per-thread mask. macOS has no parent-death signal. A read at end of file
// returns at once and a timed-out one after 2 s: the time taken tells them
// apart whatever status the bash gives a timeout (macOS ships bash 3.2). It
// is bash's: read -t is not POSIX, and macOS's /bin/sh may be dash.
const watchdog = `{ while kill -0 $$ 2>/dev/null; do t=$SECONDS; read -r -t 2 _ <&%[1]d; [ $((SECONDS - t)) -ge 1 ] || { kill -KILL 0; exit; }; done; } </dev/null >/dev/null 2>&1 &
umask %[2]04o; exec "$@" %[1]d<&-`

// watched has a step's program started under the watchdog. Only a step's,
// which leads its own process group: the watcher kills the whole group.
func watched(cmd *exec.Cmd, umask uint32) error {
	if cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setpgid {
		return nil
	}
	if fi, err := os.Stat(cmd.Path); err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		return nil // Start says why it cannot run, as without the watchdog
	}
	ends, err := watchPipe()
	if err != nil {
		return err
	}
	script := fmt.Sprintf(watchdog, 3+len(cmd.ExtraFiles), umask)
	cmd.ExtraFiles = append(cmd.ExtraFiles, ends[0])
	cmd.Args = append([]string{"bash", "-c", script, "bash", cmd.Path}, cmd.Args[1:]...)
	cmd.Path = "/bin/bash"
	return nil
}
