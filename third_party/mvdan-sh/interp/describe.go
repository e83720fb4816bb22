// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package interp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// How `type` and `command -v`/`-V` describe a name, as bash's describe_command
// does: what is asked for and how each finding is printed.
type describeFlags struct {
	all       bool // -a: every finding, not the first only
	noFuncs   bool // -f: skip functions
	forcePath bool // -P: look the name up in PATH only
	stdPath   bool // command -p: look it up in the default PATH
	absPath   bool // command -V: print a file found as an absolute path

	// how each finding is printed; none of them for `type -p`'s silence on a
	// builtin or a function
	kind     bool // -t: alias, keyword, function, builtin or file
	long     bool // `NAME is …` (type, command -V)
	reusable bool // command -v: the name, or the alias as a command
	pathOnly bool // -p, -P: the file's path only
}

// defaultPath is the PATH `command -p` searches, bash's default.
const defaultPath = "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:."

// describe prints what name is, as bash's describe_command, and reports
// whether it found anything.
func (r *Runner) describe(name string, f describeFlags) bool {
	found := false
	if !f.forcePath && r.opts[optExpandAliases] {
		if als, ok := r.alias[name]; ok {
			switch {
			case f.kind:
				r.out("alias\n")
			case f.long:
				r.outf("%s is aliased to `%s'\n", name, als.value)
			case f.reusable:
				r.outf("alias %s=%s\n", name, quoteAliasValue(als.value))
			}
			if !f.all {
				return true
			}
			found = true
		}
	}
	if !f.forcePath && syntax.IsKeyword(name) {
		switch {
		case f.kind:
			r.out("keyword\n")
		case f.long:
			r.outf("%s is a shell keyword\n", name)
		case f.reusable:
			r.outf("%s\n", name)
		}
		if !f.all {
			return true
		}
		found = true
	}
	if !f.forcePath && !f.noFuncs {
		if body := r.Funcs[name]; body != nil {
			switch {
			case f.kind:
				r.out("function\n")
			case f.long:
				r.outf("%s is a function\n", name)
				r.printFunc(name, body)
			case f.reusable:
				r.outf("%s\n", name)
			}
			if !f.all {
				return true
			}
			found = true
		}
	}
	if !f.forcePath && IsBuiltin(name) {
		switch {
		case f.kind:
			r.out("builtin\n")
		case f.long:
			r.outf("%s is a shell builtin\n", name)
		case f.reusable:
			r.outf("%s\n", name)
		}
		if !f.all {
			return true
		}
		found = true
	}
	for _, file := range r.commandFiles(name, f) {
		switch {
		case f.kind:
			r.out("file\n")
		case f.long:
			r.outf("%s is %s\n", name, file)
		case f.reusable, f.pathOnly:
			r.outf("%s\n", file)
		}
		found = true
	}
	return found
}

// quoteAliasValue single-quotes an alias's value as `alias -p` prints it.
func quoteAliasValue(v string) string {
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}

// commandFiles are the files name runs as a program, in the order bash's
// type lists them: the first only unless f.all. A name with a slash is
// itself, when it is executable; otherwise each PATH directory is tried, as
// written (`_tmp/date`, `./date` for an empty one). Without -a, a file that
// is not executable is the last resort, as bash takes it.
func (r *Runner) commandFiles(name string, f describeFlags) []string {
	if strings.Contains(name, "/") {
		if isExecutable(r.absPath(name)) {
			return []string{name}
		}
		return nil
	}
	path := r.writeEnv.Get("PATH").String()
	if f.stdPath {
		path = defaultPath
	}
	var files []string
	lastResort := ""
	for _, dir := range strings.Split(path, ":") {
		if dir == "" {
			dir = "."
		}
		file := dir + "/" + name
		info, err := os.Stat(r.absPath(file))
		if err != nil || info.IsDir() {
			continue
		}
		if info.Mode()&0o111 == 0 {
			if lastResort == "" {
				lastResort = file
			}
			continue
		}
		if f.absPath && !filepath.IsAbs(file) {
			file = filepath.Join(r.Dir, file)
		}
		files = append(files, file)
		if !f.all {
			return files
		}
	}
	if len(files) == 0 && lastResort != "" && !f.all {
		if f.absPath && !filepath.IsAbs(lastResort) {
			lastResort = filepath.Join(r.Dir, lastResort)
		}
		return []string{lastResort}
	}
	return files
}

// isExecutable reports whether path is a file that is not a directory and
// has an execute bit.
func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}

