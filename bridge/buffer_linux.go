package bridge

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page on the platforms tandem
// runs on.
const hugePage = 2 << 20

// resultBuffer returns a zeroed buffer for a reply of n bytes. A large
// reply is held whole before the client writes it out, so its buffer is
// fresh memory the kernel must fault in: 2,560 faults of 4 KiB pages for
// 10 MiB, about a third of the client's time. Asking for huge pages on
// the buffer's aligned middle makes that a handful of 2 MiB faults. The
// hint is only a hint: where transparent huge pages are off, nothing
// changes.
func resultBuffer(n int) []byte {
	b := make([]byte, n)
	if n < 2*hugePage {
		return b
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(n)) &^ (hugePage - 1)
	if end > start {
		_ = unix.Madvise(b[start-p:end-p], unix.MADV_HUGEPAGE)
	}
	return b
}
