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
	"unicode/utf8"

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
	made    *view       // the view the mounter last made
	conn    *os.File    // tandem's end of the starter's socket
	broken  bool        // it failed once: programs take the launcher's way
	warming bool        // it is being started in the background (see warm)
	closed  bool        // the sandbox let it go: it starts no more
	// env is the environment the starter holds from the last program it
	// started (nil when none): a program with the same is sent without it.
	env []string
}

// request is what a spawner is sent; the descriptors go beside it: the
// ruleset, then standard input, output and error where present.
type request struct {
	Path    string
	Args    wireStrings
	Env     wireStrings // nil when SameEnv
	SameEnv bool        // the environment is the one of the last program started
	Dir     string
	restriction
	View  *mounts `json:",omitempty"` // nil when Made
	Made  bool    // the view is the one the mounter made last: nothing to mount
	Stdio [3]bool // which of 0, 1 and 2 are sent (else /dev/null)
	Umask uint32  // the program's file mode mask, the script's
}

// wireStrings are sent byte for byte: JSON holds UTF-8 alone, so an
// element that is not (an argument of raw bytes, `printf '\377'`) goes as
// a one-element array of its bytes, which JSON writes in base64.
type wireStrings []string

func (w wireStrings) MarshalJSON() ([]byte, error) {
	if w == nil {
		return []byte("null"), nil
	}
	elems := make([]any, len(w))
	for i, s := range w {
		if utf8.ValidString(s) {
			elems[i] = s
		} else {
			elems[i] = [][]byte{[]byte(s)}
		}
	}
	return json.Marshal(elems)
}

func (w *wireStrings) UnmarshalJSON(b []byte) error {
	var elems []json.RawMessage
	if err := json.Unmarshal(b, &elems); err != nil || elems == nil {
		*w = nil
		return err
	}
	*w = make(wireStrings, len(elems))
	for i, e := range elems {
		if len(e) > 0 && e[0] == '[' {
			var raw [][]byte
			if err := json.Unmarshal(e, &raw); err != nil || len(raw) != 1 {
				return fmt.Errorf("sandbox: bad raw string %s", e)
			}
			(*w)[i] = string(raw[0])
			continue
		}
		if err := json.Unmarshal(e, &(*w)[i]); err != nil {
			return err
		}
	}
	return nil
}

// restriction is what the thread that starts a program is restricted by:
// the ruleset sent (Built names which build it is), and without net no
// UNIX socket of its own making. Programs sent with the same restriction
// are started by one thread, restricted once.
type restriction struct {
	Built  uint64
	Flags  uint32
	NoUnix bool
}

// mounts is a program's view: what its mount namespace holds for it, made
// by the mounter before the program starts.
type mounts struct {
	// Sealed means everything is read-only (content, mode, owner, times)
	// except the Writable places.
	Sealed   bool
	Writable []string
	// Pinned are directories made mount points of themselves: they cannot
	// be renamed or removed (a .git whose objects stay writable).
	Pinned []string
	// ReadOnly are files and trees no write or change of mode, owner or
	// times reaches.
	ReadOnly []string
	// Hidden are secrets and agents' sockets the program may not see: an
	// empty read-only directory, or an empty read-only file, in their place.
	Hidden []string
}

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

