package sandbox

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// processUmask is tandem's file mode mask, read once at start, before any
// goroutine could create a file between the two calls. It never changes:
// a script's own mask is set on the thread that starts its program.
var processUmask = func() uint32 {
	m := unix.Umask(0)
	unix.Umask(m)
	return uint32(m)
}()

// onOwnThread runs start on a fresh OS thread, locked and never unlocked,
// so that what start or umask gives the thread ends with it and no other
// code of tandem runs with it; a program it starts inherits both. The
// thread's file mode mask is umask: the mask is shared by the threads that
// share a filesystem context, so the thread first leaves tandem's
// (unshare CLONE_FS) and tandem's own mask never changes.
func onOwnThread(umask uint32, start func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if umask != processUmask {
			if err := unix.Unshare(unix.CLONE_FS); err != nil {
				done <- err
				return
			}
			unix.Umask(int(umask))
		}
		done <- start()
	}()
	return <-done
}
