// Copyright (c) 2017, Andrey Nering <andrey.nering@gmail.com>
// See LICENSE for licensing information

//go:build !unix

package interp

import (
	"context"
	"fmt"
	"io/fs"
	"os"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

func mkfifo(path string, mode uint32) error {
	return fmt.Errorf("unsupported")
}

// openFifo is never reached: no named pipe is made here.
func openFifo(path string, flags int, _ fs.FileInfo) (*os.File, error) {
	return os.OpenFile(path, flags, 0)
}

// endFifoWrites reports false: there are no named pipes here.
func endFifoWrites(path string, made fs.FileInfo) bool { return false }

// defaultAccess attempts to emulate access(2) on Windows.
// Windows seems to have a different system of permissions than Unix,
// so for now just rely on what [io/fs.FileInfo] gives us
// via the stat handler.
func defaultAccess(ctx context.Context, path string, mode AccessMode) error {
	info, err := HandlerCtx(ctx).runner.statHandler(ctx, path, false)
	if err != nil {
		return err
	}
	m := info.Mode()
	if mode&AccessRead != 0 && m&0o400 == 0 {
		return fmt.Errorf("file is not readable")
	}
	if mode&AccessWrite != 0 && m&0o200 == 0 {
		return fmt.Errorf("file is not writable")
	}
	if mode&AccessExec != 0 && m&0o100 == 0 {
		return fmt.Errorf("file is not executable")
	}
	return nil
}

// unTestOwnOrGrp panics. Under Unix, it implements the -O and -G unary tests,
// but under Windows, it's unclear how to implement those tests, since Windows
// doesn't have the concept of a file owner, just ACLs, and it's unclear how
// to map the one to the other.
func (r *Runner) unTestOwnOrGrp(ctx context.Context, op syntax.UnTestOperator, x string) bool {
	r.errf("unsupported unary test op: %v\n", op)
	return false
}

// waitStatus is a no-op on plan9 and windows.
type waitStatus struct{}

// isENOEXEC is a no-op on plan9 and windows.
func isENOEXEC(err error) bool { return false }

// isETXTBSY is a no-op on plan9 and windows.
func isETXTBSY(err error) bool { return false }

func (waitStatus) Signaled() bool { return false }
func (waitStatus) Signal() int    { return 0 }

// signalName is the name of signal n; trap knows no signals here.
func signalName(n int) string { return "" }

// signalDescription names a signal by its number here.
func signalDescription(n int) string { return fmt.Sprintf("Signal %d", n) }

// signalNumber is the number of the named signal; trap knows no signals here.
func signalNumber(name string) int { return 0 }

// processUmask is the usual mask where the system has none.
var processUmask uint32 = 0o022

// UlimitChanges reports whether `ulimit ARGS` would change a limit; there
// are none to change here.
func UlimitChanges(args []string) bool { return false }

// ulimit has no limits to report here.
func (r *Runner) ulimit(args []string) exitStatus {
	r.errf("ulimit: not supported on this system\n")
	return exitStatus{code: 2}
}

// inputReady reports stdin as ready: there is no portable way to poll it.
func inputReady(stdin stdinFile) bool { return true }
