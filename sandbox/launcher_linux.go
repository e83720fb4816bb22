package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// launcherName is argv[0] of tandem started again as the launcher of one
// program. In a user and mount namespace of its own (and a network
// namespace without net) it makes the guarded places read-only, restricts
// itself with the step's Landlock ruleset and becomes the program. Landlock
// forbids a restricted process to mount, hence this order, and hence a
// launcher: the thread that starts an ordinary process is restricted before
// the fork.
const launcherName = "tandem-sandbox-launcher"

func init() {
	if len(os.Args) > 0 && os.Args[0] == launcherName {
		os.Exit(launch(os.Args[1:], os.Stderr))
	}
}

// launch is the launcher's work: args are
//
//	-fd N -flags F [-pin DIR | -ro PATH]... -- PATH ARGV0 ARGS...
//
// or "-serve FD", which starts the programs sent on the socket FD (a
// spawner; see serve), or
// "-probe DIR", which checks that a read-only bind mount holds. It
// returns only on failure, with the status a shell gives a program it could
// not run.
func launch(args []string, stderr io.Writer) int {
	fail := func(status int, format string, a ...any) int {
		fmt.Fprintf(stderr, "tandem sandbox: "+format+"\n", a...)
		return status
	}
	if len(args) == 2 && args[0] == "-serve" {
		conn, err := strconv.Atoi(args[1])
		if err != nil {
			return fail(126, "-serve %s: %v", args[1], err)
		}
		unix.CloseOnExec(conn) // none of its programs holds it
		return serve(conn)
	}
	if len(args) == 2 && args[0] == "-probe" {
		if err := readOnly(args[1]); err != nil {
			return fail(1, "%v", err)
		}
		if err := os.WriteFile(args[1]+"/probe", nil, 0o600); !errors.Is(err, syscall.EROFS) {
			return fail(1, "a read-only mount took a write (%v)", err)
		}
		return 0
	}
	fd, flags := -1, uint64(0)
	var pinned, ro []string
	i := 0
	for ; i+1 < len(args) && args[i] != "--"; i += 2 {
		var err error
		switch v := args[i+1]; args[i] {
		case "-fd":
			fd, err = strconv.Atoi(v)
		case "-flags":
			flags, err = strconv.ParseUint(v, 10, 32)
		case "-pin":
			pinned = append(pinned, v)
		case "-ro":
			ro = append(ro, v)
		default:
			err = errors.New("unknown argument " + args[i])
		}
		if err != nil {
			return fail(126, "%s %s: %v", args[i], args[i+1], err)
		}
	}
	if fd < 0 || i+2 >= len(args) || args[i] != "--" {
		return fail(126, "usage: %s -fd N -flags F [-pin DIR | -ro PATH]... -- PATH ARGV0 ARGS...", launcherName)
	}
	if err := guard(pinned, ro, map[string]bool{}); err != nil {
		return fail(126, "%v", err)
	}
	path, argv := args[i+1], args[i+2:]
	return becomeProgram(fd, uint32(flags), path, argv, os.Environ(), func(err error) int {
		if errors.Is(err, syscall.ENOENT) {
			return fail(127, "%s: %v", argv[0], err)
		}
		return fail(126, "%s: %v", argv[0], err)
	})
}

// becomeProgram restricts the launcher with the ruleset and execs the
// program; on failure it returns what fail makes of the error. init runs on
// the main thread, locked to it: the restriction is this thread's, and the
// program this thread becomes keeps it.
func becomeProgram(ruleset int, flags uint32, path string, argv, env []string, fail func(error) int) int {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fail(fmt.Errorf("no_new_privs: %w", err))
	}
	if err := ll.LandlockRestrictSelf(ruleset, flags); err != nil {
		return fail(fmt.Errorf("restrict: %w", err))
	}
	unix.Close(ruleset)
	err := unix.Exec(path, argv, env)
	// A program written a moment ago may still be open for writing in
	// another process (ETXTBSY): wait as tandem does for its own starts.
	for delay := time.Millisecond; errors.Is(err, syscall.ETXTBSY) && delay < 300*time.Millisecond; delay *= 2 {
		time.Sleep(delay)
		err = unix.Exec(path, argv, env)
	}
	return fail(err)
}

// readOnly makes path a read-only mount of itself, with what is beneath.
func readOnly(path string) error {
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	return unix.MountSetattr(-1, path, unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
}

// namespaceAttr is what starts a process in new user and mount namespaces
// (and a new network namespace with newNet) as tandem's own user.
func namespaceAttr(attr *syscall.SysProcAttr, newNet bool) *syscall.SysProcAttr {
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	attr.Cloneflags |= unix.CLONE_NEWUSER | unix.CLONE_NEWNS
	if newNet {
		attr.Cloneflags |= unix.CLONE_NEWNET
	}
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	return attr
}

// probeNamespaces checks, once, that a launcher can hold a read-only mount
// here: user namespaces may be off (a sysctl) or stripped of their
// capabilities (an AppArmor restriction).
func probeNamespaces() error {
	dir, err := os.MkdirTemp("", "tandem-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{launcherName, "-probe", dir}, SysProcAttr: namespaceAttr(nil, false)}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v %s", err, out)
	}
	return nil
}

// launchIn starts cmd through the launcher: guarded read-only, a network
// namespace with newNet, restricted by the ruleset fd.
func launchIn(cmd *exec.Cmd, fd int, flags uint32, g Guarded, newNet bool) error {
	if err := runnable(cmd.Path); err != nil {
		return err
	}
	rs, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return err
	}
	ruleset := os.NewFile(uintptr(rs), "landlock-ruleset")
	defer ruleset.Close()
	args := []string{launcherName, "-fd", strconv.Itoa(3 + len(cmd.ExtraFiles)), "-flags", strconv.FormatUint(uint64(flags), 10)}
	for _, p := range g.Pinned {
		args = append(args, "-pin", p)
	}
	for _, p := range g.ReadOnly {
		args = append(args, "-ro", p)
	}
	args = append(append(args, "--", cmd.Path), cmd.Args...)
	cmd.ExtraFiles = append(cmd.ExtraFiles, ruleset)
	cmd.Path, cmd.Args = "/proc/self/exe", args
	cmd.SysProcAttr = namespaceAttr(cmd.SysProcAttr, newNet)
	return cmd.Start()
}

// runnable refuses, as execve would, a file that is neither a #! script nor
// an ELF program: the caller runs such a file as a shell script, which it
// cannot tell once the launcher has started.
func runnable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return nil // the launcher's exec says why
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	if s := string(head[:n]); len(s) >= 2 && s[:2] == "#!" || s == "\x7fELF" {
		return nil
	}
	return &os.PathError{Op: "fork/exec", Path: path, Err: syscall.ENOEXEC}
}
