// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package interp

import (
	"bufio"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// mapfile is bash's mapfile and readarray: `mapfile [-d delim] [-n count]
// [-O origin] [-s count] [-t] [array]`. Lines are read from standard input
// into the array from index origin on (the array is emptied first unless
// -O is given), after skipping -s lines and stopping after -n (0: all).
// -u and the -C callback are not supported.
func (r *Runner) mapfile(name string, args []string) exitStatus {
	dropDelim := false
	delim := byte('\n')
	origin, skip, count := 0, 0, 0
	keep := false
	fp := flagParser{remaining: args}
	for fp.more() {
		flag := fp.flag()
		switch flag {
		case "-t":
			dropDelim = true
			continue
		case "-d", "-n", "-O", "-s":
		default:
			return r.usageError(name, flag)
		}
		if len(fp.remaining) == 0 {
			r.errf("%s: %s: option requires an argument\n", name, flag)
			r.usage(name)
			return exitStatus{code: 2}
		}
		v := fp.value()
		if flag == "-d" {
			// An empty delimiter is bash's NUL.
			delim = 0
			if v != "" {
				delim = v[0]
			}
			continue
		}
		n, err := strconv.Atoi(v)
		switch {
		case flag == "-O" && (err != nil || n < 0):
			r.errf("%s: %s: invalid array origin\n", name, v)
			return exitStatus{code: 1}
		case err != nil || n < 0:
			r.errf("%s: %s: invalid line count\n", name, v)
			return exitStatus{code: 1}
		case flag == "-O":
			origin, keep = n, true
		case flag == "-s":
			skip = n
		default:
			count = n
		}
	}
	arrayName := "MAPFILE"
	switch ops := fp.args(); len(ops) {
	case 0:
	case 1:
		if !syntax.ValidName(ops[0]) {
			r.errf("%s: `%s': not a valid identifier\n", name, ops[0])
			return exitStatus{code: 1}
		}
		arrayName = ops[0]
	default:
		r.errf("%s: too many arguments\n", name)
		return exitStatus{code: 1}
	}

	elems := map[int]string{}
	if prev := r.lookupVar(arrayName); keep && prev.Kind == expand.Indexed {
		for i, v := range prev.List {
			at := i
			if prev.Indexes != nil {
				at = prev.Indexes[i]
			}
			elems[at] = v
		}
	}
	scanner := bufio.NewScanner(r.stdin)
	scanner.Split(mapfileSplit(delim, dropDelim))
	size, read := 0, 0
	for (count == 0 || read < count) && scanner.Scan() {
		if skip > 0 {
			skip--
			continue
		}
		// A bash string holds no NUL: an element ends at the first (a
		// kept NUL delimiter too), as bash's C string does.
		elems[origin+read], _, _ = strings.Cut(scanner.Text(), "\x00")
		read++
		size += len(scanner.Bytes())
		if r.limits != nil && r.limits.Bytes > 0 && size > r.limits.Bytes {
			r.exit.fatal(&LimitError{Limit: BytesLimit, Max: r.limits.Bytes})
			return r.exit
		}
	}
	// As bash: a read error (a directory) ends the input, unreported.
	vr := expand.Variable{Set: true, Kind: expand.Indexed}
	indexes := slices.Sorted(maps.Keys(elems))
	for i, at := range indexes {
		vr.List = append(vr.List, elems[at])
		if at != i {
			vr.Indexes = indexes
		}
	}
	r.setVar(arrayName, vr)
	return exitStatus{}
}
