package shell

import (
	"time"

	"golang.org/x/sys/unix"
)

// becomeSubreaper does nothing: macOS has no child subreaper. An orphan of
// a step (its parent killed or gone) becomes launchd's child, and launchd
// reaps it; tandem still finds it by its process group or its marker and
// kills it with its run, but cannot collect its status.
func becomeSubreaper() {}

// startClock is the wall time in microseconds, the unit of a process's
// start time in the kernel's process table; a second early, as the clock
// may step.
func startClock() uint64 {
	return uint64(time.Now().Add(-time.Second).UnixMicro())
}

// sZomb is a zombie's p_stat (SZOMB in <sys/proc.h>).
const sZomb = 5

// processTable is every process of the kernel's table (sysctl kern.proc.all).
func processTable() map[int]procInfo {
	kps, _ := unix.SysctlKinfoProcSlice("kern.proc.all")
	infos := make(map[int]procInfo, len(kps))
	for i := range kps {
		infos[int(kps[i].Proc.P_pid)] = info(&kps[i])
	}
	return infos
}

// procStat looks one process up (sysctl kern.proc.pid).
func procStat(pid int) (procInfo, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || int(kp.Proc.P_pid) != pid {
		return procInfo{}, false
	}
	return info(kp), true
}

func info(kp *unix.KinfoProc) procInfo {
	t := kp.Proc.P_starttime
	return procInfo{ppid: int(kp.Eproc.Ppid), pgrp: int(kp.Eproc.Pgid), zombie: kp.Proc.P_stat == sZomb,
		start: uint64(t.Sec)*1e6 + uint64(t.Usec)}
}

// hasMarker reports whether the environment of pid holds marker. The
// kernel gives it after the arguments (sysctl kern.procargs2), for the
// user's own processes; an argument equal to the marker counts too, and
// only the run's own steps know its value.
func hasMarker(pid int, marker string) bool {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	return err == nil && hasToken(b, marker)
}

// holdProcess does nothing: macOS has no way to set another process's
// limits, and a step's processes keep the user's.
func holdProcess(int) {}
