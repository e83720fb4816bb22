package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// A spawner is a launcher that stays: started once in its namespaces, it
// starts each program tandem sends it. Starting a launcher per program
// costs milliseconds (a full fork of tandem, for a new user namespace
// cannot share its memory, and the runtime's start); a spawner's start is a
// message and a vfork. It is two processes: a mounter, root of the
// namespaces (tandem's user mapped to 0), which alone may mount, and a
// starter it starts as the user in a user namespace beneath, which starts
// the programs (as the user, with no capability over the mounts). Both are
// tandem's children, and the starter's programs too (CLONE_PARENT): tandem
// waits for them and signals their group as for any process.
type spawner struct {
	newNet  bool
	mu      sync.Mutex
	cmd     *exec.Cmd   // the mounter
	starter *os.Process // the starter
	conn    *os.File    // tandem's end of the starter's socket
	broken  bool        // it failed once: programs take the launcher's way
}

// request is what a spawner is sent; the descriptors go beside it: the
// ruleset, then standard input, output and error where present.
type request struct {
	Path             string
	Args, Env        []string
	Dir              string
	Flags            uint32
	Pinned, ReadOnly []string
	Stdio            [3]bool // which of 0, 1 and 2 are sent (else /dev/null)
}

// mounts is what a starter asks its mounter to guard before a program
// starts.
type mounts struct{ Pinned, ReadOnly []string }

// reply is a spawner's answer: the program's pid, or why it did not start
// (Errno when the system said; Child when a child was made and failed,
// which tandem then reaps).
type reply struct {
	Pid      int
	Errno    int
	Op, Path string // of the failure, when the system said
	Err      string
	Child    bool
}

// spawnable reports whether a spawner can start cmd: its standard streams
// are files (or none), and it asks for no process attributes but its own
// group.
func spawnable(cmd *exec.Cmd) bool {
	for _, f := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if _, ok := f.(*os.File); f != nil && !ok {
			return false
		}
	}
	return len(cmd.ExtraFiles) == 0 && cmd.Process == nil &&
		(cmd.SysProcAttr == nil || reflect.DeepEqual(*cmd.SysProcAttr, syscall.SysProcAttr{Setpgid: true}))
}

// start has the spawner start cmd's program, made held to the ruleset in
// a namespace where g is guarded. On success cmd's Process is the program,
// to be waited for as if cmd had started it. ok is false when the spawner
// cannot serve (it could not start, or broke): the caller takes another way.
func (z *spawner) start(cmd *exec.Cmd, ruleset int, flags uint32, g Guarded) (ok bool, err error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.broken {
		return false, nil
	}
	if z.cmd == nil {
		if err := z.launch(); err != nil {
			z.broken = true
			return false, nil
		}
	}
	req := request{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir, Flags: flags,
		Pinned: g.Pinned, ReadOnly: g.ReadOnly}
	if req.Env == nil {
		req.Env = os.Environ()
	}
	if req.Dir == "" {
		if req.Dir, err = os.Getwd(); err != nil {
			return true, err
		}
	}
	fds := []int{ruleset}
	for i, f := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if f, ok := f.(*os.File); ok && f != nil {
			req.Stdio[i] = true
			fds = append(fds, int(f.Fd()))
		}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return true, err
	}
	var rep reply
	buf := make([]byte, 4096)
	n := 0
	if err = unix.Sendmsg(int(z.conn.Fd()), body, unix.UnixRights(fds...), nil, 0); err == nil {
		n, err = z.conn.Read(buf)
	}
	if err == nil {
		err = json.Unmarshal(buf[:n], &rep)
	}
	if err != nil {
		z.broken = true
		z.stop()
		return false, nil
	}
	if rep.Pid > 0 {
		// The program is tandem's child (CLONE_PARENT): FindProcess holds
		// it by a pidfd, and only tandem can reap it, so the pid is its own.
		cmd.Process, err = os.FindProcess(rep.Pid)
		return true, err
	}
	if rep.Child {
		reapFailedSpawn(z.starter.Pid)
	}
	return true, rep.err(cmd.Path)
}

func (z *spawner) launch() error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "spawner"), os.NewFile(uintptr(fds[1]), "spawner")
	defer theirs.Close()
	// When tandem exits, the socket's end ends the starter, and the
	// starter's end the mounter.
	attr := namespaceAttr(&syscall.SysProcAttr{Setpgid: true}, z.newNet)
	ids := tandemsUser()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{launcherName, "-serve", "3", strconv.Itoa(ids.uid), strconv.Itoa(ids.gid)},
		ExtraFiles: []*os.File{theirs}, SysProcAttr: attr}
	if err := cmd.Start(); err != nil {
		ours.Close()
		return err
	}
	// The starter says its pid first: it is tandem's child, to reap.
	var hello reply
	buf := make([]byte, 256)
	n, err := ours.Read(buf)
	if err == nil {
		err = json.Unmarshal(buf[:n], &hello)
	}
	var starter *os.Process
	if err == nil {
		if hello.Pid <= 0 {
			err = errors.New("sandbox: the spawner's starter did not start: " + hello.Err)
		} else if starter, err = os.FindProcess(hello.Pid); err == nil {
			go starter.Wait()
		}
	}
	if err != nil {
		ours.Close()
		go cmd.Wait()
		return err
	}
	z.cmd, z.starter, z.conn = cmd, starter, ours
	return nil
}

