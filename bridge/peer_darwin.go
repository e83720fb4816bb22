package bridge

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerPID returns 0: the peer's process is unknown here, so a session ends
// with its owner. Its user is known (peerUID).
func peerPID(net.Conn) int { return 0 }

// peerUID is the user of the process at the other end of c (the kernel's
// LOCAL_PEERCRED, which the peer cannot forge).
func peerUID(c net.Conn) (int, bool) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0, false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, false
	}
	var cred *unix.Xucred
	_ = raw.Control(func(fd uintptr) {
		cred, err = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	})
	if err != nil || cred == nil {
		return 0, false
	}
	return int(cred.Uid), true
}

func watchExit(int, func()) (stop func()) { return func() {} }
