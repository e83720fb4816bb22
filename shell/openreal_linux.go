package shell

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openReal opens a path the gate judged, as it was judged. The path is real
// (the policy resolved every symlink in it), so a symlink met on the way now
// was put there since, by a step racing the judgement: a directory swapped
// for a link into ~/.ssh between the question and the open. The open fails
// (ELOOP) rather than follow it.
func openReal(real string, flag int, perm os.FileMode) (*os.File, error) {
	how := unix.OpenHow{Flags: uint64(flag | unix.O_CLOEXEC), Resolve: unix.RESOLVE_NO_SYMLINKS}
	if flag&os.O_CREATE != 0 {
		how.Mode = uint64(perm.Perm())
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, real, &how)
	if errors.Is(err, unix.ENOSYS) {
		// A kernel before 5.6 has no openat2.
		return os.OpenFile(real, flag, perm)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: real, Err: err}
	}
	return os.NewFile(uintptr(fd), real), nil
}

// openedPath returns the path the kernel has for f's file now.
func openedPath(f *os.File) (string, bool) {
	raw, err := f.SyscallConn()
	if err != nil {
		return "", false
	}
	var p string
	var rerr error
	if err := raw.Control(func(fd uintptr) { p, rerr = os.Readlink("/proc/self/fd/" + strconv.Itoa(int(fd))) }); err != nil || rerr != nil {
		return "", false // no /proc: the file's identity is checked alone
	}
	return p, true
}

// statReal looks at a real path as openReal opens it: a link met on the
// way is an error (ELOOP), a link as the last name is looked at itself.
func statReal(real string) (os.FileInfo, error) {
	f, err := openReal(real, unix.O_PATH|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}

// accessReal checks the file at a real path, reached as openReal reaches
// it, through its descriptor.
func accessReal(real string, mode uint32) error {
	f, err := openReal(real, unix.O_PATH, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var aerr error
	if err := raw.Control(func(fd uintptr) { aerr = unix.Access("/proc/self/fd/"+strconv.Itoa(int(fd)), mode) }); err != nil {
		return err
	}
	return aerr
}
