package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// restrictThread restricts the calling thread, and what it starts from now
// on, to the Landlock ruleset and, with noUnix, to making no UNIX socket.
// Every start does this on a locked thread before the program runs.
func restrictThread(ruleset int, flags uint32, noUnix bool) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(ruleset, flags); err != nil {
		return fmt.Errorf("restrict: %w", err)
	}
	if noUnix {
		if err := closeUnixSockets(); err != nil {
			return fmt.Errorf("seccomp: %w", err)
		}
	}
	return nil
}

// nativeArch is the audit architecture of tandem's build: a program's
// system calls are judged by their numbers on it.
var nativeArch = map[string]uint32{"amd64": unix.AUDIT_ARCH_X86_64, "arm64": unix.AUDIT_ARCH_AARCH64}[runtime.GOARCH]

// closeUnixSockets puts the calling thread (and what it starts) under a
// seccomp filter that refuses to make a UNIX socket, so that without net a
// program connects to no socket outside its own (an agent's, a daemon's,
// D-Bus). Neither Landlock nor the program's empty network namespace holds
// that for a socket named by a path. socketpair stays allowed: a pair
// connects the program to itself. io_uring is refused too, as a kernel
// without it would refuse it, because it can make sockets around the
// filter. A system call of another architecture ends the program, because
// a 32-bit program's socketcall would go around the filter. The thread
// must have no_new_privs.
func closeUnixSockets() error {
	const (
		ldAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge   = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret   = unix.BPF_RET | unix.BPF_K
		// Offsets in struct seccomp_data: nr, arch, and the low word of
		// args[0] (both architectures are little-endian).
		nr, arch, arg0 = 0, 4, 16
		// x32 system calls carry this bit on amd64.
		x32Bit = 0x40000000
	)
	refuse := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))
	filter := []unix.SockFilter{
		{Code: ldAbs, K: arch},
		{Code: jeq, Jt: 1, K: nativeArch},
		{Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS},
		{Code: ldAbs, K: nr},
		{Code: jge, Jt: 5, K: x32Bit},
		{Code: jeq, Jt: 6, K: unix.SYS_IO_URING_SETUP},
		{Code: jeq, Jf: 2, K: unix.SYS_SOCKET},
		{Code: ldAbs, K: arg0},
		{Code: jeq, Jt: 2, K: unix.AF_UNIX},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		{Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS},
		{Code: ret, K: refuse},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0)
}
