package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A step's programs must not outlive tandem: killed with SIGKILL, tandem
// can end nothing itself, and its programs (each in a process group of its
// own) would be adopted by init and run on. So the processes that stand
// between tandem and its programs — a spawner's starter, a launcher — watch
// tandem and, once it has exited, kill the groups of the programs they
// started, as an MCP server's watchdog kills the server's group
// (mcpclient). The programs tandem starts itself (the sandbox off, or
// Landlock alone where no namespace can be made) are sent to a watcher,
// tandem started again for that alone. They watch a pidfd of tandem, which is readable once the
// whole process has exited, rather than take a parent-death signal: that
// signal fires when the thread that started them ends, not tandem (Go ends
// a thread whose goroutine exits locked to it, as a Landlock start does),
// and Go's Pdeathsig kills at once a program started with CLONE_PARENT,
// whose parent is not its starter.

// watchParent returns a pidfd of tandem, pid, the caller's parent; -1 when
// tandem has exited already (the caller was adopted before the pidfd held
// tandem, whose pid may since name another process).
func watchParent(pid int) int {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return -1
	}
	if os.Getppid() != pid {
		unix.Close(fd)
		return -1
	}
	return fd
}

// exited reports whether tandem's pidfd showed it exited within wait (for
// ever when negative); a missing pidfd is an exited tandem.
func exited(pidfd int, wait time.Duration) bool {
	if pidfd < 0 {
		return true
	}
	ms := -1
	if wait >= 0 {
		ms = int(wait / time.Millisecond)
	}
	for {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}, ms)
		if !errors.Is(err, unix.EINTR) {
			return n > 0
		}
	}
}

// groups are the process groups of the programs a starter started, each
// held by a pidfd of its leader, so that a number reused by another
// process is never signalled.
type groups struct {
	mu     sync.Mutex
	leader map[int]int // pidfd → pid
}

// add holds the group whose leader is pid, a program just started that
// tandem has not reaped (it learns the pid only from the reply).
func (g *groups) add(pid int) {
	if fd, err := unix.PidfdOpen(pid, 0); err == nil {
		g.hold(fd, pid)
	}
}

// hold holds the group whose leader pid the pidfd holds.
func (g *groups) hold(pidfd, pid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.leader == nil {
		g.leader = map[int]int{}
	}
	g.leader[pidfd] = pid
}

// prune lets go of the groups that have no process left, and returns how
// many are held.
func (g *groups) prune() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	for fd, pid := range g.leader {
		if errors.Is(signalGroup(fd, pid, 0), unix.ESRCH) {
			unix.Close(fd)
			delete(g.leader, fd)
		}
	}
	return len(g.leader)
}

// kill ends every group held.
func (g *groups) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for fd, pid := range g.leader {
		_ = signalGroup(fd, pid, unix.SIGKILL)
	}
}

// outlive returns once no group held has a process left; if tandem (its
// pidfd) exits first, nothing else will end them, so it kills them. It is
// called once tandem closed the caller's socket: exiting, or done with the
// caller, whose programs are then tandem's to end.
func outlive(tandem int, g *groups) {
	for g.prune() > 0 {
		if exited(tandem, time.Second) {
			g.kill()
			return
		}
	}
}

// watcher is the watcher's socket, nil when it could not start. Its
// environment is empty: it holds nothing of tandem's.
var watcher = sync.OnceValue(func() *os.File {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "watcher"), os.NewFile(uintptr(fds[1]), "watcher")
	defer theirs.Close()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{launcherName, "-watch", "3", strconv.Itoa(os.Getpid())}, Env: []string{},
		ExtraFiles: []*os.File{theirs}, SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	if err := cmd.Start(); err != nil {
		ours.Close()
		return nil
	}
	go cmd.Wait()
	return ours
})

// startWatched starts cmd as tandem's own child, with nothing between,
// with the file mode mask umask, and sends a step's program (the leader of
// its group) to the watcher.
func startWatched(cmd *exec.Cmd, umask uint32) error {
	start := cmd.Start
	if umask != processUmask {
		start = func() error { return onOwnThread(umask, cmd.Start) }
	}
	if err := start(); err != nil {
		return err
	}
	watchStep(cmd)
	return nil
}

// watchStep sends the program cmd started, a step's, to the watcher as a
// pidfd: tandem has not waited for it yet, so the pid is still its.
func watchStep(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil || !cmd.SysProcAttr.Setpgid {
		return // not a step's: it leads no group of its own
	}
	conn := watcher()
	if conn == nil {
		return
	}
	pidfd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
	if err != nil {
		return
	}
	defer unix.Close(pidfd)
	_ = unix.Sendmsg(int(conn.Fd()), []byte(strconv.Itoa(cmd.Process.Pid)), unix.UnixRights(pidfd), nil, 0)
}

// watch is the watcher: it holds the groups tandem (the process tandem, its
// parent) sends on conn until tandem closes it, then outlives tandem as long
// as they have a process.
func watch(conn, tandem int) int {
	pidfd := watchParent(tandem)
	var g groups
	body, oob := make([]byte, 32), make([]byte, unix.CmsgSpace(4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(conn, body, oob, 0)
		if err != nil || n == 0 {
			break
		}
		pid, _ := strconv.Atoi(string(body[:n]))
		msgs, _ := unix.ParseSocketControlMessage(oob[:oobn])
		for _, m := range msgs {
			fds, _ := unix.ParseUnixRights(&m)
			for _, fd := range fds {
				g.hold(fd, pid)
			}
		}
		g.prune()
	}
	outlive(pidfd, &g)
	return 0
}

// signalGroup sends sig to the group led by the pidfd's process, even when
// the leader has exited: the group keeps the leader's pid while any member
// lives. Before Linux 6.9 a pidfd reaches only its process: the group is
// then signalled by number while its leader lives, which keeps the number.
func signalGroup(pidfd, pid int, sig unix.Signal) error {
	err := unix.PidfdSendSignal(pidfd, sig, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP)
	if errors.Is(err, unix.EINVAL) {
		if err = unix.PidfdSendSignal(pidfd, 0, nil, 0); err == nil {
			err = unix.Kill(-pid, sig)
		}
	}
	return err
}
