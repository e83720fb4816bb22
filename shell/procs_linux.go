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

// stepTasks is how many tasks (processes and threads) a step's processes
// may make beyond every task of the system when the step starts: a fork
// bomb stops there instead of taking every task the user may have, which
// would leave tandem itself unable to start a thread.
const stepTasks = 4096

// holdProcess bounds a step's process as it starts, and so what it starts in
// turn. It sets RLIMIT_NPROC (the user's tasks) to the system's tasks now
// plus stepTasks, soft and hard, so the program cannot raise it; and it sets
// the OOM killer's score to its highest, so memory running out ends a step's
// process before tandem or the editor. Memory itself is not bounded per
// process: RLIMIT_AS and RLIMIT_DATA break runtimes that reserve address
// space up front (node, Go, the JVM). The process may start a child in the
// moment before this applies; that child keeps the limits it had.
func holdProcess(pid int) {
	_ = os.WriteFile("/proc/"+strconv.Itoa(pid)+"/oom_score_adj", []byte("1000"), 0)
	tasks, ok := systemTasks()
	if !ok {
		return
	}
	var old unix.Rlimit
	if unix.Prlimit(pid, unix.RLIMIT_NPROC, nil, &old) != nil {
		return
	}
	limit := min(tasks+stepTasks, old.Max)
	_ = unix.Prlimit(pid, unix.RLIMIT_NPROC, &unix.Rlimit{Cur: min(old.Cur, limit), Max: limit}, nil)
}

// systemTasks is the number of tasks of the whole system (the fourth field
// of /proc/loadavg, "running/total"); the user's are among them.
func systemTasks() (uint64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 4 {
		return 0, false
	}
	_, total, ok := strings.Cut(f[3], "/")
	n, err := strconv.ParseUint(total, 10, 64)
	return n, ok && err == nil
}
