package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

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

// launch is the launcher's work. It returns only on failure, with the
// status a shell gives a program it could not run. args are one of:
//
//	-fd N -flags F -uid U -gid G -tandem PID [-extra N] [-nounix BOOL] [-umask OCTAL] [-pin DIR | -ro PATH | -hide PATH | -rw PATH]... -- PATH ARGV0 ARGS...
//	-serve FD UID GID PROBE TANDEM
//	-start FD MOUNTER PROBE TANDEM
//	-watch FD TANDEM
//	-probe DIR UID GID
//	-probe-write PATH UID
//	-exec FD FLAGS NOUNIX -- PATH ARGV0 ARGS...
//
// The first starts one program in its view. -serve and -start are a
// spawner's two processes (see serve and start). -probe checks that a
// read-only bind mount holds for a program run as the user; that program is
// tandem run with -probe-write. -exec restricts itself with the ruleset FD
// (and without UNIX sockets when NOUNIX is true) and becomes the program.
func launch(args []string, stderr io.Writer) int {
	fail := func(status int, format string, a ...any) int {
		fmt.Fprintf(stderr, "tandem sandbox: "+format+"\n", a...)
		return status
	}
	if len(args) == 6 && args[0] == "-serve" {
		conn, errConn := strconv.Atoi(args[1])
		uid, errU := strconv.Atoi(args[2])
		gid, errG := strconv.Atoi(args[3])
		_, errT := strconv.Atoi(args[5])
		if err := errors.Join(errConn, errU, errG, errT); err != nil {
			return fail(126, "-serve: %v", err)
		}
		unix.CloseOnExec(conn) // none of its programs holds it
		return serve(conn, user{uid, gid}, args[4], args[5])
	}
	if len(args) == 5 && args[0] == "-start" {
		conn, errConn := strconv.Atoi(args[1])
		mounter, errM := strconv.Atoi(args[2])
		tandem, errT := strconv.Atoi(args[4])
		if err := errors.Join(errConn, errM, errT); err != nil {
			return fail(126, "-start: %v", err)
		}
		unix.CloseOnExec(conn)
		unix.CloseOnExec(mounter)
		return start(conn, mounter, args[3], tandem)
	}
	if len(args) == 3 && args[0] == "-watch" {
		conn, errConn := strconv.Atoi(args[1])
		tandem, errT := strconv.Atoi(args[2])
		if err := errors.Join(errConn, errT); err != nil {
			return fail(126, "-watch: %v", err)
		}
		unix.CloseOnExec(conn)
		return watch(conn, tandem)
	}
	if len(args) == 4 && args[0] == "-probe" {
		// As the launcher: a read-only mount, then a program as the user
		// whose write it refuses.
		uid, errU := strconv.Atoi(args[2])
		gid, errG := strconv.Atoi(args[3])
		if err := errors.Join(errU, errG, readOnly(args[1])); err != nil {
			return fail(1, "%v", err)
		}
		probe := &exec.Cmd{Path: "/proc/self/exe", Args: []string{launcherName, "-probe-write", args[1] + "/probe", args[2]},
			Stderr: stderr, SysProcAttr: user{uid, gid}.attr(&syscall.SysProcAttr{})}
		if err := probe.Run(); err != nil {
			return fail(1, "a program as the user in the namespaces: %v", err)
		}
		return 0
	}
	if len(args) == 3 && args[0] == "-probe-write" {
		if uid := strconv.Itoa(os.Getuid()); uid != args[2] {
			return fail(1, "the program runs as uid %s, not the user's %s", uid, args[2])
		}
		if err := os.WriteFile(args[1], nil, 0o600); !errors.Is(err, syscall.EROFS) {
			return fail(1, "a read-only mount took a write (%v)", err)
		}
		return 0
	}
	if len(args) >= 7 && args[0] == "-exec" && args[4] == "--" {
		fd, errFd := strconv.Atoi(args[1])
		flags, errFlags := strconv.ParseUint(args[2], 10, 32)
		noUnix, errUnix := strconv.ParseBool(args[3])
		if err := errors.Join(errFd, errFlags, errUnix); err != nil {
			return fail(126, "-exec: %v", err)
		}
		return becomeProgram(fd, uint32(flags), noUnix, args[5], args[6:], programFailed(fail, args[6]))
	}
	fd, flags, extra, noUnix, tandem, umask := -1, uint64(0), 0, false, 0, uint64(processUmask)
	ids := user{uid: -1, gid: -1}
	var view mounts
	i := 0
	for ; i+1 < len(args) && args[i] != "--"; i += 2 {
		var err error
		switch v := args[i+1]; args[i] {
		case "-fd":
			fd, err = strconv.Atoi(v)
		case "-flags":
			flags, err = strconv.ParseUint(v, 10, 32)
		case "-extra":
			extra, err = strconv.Atoi(v)
		case "-nounix":
			noUnix, err = strconv.ParseBool(v)
		case "-tandem":
			tandem, err = strconv.Atoi(v)
		case "-umask":
			umask, err = strconv.ParseUint(v, 8, 32)
		case "-uid":
			ids.uid, err = strconv.Atoi(v)
		case "-gid":
			ids.gid, err = strconv.Atoi(v)
		case "-pin":
			view.Pinned = append(view.Pinned, v)
		case "-ro":
			view.ReadOnly = append(view.ReadOnly, v)
		case "-hide":
			view.Hidden = append(view.Hidden, v)
		case "-rw":
			view.Sealed = true
			view.Writable = append(view.Writable, v)
		default:
			err = errors.New("unknown argument " + args[i])
		}
		if err != nil {
			return fail(126, "%s %s: %v", args[i], args[i+1], err)
		}
	}
	if fd < 0 || ids.uid < 0 || ids.gid < 0 || tandem <= 0 || i+2 >= len(args) || args[i] != "--" {
		return fail(126, "usage: %s -fd N -flags F -uid U -gid G -tandem PID [-extra N] [-nounix BOOL] [-umask OCTAL] [-pin DIR | -ro PATH | -hide PATH | -rw PATH]... -- PATH ARGV0 ARGS...", launcherName)
	}
	// A step's launcher leads the program's process group: once tandem has
	// exited, it ends the group, itself with it (see watchParent).
	if unix.Getpgrp() == os.Getpid() {
		go func(pidfd int) {
			exited(pidfd, -1)
			unix.Kill(0, unix.SIGKILL)
		}(watchParent(tandem))
	}
	if err := view.make(map[string]mountKind{}); err != nil {
		return fail(126, "%v", err)
	}
	// The launcher started in the program's directory, before the mounts:
	// enter it again, as the view now has it.
	if wd, err := os.Getwd(); err == nil {
		if err := os.Chdir(wd); err != nil {
			return fail(126, "%v", err)
		}
	}
	// The launcher is a process of its own: its mask is the program's.
	unix.Umask(int(umask))
	path, argv := args[i+1], args[i+2:]
	return runProgram(fd, uint32(flags), noUnix, ids, extra, path, argv, programFailed(fail, argv[0]))
}

