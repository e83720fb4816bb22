//go:build linux

// Package denysys starts a program under a seccomp filter that makes chosen
// system calls fail as on a kernel without them, so tests see how tandem
// behaves where Landlock or user namespaces are missing, on a machine that
// has both.
package denysys

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// What a filter takes away.
const (
	// Landlock: landlock_create_ruleset fails with ENOSYS, as on a kernel
	// built without Landlock.
	Landlock = "landlock"
	// UserNamespaces: unshare and clone with CLONE_NEWUSER fail with EPERM,
	// as where unprivileged user namespaces are turned off.
	UserNamespaces = "userns"
)

const envVar = "TANDEM_TEST_DENY_SYSCALLS"

// Command is a command that runs name with args under the filter deny. The
// test binary itself applies the filter: its TestMain calls ExecIfAsked.
func Command(deny, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{name}, args...)...)
	cmd.Env = append(os.Environ(), envVar+"="+deny)
	return cmd
}

// ExecIfAsked, in a process Command started, applies the filter and becomes
// the program; otherwise it returns at once.
func ExecIfAsked() {
	deny := os.Getenv(envVar)
	if deny == "" {
		return
	}
	runtime.LockOSThread() // the filter is this thread's, and exec keeps it
	if err := apply(program(deny)); err != nil {
		fmt.Fprintln(os.Stderr, "denysys:", err)
		os.Exit(126)
	}
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, envVar+"=") })
	path, err := exec.LookPath(os.Args[1])
	if err == nil {
		err = unix.Exec(path, os.Args[1:], env)
	}
	fmt.Fprintln(os.Stderr, "denysys:", err)
	os.Exit(127)
}

func program(deny string) []unix.SockFilter {
	ret := func(k uint32) unix.SockFilter { return unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k} }
	nr := unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}
	allow := ret(unix.SECCOMP_RET_ALLOW)
	switch deny {
	case Landlock:
		return []unix.SockFilter{
			nr,
			{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_LANDLOCK_CREATE_RULESET, Jt: 0, Jf: 1},
			ret(unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)),
			allow,
		}
	case UserNamespaces:
		return []unix.SockFilter{
			nr,
			{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_UNSHARE, Jt: 1, Jf: 0},
			{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_CLONE, Jt: 0, Jf: 3},
			// the flags: the first argument's low 32 bits (little-endian)
			{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 16},
			{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, K: unix.CLONE_NEWUSER, Jt: 0, Jf: 1},
			ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)),
			allow,
		}
	}
	panic("denysys: unknown filter " + deny)
}

func apply(filter []unix.SockFilter) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); errno != 0 {
		return errno
	}
	return nil
}
