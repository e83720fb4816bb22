package shell

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

var subreaper sync.Once

// becomeSubreaper makes tandem the parent of every orphan of its steps (not
// init), so that it can reap them: no zombie outlives its run.
func becomeSubreaper() {
	subreaper.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// startClock is the time since boot in clock ticks (USER_HZ, 100 on Linux),
// the unit of a process's start time in /proc/PID/stat; one tick early.
func startClock() uint64 {
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	secs, err := strconv.ParseFloat(f[0], 64)
	if err != nil || secs < 1 {
		return 0
	}
	return uint64(secs*100) - 1
}

// processTable is every process of /proc.
func processTable() map[int]procInfo {
	infos := map[int]procInfo{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if in, ok := procStat(pid); ok {
			infos[pid] = in
		}
	}
	return infos
}

// procStat reads one process's /proc/PID/stat.
func procStat(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, false
	}
	// After the command: state ppid pgrp session tty tpgid flags minflt
	// cminflt majflt cmajflt utime stime cutime cstime priority nice
	// num_threads itrealvalue starttime …
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return procInfo{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgrp, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	return procInfo{ppid: ppid, pgrp: pgrp, zombie: f[0] == "Z" || f[0] == "X", start: start}, true
}

// hasMarker reports whether the environment of pid holds marker.
func hasMarker(pid int, marker string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err == nil && hasToken(b, marker)
}
