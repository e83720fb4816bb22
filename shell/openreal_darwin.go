package shell

import (
	"os"

	"golang.org/x/sys/unix"
)

// openReal opens a path the gate judged, as it was judged. The path is real
// (the policy resolved every symlink in it), so a symlink met on the way now
// was put there since, by a step racing the judgement: a directory swapped
// for a link into ~/.ssh between the question and the open. O_NOFOLLOW_ANY
// (macOS 11; Go needs macOS 12) makes the open fail (ELOOP) at a symlink in
// any component rather than follow it.
func openReal(real string, flag int, perm os.FileMode) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(real, flag|unix.O_CLOEXEC|unix.O_NOFOLLOW_ANY, uint32(perm.Perm()))
		if err != unix.EINTR { // the Go runtime's preemption signal can interrupt an open
			break
		}
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: real, Err: err}
	}
	return os.NewFile(uintptr(fd), real), nil
}

// openedPath reports no path: macOS tells a file's path through
// F_GETPATH, which tandem does not call, so only the file's identity is
// checked.
func openedPath(*os.File) (string, bool) { return "", false }

// statReal looks at a real path; macOS has no O_PATH, so a link swapped
// into a directory on the way is followed here (file tests only).
func statReal(real string) (os.FileInfo, error) { return os.Lstat(real) }

// accessReal checks the file at a real path.
func accessReal(real string, mode uint32) error { return unix.Access(real, mode) }