// programFailed says why a program did not start, with the status a shell
// gives.
func programFailed(fail func(int, string, ...any) int, name string) func(error) int {
	return func(err error) int {
		if errors.Is(err, syscall.ENOENT) {
			return fail(127, "%s: %v", name, err)
		}
		return fail(126, "%s: %v", name, err)
	}
}

// runProgram starts the program as the user, in a user namespace beneath
// the launcher's, restricted to the ruleset, and ends as the program ended;
// on failure to start it returns what fail makes of the error. The
// restriction cannot be the launcher's: a restricted process may not write
// the new namespace's id maps. So the launcher starts tandem once more
// ("-exec"), which restricts itself and becomes the program. The program
// stays in the launcher's process group, so tandem's signals to the group
// reach it directly; the launcher only waits (and a program whose launcher
// is killed alone dies with it: Pdeathsig).
func runProgram(ruleset int, flags uint32, noUnix bool, ids user, extra int, path string, argv []string, fail func(error) int) int {
	files := make([]*os.File, extra+1)
	for i := range extra {
		files[i] = os.NewFile(uintptr(3+i), "extra")
	}
	files[extra] = os.NewFile(uintptr(ruleset), "landlock-ruleset")
	args := append([]string{launcherName, "-exec", strconv.Itoa(3 + extra), strconv.FormatUint(uint64(flags), 10), strconv.FormatBool(noUnix), "--", path}, argv...)
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: args, Env: os.Environ(), Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		ExtraFiles: files, SysProcAttr: ids.attr(&syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL})}
	// The group's signals reach the program itself: the launcher lets them
	// pass by, to end as the program ends.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU)
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	cmd.Wait()
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		// End by the same signal, so tandem sees how the program ended.
		signal.Reset(ws.Signal())
		unix.Kill(os.Getpid(), ws.Signal())
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// becomeProgram restricts this process with the ruleset and execs the
// program; on failure it returns what fail makes of the error. init runs on
// the main thread, locked to it: the restriction is this thread's, and the
// program this thread becomes keeps it.
func becomeProgram(ruleset int, flags uint32, noUnix bool, path string, argv []string, fail func(error) int) int {
	if err := restrictThread(ruleset, flags, noUnix); err != nil {
		return fail(err)
	}
	unix.Close(ruleset)
	env := os.Environ()
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

// namespaceAttr returns what starts a launcher or spawner in new user and
// mount namespaces (and a new network namespace with newNet) as root of its
// user namespace: tandem's user mapped to 0, which an ordinary user may do,
// and which gives the right to mount there. Its programs become the user
// again (user.attr).
func namespaceAttr(attr *syscall.SysProcAttr, newNet bool) *syscall.SysProcAttr {
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	attr.Cloneflags |= unix.CLONE_NEWUSER | unix.CLONE_NEWNS
	if newNet {
		attr.Cloneflags |= unix.CLONE_NEWNET
	}
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	return attr
}

// user is tandem's user and group on the host, which a program in the
// namespaces runs as.
type user struct{ uid, gid int }

// tandemsUser is the user tandem runs as.
func tandemsUser() user { return user{os.Getuid(), os.Getgid()} }

// attr starts a process from a launcher or spawner in a user namespace of
// its own, nested in theirs, as the user: their root (the user on the host)
// is mapped to the user's ids. The program thus has the user's ids, as
// outside, and no capability over the mounts, which belong to the
// namespace above: it cannot undo them, whoever runs tandem (Landlock, which
// forbids mounting, holds that too).
func (u user) attr(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	attr.Cloneflags |= unix.CLONE_NEWUSER
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: u.uid, HostID: 0, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: u.gid, HostID: 0, Size: 1}}
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
	ids := tandemsUser()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{launcherName, "-probe", dir, strconv.Itoa(ids.uid), strconv.Itoa(ids.gid)}, SysProcAttr: namespaceAttr(nil, false)}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%v %s", err, out)
	}
	return nil
}