// stop ends the spawner: closing its socket makes the starter exit, and
// then the mounter.
func (z *spawner) stop() {
	if z.cmd == nil {
		return
	}
	z.conn.Close()
	cmd := z.cmd
	go cmd.Wait()
	z.cmd, z.starter, z.conn = nil, nil, nil
}

func (z *spawner) close() {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.stop()
}

// reapFailedSpawn reaps the child a spawner made for a program that failed
// to exec: it is tandem's (CLONE_PARENT) but no exec.Cmd waits for it. It
// is the zombie among tandem's children that is a copy of the spawner (its
// command name) and exited with the status Go's failed exec gives, 253.
func reapFailedSpawn(spawner int) {
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", spawner))
	if err != nil {
		return
	}
	// The child said why it failed and then exits: wait for its zombie.
	for range 1000 {
		if reapZombieCopy(strings.TrimSpace(string(comm))) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// reapZombieCopy reaps a zombie child of tandem's named comm that exited
// with 253, and reports whether it found one.
func reapZombieCopy(comm string) bool {
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				continue
			}
			// pid (comm) S … exit_code (the last field)
			s := string(stat)
			open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
			fields := strings.Fields(s[close+1:])
			if open < 0 || close < open || len(fields) < 2 || s[open+1:close] != comm ||
				fields[0] != "Z" || fields[len(fields)-1] != strconv.Itoa(253<<8) {
				continue
			}
			var ws syscall.WaitStatus
			if got, _ := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil); got == pid {
				return true
			}
		}
	}
	return false
}

// serve is a spawner's mounter: it starts the starter as ids, with
// tandem's socket conn (the starter says its pid there first), and mounts
// what the starter asks until the starter ends.
func serve(conn int, ids user) int {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return failHello(conn, err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "mounter"), os.NewFile(uintptr(fds[1]), "mounter")
	tandems := os.NewFile(uintptr(conn), "spawner")
	starter := &exec.Cmd{Path: "/proc/self/exe", Args: []string{launcherName, "-start", "3", "4"},
		ExtraFiles: []*os.File{tandems, theirs}, SysProcAttr: ids.attr(&syscall.SysProcAttr{Cloneflags: unix.CLONE_PARENT})}
	if err := starter.Start(); err != nil {
		return failHello(conn, err)
	}
	// The starter now holds both ends it needs; it is tandem's child, not
	// this one's.
	starter.Process.Release()
	tandems.Close()
	theirs.Close()
	mounted := map[string]bool{} // place → read-only (else pinned)
	buf := make([]byte, 1<<20)
	for {
		n, err := ours.Read(buf)
		if err != nil || n == 0 {
			return 0
		}
		var m mounts
		rep := reply{}
		if err := json.Unmarshal(buf[:n], &m); err != nil {
			rep.Err = err.Error()
		} else if err := guard(m.Pinned, m.ReadOnly, mounted); err != nil {
			rep = failure(err)
		}
		b, _ := json.Marshal(rep)
		if _, err := ours.Write(b); err != nil {
			return 0
		}
	}
}

// failHello tells tandem the spawner could not start.
func failHello(conn int, err error) int {
	b, _ := json.Marshal(reply{Err: err.Error()})
	unix.Write(conn, b)
	return 1
}

// start is a spawner's starter: it says its pid on tandem's socket conn,
// then reads programs from it and starts each, first having the mounter
// (on the socket mounter) guard what the program may not change. It
// returns when tandem closes the socket.
func start(conn, mounter int) int {
	b, _ := json.Marshal(reply{Pid: os.Getpid()})
	if _, err := unix.Write(conn, b); err != nil {
		return 1
	}
	guard := func(m mounts) error {
		b, _ := json.Marshal(m)
		if _, err := unix.Write(mounter, b); err != nil {
			return err
		}
		buf := make([]byte, 4096)
		n, err := unix.Read(mounter, buf)
		if err != nil || n <= 0 {
			return fmt.Errorf("the mounter is gone (%v)", err)
		}
		var rep reply
		if err := json.Unmarshal(buf[:n], &rep); err != nil {
			return err
		}
		return rep.err("mount")
	}
	body := make([]byte, 1<<20)
	oob := make([]byte, unix.CmsgSpace(4*4))
	for {
		n, oobn, _, _, err := unix.Recvmsg(conn, body, oob, 0)
		if err != nil || n == 0 {
			return 0
		}
		rep := spawn(body[:n], oob[:oobn], guard)
		b, _ := json.Marshal(rep)
		if _, err := unix.Write(conn, b); err != nil {
			return 0
		}
	}
}

