package shell

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// runMarker is the variable every process of a run inherits, so a process
// that left the run's process groups (setsid, a daemon) is still found and
// killed with its run.
const runMarker = "TANDEM_SHELL_RUN"

// errKilled refuses to start a process in a run that is being killed.
var errKilled = errors.New("the script was stopped")

// waited holds the pids an exec.Cmd still waits for; the reaper never takes
// them (their Wait would lose the status).
var waited = struct {
	sync.Mutex
	pids map[int]bool
}{pids: map[int]bool{}}

// procs is the set of processes one run started: each in its own process
// group, all carrying the run's marker.
type procs struct {
	marker string // KEY=VALUE
	since  uint64 // startClock when the run began: no process older carries the marker

	mu      sync.Mutex
	groups  map[int]bool // every process group the run started
	killed  bool
	waiting sync.WaitGroup // processes whose exec.Cmd has not returned from Wait
	known   map[int]bool   // the run's processes the sweeper has seen alive
}

func newProcs(id string) *procs {
	becomeSubreaper()
	p := &procs{marker: runMarker + "=" + id, groups: map[int]bool{}, since: startClock(), known: map[int]bool{}}
	active.Lock()
	active.runs[p] = true
	if !active.sweeping {
		active.sweeping = true
		go sweep()
	}
	active.Unlock()
	return p
}

// active holds the runs whose processes may still be running: the sweeper
// reaps the orphans they leave while they go on (a long job would
// otherwise gather zombies until its end).
var active = struct {
	sync.Mutex
	runs     map[*procs]bool
	sweeping bool
}{runs: map[*procs]bool{}}

// sweepEvery is how often the sweeper looks for orphans of running scripts.
const sweepEvery = 2 * time.Second

func sweep() {
	for {
		time.Sleep(sweepEvery)
		active.Lock()
		runs := make([]*procs, 0, len(active.runs))
		for p := range active.runs {
			runs = append(runs, p)
		}
		if len(runs) == 0 {
			active.sweeping = false
			active.Unlock()
			return
		}
		active.Unlock()
		for _, p := range runs {
			p.mu.Lock()
			groups := maps.Clone(p.groups)
			p.mu.Unlock()
			if len(groups) == 0 {
				continue
			}
			// Every process of the run found alive is remembered, so that
			// once it dies (a zombie has no environment left to show the
			// marker) it is still known as the run's.
			found := p.find(groups)
			p.mu.Lock()
			for pid := range found {
				p.known[pid] = true
			}
			known := make(map[int]bool, len(p.known))
			for pid := range p.known {
				known[pid] = true
			}
			p.mu.Unlock()
			reap(known)
			p.mu.Lock()
			for pid := range p.known {
				if !known[pid] {
					delete(p.known, pid) // reaped, or gone
				}
			}
			p.mu.Unlock()
		}
	}
}

// start starts cmd with startCmd in a new process group of the run. It
// refuses once the run is being killed, so nothing starts behind a kill.
func (p *procs) start(cmd *exec.Cmd, startCmd func(*exec.Cmd) error) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.Env = append(cmd.Env, p.marker)
	if err := p.register(cmd, startCmd); err != nil {
		return err
	}
	// Outside the locks every run's starts and reaping share: the process
	// is not waited for (nor its pid reused) before start returns.
	holdProcess(cmd.Process.Pid)
	return nil
}

// register starts cmd as one of the run's processes, unless the run is
// being killed.
func (p *procs) register(cmd *exec.Cmd, startCmd func(*exec.Cmd) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.killed {
		return errKilled
	}
	waited.Lock()
	defer waited.Unlock()
	if err := startCmd(cmd); err != nil {
		return err
	}
	p.groups[cmd.Process.Pid] = true
	waited.pids[cmd.Process.Pid] = true
	p.waiting.Add(1)
	return nil
}

// wait waits for a process that start started.
func (p *procs) wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	waited.Lock()
	delete(waited.pids, cmd.Process.Pid)
	waited.Unlock()
	p.waiting.Done()
	return err
}

