package interp

import (
	"slices"
	"strings"
)

// hashEntry is a program in bash's hash table: where its name was found in
// $PATH, and how many times the table gave it.
type hashEntry struct {
	name, path string
	hits       int
}

// hashRemember counts a program about to run by its name, as bash's hash
// table does: a name found in $PATH the first time is remembered with one
// hit, and each later run adds one. (The program runs from where $PATH
// finds it now; the table only tells what ran.)
func (r *Runner) hashRemember(name string) {
	if strings.Contains(name, "/") {
		return
	}
	if i := r.hashIndex(name); i >= 0 {
		r.hashed[i].hits++
		return
	}
	if path, err := LookPathDir(r.Dir, r.writeEnv, name); err == nil {
		r.hashed = append(r.hashed, hashEntry{name, path, 1})
	}
}

func (r *Runner) hashIndex(name string) int {
	return slices.IndexFunc(r.hashed, func(e hashEntry) bool { return e.name == name })
}

// hashBuiltin is bash's hash [-lrt] [-p path] [-d] [name ...].
func (r *Runner) hashBuiltin(args []string) exitStatus {
	var exit exitStatus
	fp := flagParser{remaining: args}
	var list, reset, show, del bool
	path := ""
	for fp.more() {
		switch flag := fp.flag(); flag {
		case "-l":
			list = true
		case "-r":
			reset = true
		case "-t":
			show = true
		case "-d":
			del = true
		case "-p":
			if path = fp.value(); path == "" {
				r.errf("hash: -p: option requires an argument\n")
				r.usage("hash")
				return exitStatus{code: 2}
			}
		default:
			return r.usageError("hash", flag)
		}
	}
	names := fp.args()
	if reset {
		r.hashed = nil
	}
	if len(names) == 0 {
		switch {
		case reset:
		case len(r.hashed) == 0:
			r.out("hash: hash table empty\n")
		case list:
			for _, e := range r.hashed {
				r.outf("builtin hash -p %s %s\n", e.path, e.name)
			}
		default:
			r.out("hits\tcommand\n")
			for _, e := range r.hashed {
				r.outf("%4d\t%s\n", e.hits, e.path)
			}
		}
		return exit
	}
	for _, name := range names {
		i := r.hashIndex(name)
		switch {
		case del && i >= 0:
			r.hashed = slices.Delete(r.hashed, i, i+1)
		case path != "" && i >= 0:
			r.hashed[i].path = path
		case path != "":
			r.hashed = append(r.hashed, hashEntry{name, path, 0})
		case show && i >= 0:
			r.outf("%s\n", r.hashed[i].path)
		case !del && strings.Contains(name, "/"):
		default:
			found, err := LookPathDir(r.Dir, r.writeEnv, name)
			if del || err != nil {
				r.errf("hash: %s: not found\n", name)
				exit.code = 1
				continue
			}
			// Found anew: remembered without a hit.
			if i >= 0 {
				r.hashed[i].path = found
			} else {
				r.hashed = append(r.hashed, hashEntry{name, found, 0})
			}
			if show {
				r.outf("%s\n", found)
			}
		}
	}
	return exit
}
