package bridge

import (
	"errors"
	"net"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// peerCred is the kernel's SO_PEERCRED of c: who connected, which the
// peer cannot forge.
func peerCred(c net.Conn) (*unix.Ucred, bool) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, false
	}
	var cred *unix.Ucred
	_ = raw.Control(func(fd uintptr) {
		cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	})
	return cred, err == nil && cred != nil
}

// peerPID is the process at the other end of c, 0 when unknown.
func peerPID(c net.Conn) int {
	if cred, ok := peerCred(c); ok {
		return int(cred.Pid)
	}
	return 0
}

// peerUID is the user of the process at the other end of c.
func peerUID(c net.Conn) (int, bool) {
	cred, ok := peerCred(c)
	if !ok {
		return 0, false
	}
	return int(cred.Uid), true
}

// watchExit calls gone once process pid has exited, unless stop is called
// first. A pidfd names the process itself, so a reused pid is never taken
// for it.
func watchExit(pid int, gone func()) (stop func()) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			go gone()
		}
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer unix.Close(fd)
		for {
			select {
			case <-done:
				return
			default:
			}
			// A pidfd turns readable when its process exits; a bounded wait
			// lets stop end the watch.
			n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(time.Second/time.Millisecond))
			switch {
			case n > 0:
				gone()
				return
			case err != nil && !errors.Is(err, unix.EINTR):
				return // cannot watch: the session ends with its owner
			}
		}
	}()
	return sync.OnceFunc(func() { close(done) })
}
