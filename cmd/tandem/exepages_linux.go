package main

import (
	"bufio"
	"bytes"
	"io"
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
// only the pages it runs. Only mappings whose every page is still the
// file's are released (see [cleanExeRanges]).
func releaseExePages() {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return
	}
	smaps, err := os.Open("/proc/self/smaps")
	if err != nil {
		return
	}
	defer smaps.Close()
	for _, r := range cleanExeRanges(smaps, exe) {
		// The range is the kernel's own mapping of a file: no Go object
		// lives there, so the raw call stands in for unix.Madvise's slice.
		unix.Syscall(unix.SYS_MADVISE, uintptr(r.start), uintptr(r.end-r.start), unix.MADV_DONTNEED)
	}
}

// exeRange is the address range of one mapping.
type exeRange struct{ start, end uint64 }

// cleanExeRanges reads smaps (the format of /proc/self/smaps) for the
// mappings of the file exe that are not writable and hold no page of the
// process's own (`Anonymous: 0 kB`). Read-only is not enough: a
// position-independent build (-buildmode=pie, as distributions package Go
// programs) relocates its pointers into a mapping that is made read-only
// afterwards, and dropping those pages would bring back the file's
// unrelocated bytes — the next call through one of them jumps to nowhere.
func cleanExeRanges(smaps io.Reader, exe string) []exeRange {
	var clean []exeRange
	var cur exeRange
	// candidate: the mapping above is exe's and not writable; unchanged: its
	// Anonymous line said 0. Its last line, VmFlags, settles it.
	candidate, unchanged := false, false
	seen := false // a mapping of exe was met
	lines := bufio.NewScanner(smaps)
	for lines.Scan() {
		fields := bytes.Fields(lines.Bytes())
		if len(fields) == 0 {
			continue
		}
		if key := fields[0]; key[len(key)-1] == ':' {
			// A field of the mapping above: "Anonymous:   12 kB".
			switch string(key) {
			case "Anonymous:":
				unchanged = len(fields) > 1 && string(fields[1]) == "0"
			case "VmFlags:":
				if candidate && unchanged {
					clean = append(clean, cur)
				}
				candidate = false
			}
			continue
		}
		// A mapping: "00400000-00bb8000 r-xp 00000000 fd:00 1234   /path/to/tandem".
		candidate, unchanged = false, false
		if len(fields) < 6 || string(bytes.Join(fields[5:], []byte(" "))) != exe {
			if seen {
				// The executable's mappings are adjacent: the kernel need
				// not write out the rest, the costly part of the read.
				break
			}
			continue
		}
		seen = true
		if bytes.IndexByte(fields[1], 'w') >= 0 {
			continue
		}
		lo, hi, _ := bytes.Cut(fields[0], []byte("-"))
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 == nil && err2 == nil && start < end {
			cur, candidate = exeRange{start, end}, true
		}
	}
	return clean
}
