package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// watchesInUse counts the inotify watches held by the processes of the
// user running tandem, and reads the per-user limit.
func watchesInUse() (used, limit int, ok bool) {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		return 0, 0, false
	}
	limit, err = strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, 0, false
	}
	me := os.Getuid()
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if owner(p) == me {
			used += inotifyWatches(p)
		}
	}
	return used, limit, true
}

// inotifyWatches counts the watches of the inotify instances process proc
// holds: its fdinfo lists one line per watch.
func inotifyWatches(proc string) int {
	n := 0
	fds, _ := os.ReadDir(filepath.Join(proc, "fd"))
	for _, fd := range fds {
		if to, err := os.Readlink(filepath.Join(proc, "fd", fd.Name())); err != nil || to != "anon_inode:inotify" {
			continue
		}
		info, _ := os.ReadFile(filepath.Join(proc, "fdinfo", fd.Name()))
		n += bytes.Count(info, []byte("\ninotify wd:"))
	}
	return n
}

func owner(proc string) int {
	b, err := os.ReadFile(filepath.Join(proc, "status"))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "Uid:" {
			uid, _ := strconv.Atoi(f[1])
			return uid
		}
	}
	return -1
}
