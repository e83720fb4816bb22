//go:build !linux && !darwin

package bridge

import "net"

// peerPID returns 0: the peer's process is unknown here, so a session ends
// with its owner.
func peerPID(net.Conn) int { return 0 }

// peerUID reports no user: the peer's user is unknown here, so a request
// without a token is refused.
func peerUID(net.Conn) (int, bool) { return 0, false }

func watchExit(int, func()) (stop func()) { return func() {} }
