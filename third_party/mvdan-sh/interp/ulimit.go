// Copyright (c) 2026, tandem's authors
// See LICENSE for licensing information

//go:build unix

package interp

import (
	"fmt"
	"math"
	"strconv"

	"golang.org/x/sys/unix"
)

// rlimit is one resource ulimit reports, as bash lists it.
type rlimit struct {
	flag     byte
	desc     string // bash's description
	unitName string // the unit shown, if any
	resource int    // for getrlimit; -1: a constant (the pipe size)
	unit     uint64 // bytes (or seconds) per unit shown
}

const ulimitUsage = "ulimit: usage: ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]\n"

// ulimitRequest is what `ulimit ARGS` asks: the resources, hard or soft,
// and the value to set, if any.
type ulimitRequest struct {
	limits []rlimit
	hard   bool
	value  string
	set    bool
}

// parseUlimit reads ulimit's arguments as bash does; the error is bash's
// message and status.
func parseUlimit(args []string) (req ulimitRequest, msg string, code uint8) {
	all := false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
		flags := args[0][1:]
		args = args[1:]
		if flags == "-" {
			break
		}
		for _, c := range []byte(flags) {
			switch c {
			case 'H':
				req.hard = true
			case 'S':
				req.hard = false
			case 'a':
				all = true
			default:
				i := -1
				for j, l := range rlimits {
					if l.flag == c {
						i = j
					}
				}
				if i < 0 {
					return req, fmt.Sprintf("ulimit: -%c: invalid option\n", c), 2
				}
				req.limits = append(req.limits, rlimits[i])
			}
		}
	}
	if all {
		req.limits = rlimits
	} else if len(req.limits) == 0 {
		req.limits = nil
		for _, l := range rlimits {
			if l.flag == 'f' {
				req.limits = append(req.limits, l)
			}
		}
	}
	if len(args) > 0 {
		req.value, req.set = args[0], true
	}
	return req, "", 0
}

// current returns a resource's limit, soft or hard.
func (l rlimit) current(hard bool) (uint64, error) {
	if l.resource < 0 {
		return l.unit, nil
	}
	var rl unix.Rlimit
	if err := unix.Getrlimit(l.resource, &rl); err != nil {
		return 0, err
	}
	if hard {
		return uint64(rl.Max), nil
	}
	return uint64(rl.Cur), nil
}

func (l rlimit) show(v uint64) string {
	if l.resource < 0 {
		return "8"
	}
	if v == unix.RLIM_INFINITY {
		return "unlimited"
	}
	return strconv.FormatUint(v/l.unit, 10)
}

// want reads the value to set as bash does: unlimited, hard, soft, or a
// number of the resource's units.
func (l rlimit) want(value string) (uint64, string) {
	switch value {
	case "unlimited":
		return unix.RLIM_INFINITY, ""
	case "hard", "soft":
		v, err := l.current(value == "hard")
		if err != nil {
			return 0, err.Error()
		}
		return v, ""
	}
	n, err := strconv.ParseUint(value, 10, 64)
	if err != nil {
		return 0, fmt.Sprintf("ulimit: %s: invalid number\n", value)
	}
	if n > math.MaxInt64/l.unit {
		return 0, fmt.Sprintf("ulimit: %s: limit out of range\n", value)
	}
	return n * l.unit, ""
}

// UlimitChanges reports whether `ulimit ARGS` would change a limit: the
// limits are the process's, one for every script it runs, so a caller
// refuses that before the builtin fails on it.
func UlimitChanges(args []string) bool {
	req, msg, _ := parseUlimit(args)
	if msg != "" || !req.set {
		return false
	}
	for _, l := range req.limits {
		want, msg := l.want(req.value)
		cur, err := l.current(req.hard)
		if msg == "" && err == nil && want != cur {
			return true
		}
	}
	return false
}

// ulimit is bash's ulimit: it prints limits; setting one to its current
// value succeeds, another fails, as the limits are the process's.
func (r *Runner) ulimit(args []string) (exit exitStatus) {
	req, msg, code := parseUlimit(args)
	if msg != "" {
		r.errf("%s", msg)
		if code == 2 {
			fmt.Fprint(r.stderr, ulimitUsage)
		}
		return exitStatus{code: code}
	}
	for _, l := range req.limits {
		cur, err := l.current(req.hard)
		if err != nil {
			r.errf("ulimit: %s: cannot get limit: %v\n", l.desc, err)
			exit.code = 1
			continue
		}
		if req.set {
			want, msg := l.want(req.value)
			switch {
			case msg != "":
				r.errf("%s", msg)
				exit.code = 1
			case want != cur:
				r.errf("ulimit: %s: cannot modify limit: the limits are this process's, one for every script\n", l.desc)
				exit.code = 1
			}
			continue
		}
		if len(req.limits) == 1 {
			r.outf("%s\n", l.show(cur))
		} else {
			unit := fmt.Sprintf("(-%c) ", l.flag)
			if l.unitName != "" {
				unit = fmt.Sprintf("(%s, -%c) ", l.unitName, l.flag)
			}
			r.outf("%-20s %20s%s\n", l.desc, unit, l.show(cur))
		}
	}
	return exit
}
