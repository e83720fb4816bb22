//go:build !linux

package documents

import (
	"os"

	"golang.org/x/sys/unix"
)

// list reads the directory abs into l. With st, the directory is also
// stat'ed, through the descriptor it is listed from. The directory stays
// open until close.
func (l *listing) list(abs string, st *unix.Stat_t) error {
	l.reset()
	f, err := os.Open(abs)
	if err != nil {
		return err
	}
	l.file, l.fd = f, int(f.Fd())
	if st != nil {
		if err := unix.Fstat(l.fd, st); err != nil {
			return err
		}
	}
	entries, err := f.ReadDir(-1)
	for _, e := range entries {
		l.add([]byte(e.Name()), e.Type())
	}
	return err
}