// ownsAll reports whether every pid (a process, or a group as -PGID) is
// the run's own: a group it started, or a process in one or carrying its
// marker.
func (p *procs) ownsAll(pids []int) bool {
	p.mu.Lock()
	groups := maps.Clone(p.groups)
	p.mu.Unlock()
	var found map[int]bool
	for _, pid := range pids {
		if pid < 0 {
			if !groups[-pid] {
				return false
			}
			continue
		}
		if groups[pid] {
			continue
		}
		if found == nil {
			found = p.find(groups)
		}
		if _, ok := found[pid]; !ok {
			return false
		}
	}
	return true
}

// signalGroup sends sig to the process group of leader.
func signalGroup(leader int, sig syscall.Signal) { _ = syscall.Kill(-leader, sig) }

// kill stops every process of the run — its process groups, and any
// process that carries its marker or descends from one of them — and reaps
// those that became tandem's children. It returns when none is left, or
// after a few seconds.
func (p *procs) kill() {
	active.Lock()
	delete(active.runs, p)
	active.Unlock()
	p.mu.Lock()
	p.killed = true
	groups := maps.Clone(p.groups)
	// Every process ever found stays a target: once killed, a process that
	// left the groups is known by nothing else (a zombie has no environment).
	seen := make(map[int]bool, len(p.known))
	for pid := range p.known {
		seen[pid] = true
	}
	p.mu.Unlock()
	if len(groups) == 0 {
		return // it never started a process
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		found := p.find(groups)
		alive := 0
		for pid, zombie := range found {
			seen[pid] = true
			if !zombie {
				alive++
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if reap(seen) == 0 && alive == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The group leaders are reaped by their own Wait (a step still running in
	// the background of the interpreter, say): wait for those too.
	all := make(chan struct{})
	go func() { p.waiting.Wait(); close(all) }()
	select {
	case <-all:
	case <-time.After(time.Until(deadline) + time.Second):
	}
}

type procInfo struct {
	ppid, pgrp int
	zombie     bool
	start      uint64 // when it started, in the unit of startClock
}

// find looks through the process table for the run's processes: members of
// its groups, carriers of its marker, and their descendants. Each value
// says whether the process is a zombie.
func (p *procs) find(groups map[int]bool) map[int]bool {
	infos := processTable()
	self := os.Getpid()
	out := map[int]bool{}
	for pid, in := range infos {
		if pid == self {
			continue
		}
		if groups[in.pgrp] || (!in.zombie && in.start >= p.since && hasMarker(pid, p.marker)) {
			out[pid] = in.zombie
		}
	}
	// Descendants of what was found.
	for changed := true; changed; {
		changed = false
		for pid, in := range infos {
			if _, ok := out[pid]; ok || pid == self {
				continue
			}
			if _, ok := out[in.ppid]; ok {
				out[pid] = in.zombie
				changed = true
			}
		}
	}
	return out
}

// reap collects the exit status of every target that is tandem's own child
// and that no exec.Cmd waits for (orphans tandem adopted as subreaper).
// It returns how many of them are still waiting to be reaped (alive, or
// a zombie of tandem's that Wait4 did not take yet).
func reap(targets map[int]bool) int {
	waited.Lock()
	defer waited.Unlock()
	left := 0
	for pid := range targets {
		if waited.pids[pid] {
			continue
		}
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		switch {
		case got == pid || errors.Is(err, syscall.ECHILD):
			// Reaped now, or not tandem's child (init or another parent reaps it).
			if got != pid {
				if in, ok := procStat(pid); ok && !(in.zombie && in.ppid != os.Getpid()) {
					left++ // alive, not a zombie its own parent reaps
				}
			}
			delete(targets, pid)
		default:
			left++ // still running: WNOHANG found nothing to take
		}
	}
	return left
}

// hasToken reports whether a NUL-separated list (a process's environment)
// holds token as one of its entries.
func hasToken(list []byte, token string) bool {
	for _, kv := range bytes.Split(list, []byte{0}) {
		if string(kv) == token {
			return true
		}
	}
	return false
}