// failure is the reply saying why err.
func failure(err error) reply {
	rep := reply{Err: err.Error(), Op: "fork/exec"}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		rep.Errno = int(errno)
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		rep.Op, rep.Path = pe.Op, pe.Path
	}
	return rep
}

// err is the error a failure reply stands for, nil for none.
func (rep reply) err(path string) error {
	if rep.Errno > 0 {
		if rep.Path == "" {
			rep.Path = path
		}
		return &os.PathError{Op: rep.Op, Path: rep.Path, Err: syscall.Errno(rep.Errno)}
	}
	if rep.Err != "" {
		return errors.New("sandbox: " + rep.Err)
	}
	return nil
}

// spawn starts one program as the request says, once guard has made the
// mounts it asks.
func spawn(body, oob []byte, guard func(mounts) error) reply {
	fail := failure
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob); err == nil && len(msgs) == 1 {
		fds, _ = unix.ParseUnixRights(&msgs[0])
	}
	// Each received descriptor is closed once: as a file when it became
	// one (its finalizer would close the number again, perhaps reused),
	// else by number.
	files := map[int]*os.File{}
	defer func() {
		for _, fd := range fds {
			if f := files[fd]; f != nil {
				f.Close()
			} else {
				unix.Close(fd)
			}
		}
	}()
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		return fail(err)
	}
	if len(fds) < 1 {
		return fail(errors.New("no ruleset was sent"))
	}
	if err := guard(mounts{req.Pinned, req.ReadOnly}); err != nil {
		return fail(err)
	}
	// What would fail in the child is checked first: a child that fails is
	// tandem's to reap, which it can only find by searching.
	if fi, err := os.Stat(req.Dir); err != nil || !fi.IsDir() {
		return fail(&os.PathError{Op: "chdir", Path: req.Dir, Err: syscall.ENOTDIR})
	}
	if err := runnable(req.Path); err != nil {
		return fail(err)
	}
	if err := unix.Access(req.Path, unix.X_OK); err != nil {
		return fail(err)
	}
	cmd := &exec.Cmd{Path: req.Path, Args: req.Args, Env: req.Env, Dir: req.Dir,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Cloneflags: unix.CLONE_PARENT}}
	streams := fds[1:]
	for i, sent := range req.Stdio {
		if sent && len(streams) > 0 {
			f := os.NewFile(uintptr(streams[0]), "stdio")
			files[streams[0]] = f
			streams = streams[1:]
			switch i {
			case 0:
				cmd.Stdin = f
			case 1:
				cmd.Stdout = f
			case 2:
				cmd.Stderr = f
			}
		}
	}
	type started struct {
		err     error
		started bool // the error is cmd.Start's: a child may have been made
	}
	done := make(chan started, 1)
	go func() {
		// A thread of its own, restricted and then ended, as tandem does.
		runtime.LockOSThread()
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			done <- started{err: err}
			return
		}
		if err := ll.LandlockRestrictSelf(fds[0], req.Flags); err != nil {
			done <- started{err: fmt.Errorf("restrict: %w", err)}
			return
		}
		done <- started{cmd.Start(), true}
	}()
	if r := <-done; r.err != nil {
		rep := fail(r.err)
		rep.Child = r.started
		return rep
	}
	pid := cmd.Process.Pid
	cmd.Process.Release()
	return reply{Pid: pid}
}

// guard makes the spawner's mounts those asked: a place is bound again when
// it is no longer a mount of its own here (tandem's side replaced it, which
// detaches the old mount), and a place no longer asked for is let go.
func guard(pinned, ro []string, mounted map[string]bool) error {
	want := map[string]bool{}
	for _, p := range pinned {
		want[p] = false
	}
	for _, p := range ro {
		want[p] = true
	}
	var gone []string
	for p, ro := range mounted {
		if w, ok := want[p]; !ok || w != ro || !mountRoot(p) {
			gone = append(gone, p)
		}
	}
	// Deepest first: a pinned .git holds its read-only config.
	slices.SortFunc(gone, func(a, b string) int { return len(b) - len(a) })
	for _, p := range gone {
		unix.Unmount(p, unix.MNT_DETACH)
		delete(mounted, p)
	}
	places := append(slices.Clone(pinned), ro...)
	for _, p := range places {
		if _, ok := mounted[p]; ok {
			continue
		}
		var err error
		if want[p] {
			err = readOnly(p)
		} else {
			err = unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, "")
		}
		if err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("guard %s: %w", p, err)
		}
		if err == nil {
			mounted[p] = want[p]
		}
	}
	return nil
}

// mountRoot reports whether path is the root of a mount here.
func mountRoot(path string) bool {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, 0, &st)
	return err == nil && st.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0
}