// start has the spawner start cmd's program, restricted to the ruleset, in
// a namespace with the view v. On success cmd's Process is the program,
// to be waited for as if cmd had started it. ok is false when the spawner
// cannot serve (it could not start, or broke): the caller takes another way.
func (z *spawner) start(cmd *exec.Cmd, ruleset int, r *ruleset, v *view, umask uint32) (ok bool, err error) {
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
	// A view the mounter made last time, and that is fresh, is made already.
	req := request{Path: cmd.Path, Args: cmd.Args, Dir: cmd.Dir, Made: z.made == v, Umask: umask,
		restriction: restriction{Built: r.built, Flags: r.flags, NoUnix: z.newNet}}
	if !req.Made {
		req.View = &v.mounts
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	// A script's programs mostly share one environment: it goes once.
	if req.SameEnv = z.env != nil && slices.Equal(env, z.env); !req.SameEnv {
		req.Env = env
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
	z.made, z.env = nil, nil
	if rep.Pid > 0 {
		z.made, z.env = v, env
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

// warm starts the spawner in the background when it has not started, so
// that its start (tandem started twice) overlaps the making of the first
// program's ruleset and view.
func (z *spawner) warm() {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.cmd != nil || z.broken || z.warming || z.closed {
		return
	}
	z.warming = true
	go func() {
		z.mu.Lock()
		defer z.mu.Unlock()
		z.warming = false
		if z.cmd == nil && !z.broken && !z.closed && z.launch() != nil {
			z.broken = true
		}
	}()
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
	// Its start is the probe's too (see probeNamespaces): the mounter makes
	// this directory read-only, and the starter, as the user, finds that
	// it cannot write there.
	probe, err := os.MkdirTemp("", "tandem-probe-")
	if err != nil {
		ours.Close()
		return err
	}
	defer os.RemoveAll(probe)
	// Its environment is empty: each program gets its own from the
	// request, and tandem's (keys included) stays in tandem.
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{launcherName, "-serve", "3", strconv.Itoa(ids.uid), strconv.Itoa(ids.gid), probe, strconv.Itoa(os.Getpid())},
		Env: []string{}, ExtraFiles: []*os.File{theirs}, SysProcAttr: attr}
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
	if err == nil && hello.Pid > 0 {
		if starter, err = os.FindProcess(hello.Pid); err == nil {
			go starter.Wait()
		}
	}
	if err == nil && (hello.Pid <= 0 || hello.Err != "") {
		err = errors.New("sandbox: the spawner's starter did not start: " + hello.Err)
	}
	if err != nil {
		ours.Close()
		go cmd.Wait()
		return err
	}
	z.cmd, z.starter, z.conn, z.made, z.env = cmd, starter, ours, nil, nil
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
	z.cmd, z.starter, z.conn, z.made, z.env = nil, nil, nil, nil, nil
}

func (z *spawner) close() {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.closed = true
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

// serve is a spawner's mounter: it makes the directory probe read-only,
// starts the starter as ids, with tandem's socket conn (the starter says
// its pid there first, and whether probe refused it a write), and mounts
// what the starter asks until the starter ends.
func serve(conn int, ids user, probe, tandem string) int {
	if err := readOnly(probe); err != nil {
		return failHello(conn, err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return failHello(conn, err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "mounter"), os.NewFile(uintptr(fds[1]), "mounter")
	tandems := os.NewFile(uintptr(conn), "spawner")
	starter := &exec.Cmd{Path: "/proc/self/exe", Args: []string{launcherName, "-start", "3", "4", probe, tandem}, Env: []string{},
		ExtraFiles: []*os.File{tandems, theirs}, SysProcAttr: ids.attr(&syscall.SysProcAttr{Cloneflags: unix.CLONE_PARENT})}
	if err := starter.Start(); err != nil {
		return failHello(conn, err)
	}
	// The starter now holds both ends it needs; it is tandem's child, not
	// this one's.
	starter.Process.Release()
	tandems.Close()
	theirs.Close()
	mounted := map[string]mountKind{}
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
		} else if err := m.make(mounted); err != nil {
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
// and that the mounter's read-only probe refused it a write, then reads
// programs from it and starts each, first having the mounter (on the
// socket mounter) guard what the program may not change. It returns when
// tandem closes the socket.
func start(conn, mounter int, probe string, tandem int) int {
	hello := reply{Pid: os.Getpid()}
	if err := os.WriteFile(probe+"/probe", nil, 0o600); !errors.Is(err, syscall.EROFS) {
		hello.Err = fmt.Sprintf("a read-only mount took a write (%v)", err)
	}
	b, _ := json.Marshal(hello)
	if _, err := unix.Write(conn, b); err != nil || hello.Err != "" {
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
	// The starter's parent is tandem (CLONE_PARENT).
	st := &starter{conn: conn, guard: guard, body: make([]byte, 1<<20), oob: make([]byte, unix.CmsgSpace(4*4)),
		tandem: watchParent(tandem)}
	for m := st.receive(); m != nil; {
		next := make(chan *message)
		go st.restricted(m, next)
		m = <-next
	}
	outlive(st.tandem, &st.programs)
	return 0
}

// starter is a spawner's starter's state.
type starter struct {
	conn      int
	guard     func(mounts) error
	body, oob []byte
	// env is the environment of the last program started, for the
	// programs sent without theirs; hasEnv once one was sent.
	env    []string
	hasEnv bool
	// tandem is a pidfd of tandem (-1 once it has exited), and programs
	// the groups of the programs started, killed if tandem exits first.
	tandem   int
	programs groups
}

// message is a request as received, with the descriptors sent beside it.
type message struct {
	req request
	fds []int
}

// receive returns the next request; one it cannot read is answered here.
// It returns nil when tandem closed the socket.
func (st *starter) receive() *message {
	for {
		n, oobn, _, _, err := unix.Recvmsg(st.conn, st.body, st.oob, 0)
		if err != nil || n == 0 {
			return nil
		}
		m := &message{}
		if msgs, err := unix.ParseSocketControlMessage(st.oob[:oobn]); err == nil && len(msgs) == 1 {
			m.fds, _ = unix.ParseUnixRights(&msgs[0])
		}
		err = json.Unmarshal(st.body[:n], &m.req)
		if err == nil && len(m.fds) < 1 {
			err = errors.New("no ruleset was sent")
		}
		if err == nil {
			return m
		}
		for _, fd := range m.fds {
			unix.Close(fd)
		}
		if !st.answer(failure(err)) {
			return nil
		}
	}
}

// answer sends rep to tandem, and reports whether it could.
func (st *starter) answer(rep reply) bool {
	b, _ := json.Marshal(rep)
	_, err := unix.Write(st.conn, b)
	return err == nil
}

// restricted starts m's program and those after it on a thread restricted
// once, as m asks, for as long as they ask the same restriction: the first
// that asks another (a ruleset built again) goes on next, to a thread of
// its own; nil when tandem closed the socket. The thread is never
// unlocked, so no other code runs restricted and it ends with the
// goroutine; the threads the runtime starts meanwhile are started by
// another, unrestricted one (a locked thread's state is never cloned). Its
// file mode mask is its own too (see onOwnThread): each program gets the
// one its request names.
func (st *starter) restricted(m *message, next chan<- *message) {
	runtime.LockOSThread()
	want := m.req.restriction
	err := unix.Unshare(unix.CLONE_FS)
	if err == nil {
		err = restrictThread(m.fds[0], want.Flags, want.NoUnix)
	}
	for {
		var rep reply
		if err == nil {
			rep = st.spawn(m)
		} else {
			rep = failure(err)
			for _, fd := range m.fds {
				unix.Close(fd)
			}
		}
		if !st.answer(rep) {
			next <- nil
			return
		}
		// A thread that failed to restrict itself starts nothing more.
		if m = st.receive(); m == nil || m.req.restriction != want || err != nil {
			next <- m
			return
		}
	}
}

// failure returns the reply that reports err.
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

// err returns the error a failure reply stands for, or nil for none.
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

// spawn starts m's program as its request says, once the mounter has
// made the mounts it asks, on the calling thread, restricted already.
func (st *starter) spawn(m *message) reply {
	req, fds := m.req, m.fds
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
	if !req.SameEnv {
		st.env, st.hasEnv = req.Env, true
	} else if !st.hasEnv {
		return failure(errors.New("no environment was sent"))
	}
	if !req.Made {
		if req.View == nil {
			return failure(errors.New("no view was sent"))
		}
		if err := st.guard(*req.View); err != nil {
			return failure(err)
		}
	}
	// What would fail in the child is checked first: a child that fails is
	// tandem's to reap, which it can only find by searching.
	if fi, err := os.Stat(req.Dir); err != nil || !fi.IsDir() {
		return failure(&os.PathError{Op: "chdir", Path: req.Dir, Err: syscall.ENOTDIR})
	}
	if err := runnable(req.Path); err != nil {
		return failure(err)
	}
	if err := unix.Access(req.Path, unix.X_OK); err != nil {
		return failure(err)
	}
	unix.Umask(int(req.Umask)) // this thread's alone
	cmd := &exec.Cmd{Path: req.Path, Args: req.Args, Env: st.env, Dir: req.Dir,
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
	if err := cmd.Start(); err != nil {
		rep := failure(err)
		rep.Child = true // a child may have been made
		return rep
	}
	pid := cmd.Process.Pid
	cmd.Process.Release()
	st.programs.prune()
	st.programs.add(pid)
	return reply{Pid: pid}
}

// mountKind is how a place of a view is mounted.
type mountKind uint8

const (
	pinned mountKind = iota + 1
	readOnlyMount
	hiddenMount
	writableMount
	sealedRoot
)

// make makes the mounts of a view; mounted holds those made before in this
// namespace. A place is mounted again when it is no longer a mount of its
// own here (tandem's side replaced it, which detaches the old mount), and
// a place no longer asked for is unmounted.
func (v mounts) make(mounted map[string]mountKind) error {
	if v.Sealed && mounted["/"] != sealedRoot {
		// Once per namespace: a spawner's views are all sealed or none.
		// /proc stays writable: a program's user namespace has its id maps
		// written there (Landlock grants a program no process's directory).
		if err := errors.Join(unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}),
			unix.MountSetattr(unix.AT_FDCWD, "/proc", 0, &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY})); err != nil {
			return fmt.Errorf("seal /: %w", err)
		}
		mounted["/"] = sealedRoot
	}
	want := map[string]mountKind{}
	var places []string
	for _, group := range []struct {
		kind  mountKind
		paths []string
	}{{writableMount, v.Writable}, {pinned, v.Pinned}, {readOnlyMount, v.ReadOnly}, {hiddenMount, v.Hidden}} {
		for _, p := range group.paths {
			if _, ok := want[p]; !ok {
				places = append(places, p)
			}
			want[p] = group.kind
		}
	}
	var gone []string
	for p, kind := range mounted {
		if kind != sealedRoot && (want[p] != kind || !mountRoot(p)) {
			gone = append(gone, p)
		}
	}
	// Deepest first: a pinned .git holds its read-only config.
	slices.SortFunc(gone, func(a, b string) int { return len(b) - len(a) })
	for _, p := range gone {
		unix.Unmount(p, unix.MNT_DETACH)
		delete(mounted, p)
		// What was mounted beneath went with it.
		for q, kind := range mounted {
			if kind != sealedRoot && strings.HasPrefix(q, p+"/") {
				delete(mounted, q)
			}
		}
	}
	for _, p := range places {
		if _, ok := mounted[p]; ok {
			continue
		}
		var err error
		switch want[p] {
		case writableMount:
			err = writable(p)
		case pinned:
			err = unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, "")
		case readOnlyMount:
			err = readOnly(p)
		case hiddenMount:
			err = hide(p)
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

// writable makes path, in a sealed view, a writable mount of itself again.
func writable(path string) error {
	if err := unix.Mount(path, path, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	return unix.MountSetattr(-1, path, 0, &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY})
}

// hide puts an empty directory or file, read-only and open to no one, in
// the place of path: a read finds nothing there (Permission denied, for a
// file to root too: Landlock grants nothing on it), a connection to a
// socket is refused, and a write or a change of mode, owner or times fails.
// Their source is one tmpfs that is mounted nowhere else.
func hide(path string) error {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return err
	}
	name := "file"
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return nil // its target, if a secret, is hidden where it is
	case unix.S_IFDIR:
		name = "dir"
	}
	src, err := emptyPlaces()
	if err != nil {
		return err
	}
	tree, err := unix.OpenTree(src, name, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return err
	}
	defer unix.Close(tree)
	attr := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOEXEC | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH, attr); err != nil {
		return err
	}
	return unix.MoveMount(tree, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH)
}

// emptyPlaces is a tmpfs of the mounter's, attached nowhere, holding an
// empty file and an empty directory of mode 000 that hide clones.
var emptyPlaces = sync.OnceValues(func() (int, error) {
	fs, err := unix.Fsopen("tmpfs", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return -1, err
	}
	defer unix.Close(fs)
	if err := errors.Join(unix.FsconfigSetString(fs, "size", "64k"), unix.FsconfigCreate(fs)); err != nil {
		return -1, err
	}
	mnt, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	f, err := unix.Openat(mnt, "file", unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		unix.Close(f)
		err = unix.Mkdirat(mnt, "dir", 0)
	}
	if err != nil {
		unix.Close(mnt)
		return -1, err
	}
	return mnt, nil
})

// mountRoot reports whether path is the root of a mount here.
func mountRoot(path string) bool {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, 0, &st)
	return err == nil && st.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0
}