// typeBuiltin is bash's type: `type [-afptP] name [name ...]`.
func (r *Runner) typeBuiltin(args []string) exitStatus {
	var exit exitStatus
	f := describeFlags{long: true}
	fp := flagParser{remaining: args}
	for fp.more() {
		switch flag := fp.flag(); flag {
		case "-a":
			f.all = true
		case "-f":
			f.noFuncs = true
		case "-p":
			f.pathOnly, f.kind, f.long = true, false, false
		case "-P":
			f.pathOnly, f.forcePath, f.kind, f.long = true, true, false, false
		case "-t":
			f.kind, f.pathOnly, f.long = true, false, false
		default:
			return r.usageError("type", flag)
		}
	}
	for _, name := range fp.args() {
		if !r.describe(name, f) {
			if f.long {
				r.errf("type: %s: not found\n", name)
			}
			exit.code = 1
		}
	}
	return exit
}

// usageError is bash's answer to an option a builtin does not take: the
// option named, the usage line, status 2.
func (r *Runner) usageError(name, flag string) exitStatus {
	r.errf("%s: %s: invalid option\n", name, flag)
	r.usage(name)
	return exitStatus{code: 2}
}

// usage prints a builtin's usage line, as bash does after a wrong call.
func (r *Runner) usage(name string) {
	fmt.Fprintf(r.stderr, "%s: usage: %s\n", name, helpTable[name].synopsis)
}

// noOptions reads the arguments of a builtin that takes no option, as bash
// does: `--` ends the options, a lone `-` is an operand, and any other
// argument starting with `-` is an invalid option (status 2).
func (r *Runner) noOptions(name string, args []string) ([]string, *exitStatus) {
	if len(args) == 0 || len(args[0]) < 2 || args[0][0] != '-' {
		return args, nil
	}
	if args[0] == "--" {
		return args[1:], nil
	}
	exit := r.usageError(name, args[0][:2])
	return nil, &exit
}

// commandBuiltin is bash's command: `command [-pVv] command [arg ...]`.
// With -v or -V it describes each name and succeeds when it found any;
// otherwise it runs the command, skipping functions, looking a program up
// in the default PATH under -p.
func (r *Runner) commandBuiltin(ctx context.Context, pos syntax.Pos, args []string) exitStatus {
	var f describeFlags
	fp := flagParser{remaining: args}
	for fp.more() {
		switch flag := fp.flag(); flag {
		case "-p":
			f.stdPath = true
		case "-v":
			f.reusable, f.long, f.absPath = true, false, false
		case "-V":
			f.long, f.absPath, f.reusable = true, true, false
		default:
			return r.usageError("command", flag)
		}
	}
	args = fp.args()
	if len(args) == 0 {
		return exitStatus{}
	}
	if f.reusable || f.long {
		var exit exitStatus
		exit.code = 1
		for _, name := range args {
			if r.describe(name, f) {
				exit.code = 0
			} else if f.long {
				r.errf("command: %s: not found\n", name)
			}
		}
		return exit
	}
	if IsBuiltin(args[0]) {
		return r.builtin(ctx, pos, args[0], args[1:])
	}
	if f.stdPath && !strings.Contains(args[0], "/") {
		files := r.commandFiles(args[0], f)
		if len(files) == 0 || !isExecutable(r.absPath(files[0])) {
			r.errf("%s: command not found\n", args[0])
			return exitStatus{code: 127}
		}
		args = append([]string{files[0]}, args[1:]...)
	}
	r.exec(ctx, pos, args)
	return r.exit
}

// pathErrorText words the failure to open name as bash does:
// `nodir/f: No such file or directory`.
func pathErrorText(name string, err error) string {
	var pe *os.PathError
	if !errors.As(err, &pe) {
		return err.Error()
	}
	msg := pe.Err.Error()
	return name + ": " + strings.ToUpper(msg[:1]) + msg[1:]
}

// history is bash's history builtin in a shell that runs a script: the
// list is empty, so listing prints nothing. Reading or writing a history
// file (-a, -n, -r, -w) and -p, -s are not supported.
func (r *Runner) history(args []string) exitStatus {
	fp := flagParser{remaining: args}
	for fp.more() && (fp.current != "" || !strings.HasPrefix(fp.remaining[0], "+")) {
		switch flag := fp.flag(); flag {
		case "-c":
		case "-d":
			if len(fp.remaining) > 0 {
				r.errf("history: %s: history position out of range\n", fp.remaining[0])
				return exitStatus{code: 1}
			}
			r.errf("history: -d: option requires an argument\n")
			r.usage("history")
			return exitStatus{code: 2}
		case "-a", "-n", "-r", "-w", "-p", "-s":
			r.errf("history: %s: not supported: this shell keeps no history list or file; write the commands to a file with echo or printf instead\n", flag)
			return exitStatus{code: 2}
		default:
			return r.usageError("history", flag)
		}
	}
	ops := fp.args()
	if len(ops) == 0 {
		return exitStatus{}
	}
	if _, err := strconv.Atoi(ops[0]); err != nil {
		r.errf("history: %s: numeric argument required\n", ops[0])
		return exitStatus{code: 1}
	}
	if len(ops) > 1 {
		// As bash, which drops the rest of the line.
		r.errf("history: too many arguments\n")
		return exitStatus{code: 1, exiting: true, discard: true}
	}
	return exitStatus{}
}
