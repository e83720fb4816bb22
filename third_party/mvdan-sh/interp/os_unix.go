// Copyright (c) 2017, Andrey Nering <andrey.nering@gmail.com>
// See LICENSE for licensing information

//go:build unix

package interp

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/user"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
	"golang.org/x/sys/unix"
)

func mkfifo(path string, mode uint32) error {
	return unix.Mkfifo(path, mode)
}

// openFifo opens the named pipe the interpreter made at path (made is what
// it was then), never a link put at its name nor another file put in its
// place since, through the name or a directory above it.
func openFifo(path string, flags int, made fs.FileInfo) (*os.File, error) {
	f, err := os.OpenFile(path, flags|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !os.SameFile(fi, made) {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: errFifoReplaced}
	}
	return f, nil
}

// endFifoWrites opens the named pipe made at path for writing, without
// waiting, and closes it: its reader, if any, sees its end once the other
// writers closed theirs. It reports whether the pipe had a reader.
func endFifoWrites(path string, made fs.FileInfo) bool {
	f, err := openFifo(path, os.O_WRONLY|unix.O_NONBLOCK, made)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// defaultAccess is similar to checking the permission bits from [io/fs.FileInfo],
// but it also takes into account the current user's role.
func defaultAccess(ctx context.Context, path string, mode AccessMode) error {
	return unix.Access(path, uint32(mode))
}

// unTestOwnOrGrp implements the -O and -G unary tests. If the file does not
// exist, or the current user cannot be retrieved, returns false.
func (r *Runner) unTestOwnOrGrp(ctx context.Context, op syntax.UnTestOperator, x string) bool {
	info, err := r.stat(ctx, x)
	if err != nil {
		return false
	}
	u, err := user.Current()
	if err != nil {
		return false
	}
	if op == syntax.TsUsrOwn {
		uid, _ := strconv.Atoi(u.Uid)
		return uint32(uid) == info.Sys().(*syscall.Stat_t).Uid
	}
	gid, _ := strconv.Atoi(u.Gid)
	return uint32(gid) == info.Sys().(*syscall.Stat_t).Gid
}

type waitStatus = syscall.WaitStatus

// isENOEXEC reports whether the kernel refused to execute a file
// with ENOEXEC, e.g. a script without a shebang line.
func isENOEXEC(err error) bool { return errors.Is(err, syscall.ENOEXEC) }

// isETXTBSY reports whether the kernel refused to execute a file
// with ETXTBSY, i.e. a process holds it open for writing.
func isETXTBSY(err error) bool { return errors.Is(err, syscall.ETXTBSY) }

// signalDescription is a signal as the C library's strsignal describes
// it, which bash prints for a job the signal ended ("Killed", "Hangup",
// "User defined signal 1"): Go's words, capitalised as the C library's.
func signalDescription(n int) string {
	desc := syscall.Signal(n).String()
	return strings.ToUpper(desc[:1]) + desc[1:]
}

// signalName is the name of signal n on this system (SIGINT), or "".
func signalName(n int) string {
	if name := unix.SignalName(syscall.Signal(n)); name != "" || runtime.GOOS != "linux" {
		return name
	}
	// The real-time signals, named as bash and glibc name them (glibc
	// keeps 32 and 33 for itself).
	switch {
	case n == linuxRTMin:
		return "SIGRTMIN"
	case n > linuxRTMin && n <= (linuxRTMin+maxSignal)/2:
		return "SIGRTMIN+" + strconv.Itoa(n-linuxRTMin)
	case n > linuxRTMin && n < maxSignal:
		return "SIGRTMAX-" + strconv.Itoa(maxSignal-n)
	case n == maxSignal:
		return "SIGRTMAX"
	}
	return ""
}

// linuxRTMin is SIGRTMIN as glibc gives it.
const linuxRTMin = 34

// signalNumber is the number of the named signal (SIGINT) on this system,
// or 0.
func signalNumber(name string) int {
	if n := int(unix.SignalNum(name)); n != 0 || runtime.GOOS != "linux" {
		return n
	}
	for n := linuxRTMin; n <= maxSignal; n++ {
		if signalName(n) == name {
			return n
		}
	}
	return 0
}

// processUmask is the file mode mask the process started with, which the
// programs a script starts inherit. Read once, before any goroutine of the
// program could create a file between the two calls.
var processUmask = func() uint32 {
	m := unix.Umask(0)
	unix.Umask(m)
	return uint32(m)
}()

// inputReady tells whether reading stdin would not block, as read -t 0
// asks: data or an end of file is waiting. It polls without touching the
// descriptor's mode, which SetReadDeadline relies on.
func inputReady(stdin stdinFile) bool {
	sc, err := stdin.SyscallConn()
	if err != nil {
		return true // not pollable: a regular file, always ready
	}
	ready := true
	sc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		ready = err != nil || n > 0
	})
	return ready
}
