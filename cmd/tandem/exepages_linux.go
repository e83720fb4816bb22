package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// releaseExePages unmaps from this process the pages of tandem's own
// executable it has read so far; they stay in the page cache, and a page
// needed again is mapped back from it by a minor fault.
//
// Why: starting tandem runs the initialisers of ~160 packages, whose code
// and tables lie all over the 7.8 MiB text and 8 MiB read-only data, and the
// kernel maps the cached pages in 64 KiB batches around each one touched. A
// one-call command (`tandem tool grep`) would carry those ~11 MiB to its end
// and double its peak memory; released between phases, each phase holds
// only the pages it runs. Only read-only mappings are released: their pages
// are the file's, never changed by the process.
func releaseExePages() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	maps, err := os.Open("/proc/self/maps")
	if err != nil {
		return
	}
	defer maps.Close()
	lines := bufio.NewScanner(maps)
	for lines.Scan() {
		// "00400000-00bb8000 r-xp 00000000 fd:00 1234   /path/to/tandem"
		fields := bytes.Fields(lines.Bytes())
		if len(fields) < 6 || string(bytes.Join(fields[5:], []byte(" "))) != exe || bytes.IndexByte(fields[1], 'w') >= 0 {
			continue
		}
		lo, hi, _ := bytes.Cut(fields[0], []byte("-"))
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		// The range is the kernel's own mapping of a file: no Go object
		// lives there, so the raw call stands in for unix.Madvise's slice.
		unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED)
	}
}