// launchIn starts cmd through the launcher: with the view v, a network
// namespace with newNet, restricted by the ruleset fd.
func launchIn(cmd *exec.Cmd, fd int, flags uint32, v mounts, newNet bool, umask uint32) error {
	if err := runnable(cmd.Path); err != nil {
		return err
	}
	rs, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return err
	}
	ruleset := os.NewFile(uintptr(rs), "landlock-ruleset")
	defer ruleset.Close()
	ids := tandemsUser()
	args := []string{launcherName, "-fd", strconv.Itoa(3 + len(cmd.ExtraFiles)), "-flags", strconv.FormatUint(uint64(flags), 10),
		"-uid", strconv.Itoa(ids.uid), "-gid", strconv.Itoa(ids.gid), "-tandem", strconv.Itoa(os.Getpid()),
		"-extra", strconv.Itoa(len(cmd.ExtraFiles)), "-nounix", strconv.FormatBool(newNet), "-umask", strconv.FormatUint(uint64(umask), 8)}
	for _, p := range v.Pinned {
		args = append(args, "-pin", p)
	}
	for _, p := range v.ReadOnly {
		args = append(args, "-ro", p)
	}
	for _, p := range v.Hidden {
		args = append(args, "-hide", p)
	}
	for _, p := range v.Writable {
		args = append(args, "-rw", p)
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
