package documents

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// direntBytes is the buffer getdents fills: ripgrep's walker (through
// libc's readdir) reads 32 KiB at a time too.
const direntBytes = 32 << 10

// Where a getdents record's fields are, read as bytes rather than through a
// *unix.Dirent: the struct is longer than most records, so pointing one at
// the end of the buffer would straddle its allocation.
const (
	direntReclen = int(unsafe.Offsetof(unix.Dirent{}.Reclen))
	direntTypeAt = int(unsafe.Offsetof(unix.Dirent{}.Type))
	direntName   = int(unsafe.Offsetof(unix.Dirent{}.Name))
)

// list reads the directory abs into l, with getdents: the kernel's records
// are parsed in place, where os.File.ReadDir allocates an entry and a name
// per file. An entry whose type the file system does not report is looked
// up with an lstat, as ReadDir does. With st, the directory is also
// stat'ed, through the descriptor it is listed from. The directory stays
// open until close.
func (l *listing) list(abs string, st *unix.Stat_t) error {
	l.reset()
	fd, err := unix.Open(abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	l.fd = fd
	if st != nil {
		if err := unix.Fstat(fd, st); err != nil {
			return err
		}
	}
	if cap(l.buf) < direntBytes {
		l.buf = make([]byte, direntBytes)
	}
	buf := l.buf[:cap(l.buf)]
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		for rec := buf[:n]; len(rec) >= direntName; {
			size := int(binary.NativeEndian.Uint16(rec[direntReclen:]))
			if size < direntName || size > len(rec) {
				break
			}
			name, dtype := rec[direntName:size], rec[direntTypeAt]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			rec = rec[size:]
			if len(name) == 0 || name[0] == '.' && (len(name) == 1 || len(name) == 2 && name[1] == '.') {
				continue
			}
			typ, ok := direntType(dtype)
			if !ok {
				info, err := os.Lstat(abs + "/" + string(name))
				if err != nil {
					continue // gone since the listing, as ReadDir skips it
				}
				typ = info.Mode().Type()
			}
			l.add(name, typ)
		}
	}
}

// direntType is the type bits of a d_type, false when unknown.
func direntType(t uint8) (fs.FileMode, bool) {
	switch t {
	case unix.DT_REG:
		return 0, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}
