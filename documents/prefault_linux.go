package documents

import (
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// prefaultBytes is the smallest buffer prefault maps ahead: below it the
// system call costs about what the faults it saves do.
const prefaultBytes = 64 << 10

var pageSize = uintptr(os.Getpagesize())

// prefault maps in the pages of b's capacity in one system call, before a
// read fills them. Each first touch of a fresh page is a fault, and on a
// virtual machine a fault can cost 15 µs: a 4 MB file read into a new
// buffer spent longer in its thousand faults than in the copy. Linux
// before 5.14 refuses the advice, and then the pages fault as before.
func prefault(b []byte) {
	if cap(b) < prefaultBytes {
		return
	}
	b = b[:cap(b)]
	p := uintptr(unsafe.Pointer(&b[0]))
	start := (p + pageSize - 1) &^ (pageSize - 1)
	end := (p + uintptr(len(b))) &^ (pageSize - 1)
	if end > start {
		unix.Syscall(unix.SYS_MADVISE, start, end-start, unix.MADV_POPULATE_WRITE)
	}
	runtime.KeepAlive(b)
}
