package imagemap

import (
	"bytes"
	"strconv"
	"syscall"
)

// madvPopulateRead is MADV_POPULATE_READ (Linux 5.14): map the range's
// pages in, reading them, without faulting on each.
const madvPopulateRead = 22

func init() {
	fd, err := syscall.Open("/proc/self/maps", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	var buf [4096]byte // the image's lines come first
	n, _ := syscall.Read(fd, buf[:])
	syscall.Close(fd)
	for _, r := range imageRanges(buf[:max(n, 0)]) {
		syscall.Syscall(syscall.SYS_MADVISE, r.start, r.end-r.start, madvPopulateRead)
	}
}

type addrRange struct{ start, end uintptr }

// imageRanges reads the leading lines of /proc/self/maps, which name the
// executable first, and returns its mappings that are not writable: code
// and read-only data. Writable data would be copied page by page, so it
// is left to fault as it is written.
func imageRanges(maps []byte) []addrRange {
	var out []addrRange
	image := ""
	for {
		line, rest, ok := bytes.Cut(maps, []byte{'\n'})
		if !ok { // a line the buffer cut short
			return out
		}
		maps = rest
		// start-end perms offset dev inode path
		f := bytes.Fields(line)
		if len(f) < 6 || len(f[1]) < 4 {
			return out
		}
		path := string(bytes.Join(f[5:], []byte{' '}))
		if image == "" {
			image = path
		}
		if path != image {
			return out
		}
		from, to, ok := bytes.Cut(f[0], []byte{'-'})
		start, err1 := strconv.ParseUint(string(from), 16, 64)
		end, err2 := strconv.ParseUint(string(to), 16, 64)
		if !ok || err1 != nil || err2 != nil || end <= start {
			return out
		}
		if f[1][1] != 'w' {
			out = append(out, addrRange{uintptr(start), uintptr(end)})
		}
	}
}
