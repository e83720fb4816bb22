// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package interp

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// TODO: given the categories below, perhaps this should be more like:
//
//   func IsBuiltin(lang syntax.LangVariant, name string) bool
//
// or perhaps some API that also lets the user iterate through the builtins?
//
// Also, should we move this to the syntax package too?
// It's not a syntactical property strictly speaking,
// but it's also odd to require importing the interp package for it.

// specialBuiltin reports whether bash takes name as a special builtin in
// its POSIX mode: found before functions, never a function's name, and
// keeping the assignments before it.
func specialBuiltin(name string) bool {
	switch name {
	case ":", ".", "source", "break", "continue", "eval", "exec", "exit", "export",
		"readonly", "return", "set", "shift", "trap", "unset", "times":
		return true
	}
	return false
}

// IsBuiltin returns true if the given word is a POSIX Shell
// or Bash builtin.
func IsBuiltin(name string) bool {
	switch name {
	case
		// POSIX Shell regular built-ins, that is, the utilities which the shell
		// must provide as built-ins, from section 1.d obtained in September 2025 from:
		// https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_09_01_01
		"alias",
		"bg",
		"cd",
		"command",
		"false",
		"fc",
		"fg",
		"getopts",
		"hash",
		"jobs",
		"kill",
		"newgrp",
		"pwd",
		"read",
		"true",
		"umask",
		"unalias",
		"wait",

		// POSIX Shell special built-ins, obtained in September 2025 from:
		// https://pubs.opengroup.org/onlinepubs/9699919799/utilities/V3_chap02.html#tag_18_14
		"break",
		":",
		"continue",
		".",
		"eval",
		"exec",
		"exit",
		"export",   // NOTE: our parser treats this as a keyword
		"readonly", // NOTE: our parser treats this as a keyword
		"return",
		"set",
		"shift",
		"times",
		"trap",
		"unset",

		// Bash built-ins which are not present in POSIX, obtained in September 2025 from:
		// https://man.archlinux.org/man/bash.1.en#SHELL_BUILTIN_COMMANDS
		"source",
		"bind",
		"builtin",
		"caller",
		"compgen",
		"complete",
		"compopt",
		"declare", // NOTE: our parser treats this as a keyword
		"typeset", // NOTE: our parser treats this as a keyword
		"dirs",
		"disown",
		"enable",
		"history",
		"help",
		"let", // NOTE: our parser treats this as a keyword
		"local",
		"logout",
		"mapfile",
		"readarray",
		"popd",
		"pushd",
		"shopt",
		"suspend",
		"type",
		"ulimit",

		// POSIX utilities which the shell need not provide as built-ins,
		// so they are separate executables found via PATH, but which we
		// implement as built-ins just like Bash does. Obtained in September
		// 2025 from https://pubs.opengroup.org/onlinepubs/9699919799/utilities/contents.html
		"echo",
		"printf",
		"test",
		"[": // NOTE: an alias for "test", not documented separately
		return true
	}
	return false
}

// TODO: atoi is duplicated in the expand package.

// atoi is like [strconv.ParseInt](s, 10, 64), but it ignores errors and trims whitespace.
func atoi(s string) int64 {
	s = strings.TrimSpace(s)
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

type errBuiltinExitStatus exitStatus

func (e errBuiltinExitStatus) Error() string {
	return fmt.Sprintf("builtin exit status %d", e.code)
}

// Builtin allows [ExecHandlerFunc] implementations to execute any builtin,
// which can be useful for an exec handler to wrap or combine builtin calls.
//
// Note that a non-nil error may be returned in cases where the builtin
// alters the control flow of the runner, even if the builtin did not fail.
// For example, this is the case with `exit 0` or `return`.
func (hc HandlerContext) Builtin(ctx context.Context, args []string) error {
	if hc.kind != handlerKindExec {
		return fmt.Errorf("HandlerContext.Builtin can only be called via an ExecHandlerFunc")
	}
	exit := hc.runner.builtin(ctx, hc.Pos, args[0], args[1:])
	if exit != (exitStatus{}) {
		return errBuiltinExitStatus(exit)
	}
	return nil
}

// writeErrors is a builtin's standard output that keeps the first error a
// write returned, which bash reports once the builtin is done.
type writeErrors struct {
	io.Writer
	err error
}

func (w *writeErrors) Write(p []byte) (int, error) {
	n, err := w.Writer.Write(p)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

// writeErrorText is bash's words for a write that failed, or "" for one
// bash does not report: a closed pipe, which ends bash by SIGPIPE
// silently, and the interpreter's own writers' errors, which are no
// system's.
func writeErrorText(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) || errno == syscall.EPIPE {
		return ""
	}
	msg := errno.Error()
	return strings.ToUpper(msg[:1]) + msg[1:]
}

// execUsage is bash's usage line of exec.
const execUsage = "exec: usage: exec [-cl] [-a name] [command [argument ...]] [redirection ...]\n"

func (r *Runner) builtin(ctx context.Context, pos syntax.Pos, name string, args []string) (exit exitStatus) {
	switch name {
	case "eval", "source", ".", "builtin", "command", "exec", "test", "[":
		// The code these run reports its own writes; test -t looks
		// at the descriptor itself.
	default:
		if r.stdout == nil {
			break
		}
		w := &writeErrors{Writer: r.stdout}
		r.stdout = w
		defer func() {
			if r.stdout == w {
				r.stdout = w.Writer
			}
			if text := writeErrorText(w.err); text != "" {
				// As bash: echo hi > /dev/full fails with status 1.
				r.errf("%s: write error: %s\n", name, text)
				if exit.ok() {
					exit.code = 1
				}
			}
		}()
	}
	return r.builtinRun(ctx, pos, name, args)
}

func (r *Runner) builtinRun(ctx context.Context, pos syntax.Pos, name string, args []string) (exit exitStatus) {
	failf := func(code uint8, format string, args ...any) exitStatus {
		r.errf(format, args...)
		exit.code = code
		return exit
	}
	switch name {
	case ":", "true":
	case "false":
		exit.code = 1
	case "help":
		return r.runHelp(args)
	case "times":
		// js/wasm has no per-process CPU accounting at all, so report zeros
		// in bash's format — shell user/sys, then children user/sys — rather
		// than fail.
		// TODO: report real times on platforms that can, via os/exec's
		// ProcessState or syscall.Getrusage. Not urgent; nothing depends on
		// the values being non-zero.
		r.out("0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n")
	case "exit":
		switch len(args) {
		case 0:
			exit = r.lastExit
		case 1:
			n, err := strconv.Atoi(args[0])
			if err != nil {
				exit = failf(2, "exit: %s: numeric argument required\n", args[0])
				break
			}
			exit.code = uint8(n)
		default:
			// As in bash, the shell ends all the same.
			exit = failf(1, "exit: too many arguments\n")
		}
		exit.exiting = true
	case "set":
		if len(args) == 0 {
			r.listSet()
			break
		}
		if err := Params(args...)(r); err != nil {
			return failf(2, "set: %v\n", err)
		}
		r.updateExpandOpts()
	case "shift":
		if len(args) > 0 {
			if _, err := strconv.Atoi(args[0]); err != nil { // -1 is a count, out of range
				var bad *exitStatus
				if args, bad = r.noOptions(name, args); bad != nil {
					return *bad
				}
			}
		}
		n := 1
		switch len(args) {
		case 0:
		case 1:
			n2, err := strconv.Atoi(args[0])
			if err != nil {
				return failf(1, "shift: %s: numeric argument required\n", args[0])
			}
			n = n2
		default:
			// A special builtin's usage error ends the shell, as in bash.
			r.errf("shift: too many arguments\n")
			exit.code, exit.exiting = 1, true
			return exit
		}
		switch {
		case n < 0:
			return failf(1, "shift: %d: shift count out of range\n", n)
		case n > len(r.Params) && r.opts[optPosix]:
			return failf(1, "shift: %d: shift count out of range\n", n)
		case n > len(r.Params):
			// Nothing shifted, silently, as bash without shopt -s shift_verbose
			// or set -o posix.
			exit.code = 1
			return exit
		}
		r.Params = r.Params[n:]
	case "unset":
		vars := true
		funcs := true
		refs := false // unset -n unsets a nameref, not what it names
	unsetOpts:
		for i, arg := range args {
			switch arg {
			case "-v":
				funcs = false
			case "-f":
				vars = false
			case "-n":
				funcs, refs = false, true
			default:
				args = args[i:]
				break unsetOpts
			}
		}

		for _, arg := range args {
			if vars && !refs && r.lookupVar(arg).Kind == expand.NameRef {
				target, _ := r.refTarget(arg)
				if name, sub, ok := cutElemSubscript(target); ok && !r.unsetElem(name, sub) ||
					!ok && target != "" && !r.delVar(target) {
					exit.code = 1
				}
				continue
			}
			if name, sub, ok := cutElemSubscript(arg); vars && ok {
				if !r.unsetElem(name, sub) {
					exit.code = 1
				}
				if r.exit.exiting { // a bad subscript ends the shell
					return r.exit
				}
			} else if vars && r.lookupVar(arg).IsSet() {
				if !r.delVar(arg) {
					exit.code = 1
				}
			} else if _, ok := r.Funcs[arg]; ok && funcs {
				delete(r.Funcs, arg)
			}
		}
	case "echo":
		xpgEcho, _ := r.bashOptByName("xpg_echo")
		newline, doExpand := true, *xpgEcho
		// As bash: each leading word of n, e and E letters after a dash
		// is options; the first other word starts the text.
		for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' &&
			strings.Trim(args[0][1:], "neE") == "" {
			for _, c := range args[0][1:] {
				switch c {
				case 'n':
					newline = false
				case 'e':
					doExpand = true
				case 'E':
					doExpand = false
				}
			}
			args = args[1:]
		}
		var out strings.Builder
		for i, arg := range args {
			if i > 0 {
				out.WriteString(" ")
			}
			if doExpand {
				s, stop := expandEscapes(arg, escEcho, nil)
				out.WriteString(s)
				if stop { // \c: nothing more, not even the newline
					newline = false
					break
				}
				continue
			}
			out.WriteString(arg)
		}
		if newline {
			out.WriteString("\n")
		}
		r.out(out.String())
	case "printf":
		// printf -v NAME assigns what it would print, as in bash.
		toVar := ""
		usage := func() exitStatus {
			fmt.Fprintf(r.stderr, "printf: usage: printf [-v var] format [arguments]\n")
			exit.code = 2
			return exit
		}
		for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
			opt := args[0]
			args = args[1:]
			if opt == "--" {
				break
			}
			if !strings.HasPrefix(opt, "-v") {
				r.errf("printf: %s: invalid option\n", opt[:2])
				return usage()
			}
			if toVar = opt[2:]; toVar == "" {
				if len(args) == 0 {
					r.errf("printf: -v: option requires an argument\n")
					return usage()
				}
				toVar, args = args[0], args[1:]
			}
			if _, _, elem := cutElemSubscript(toVar); !elem && !syntax.ValidName(toVar) {
				return failf(2, "printf: `%s': not a valid identifier\n", toVar)
			}
		}
		if len(args) == 0 {
			return usage()
		}
		out, status, err := r.printf(args[0], args[1:], toVar == "")
		if errors.As(err, new(*LimitError)) {
			r.exit.fatal(err)
			return r.exit
		}
		if toVar != "" {
			// A variable holds no NUL: bash's value ends at the first.
			out, _, _ = strings.Cut(out, "\x00")
			r.setVarOrElem(toVar, out)
		} else {
			r.out(out)
		}
		exit.code = status
	case "break", "continue":
		if r.loopDepth == 0 {
			return failf(0, "%s: only meaningful in a `for', `while', or `until' loop\n", name)
		}
		enclosing := &r.breakEnclosing
		if name == "continue" {
			enclosing = &r.contnEnclosing
		}
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		n := 1
		if len(args) > 0 {
			var err error
			if n, err = strconv.Atoi(strings.TrimSpace(args[0])); err != nil {
				// As in bash, a count that is not a number ends the shell:
				// going on would run the loop without end.
				r.errf("%s: %s: numeric argument required\n", name, args[0])
				exit.code, exit.exiting = 128, true
				return exit
			}
			if len(args) > 1 {
				r.errf("%s: too many arguments\n", name)
				exit.code, exit.exiting = 1, true
				return exit
			}
			if n <= 0 {
				r.breakEnclosing = r.loopDepth
				return failf(1, "%s: %s: loop count out of range\n", name, args[0])
			}
		}
		*enclosing = min(n, r.loopDepth)
	case "pwd":
		evalSymlinks := r.opts[optPhysical]
		for len(args) > 0 {
			switch args[0] {
			case "-L":
				evalSymlinks = false
			case "-P":
				evalSymlinks = true
			default:
				if !strings.HasPrefix(args[0], "-") {
					args = nil // bash ignores operands
					continue
				}
				return failf(2, "invalid option: %q\n", args[0])
			}
			args = args[1:]
		}
		// The directory the shell is in, not $PWD, which a script may
		// have changed or unset.
		pwd := r.Dir
		if evalSymlinks {
			var err error
			pwd, err = filepath.EvalSymlinks(pwd)
			if err != nil {
				exit.fatal(err) // perhaps overly dramatic?
				return exit
			}
		}
		r.outf("%s\n", pwd)
	case "cd":
		physical := r.opts[optPhysical]
		for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
			flag := args[0]
			args = args[1:]
			if flag == "--" {
				break
			}
			for _, c := range flag[1:] {
				switch c {
				case 'L':
					physical = false
				case 'P':
					physical = true
				case 'e', '@':
				default:
					r.errf("cd: -%c: invalid option\n", c)
					fmt.Fprintf(r.stderr, "cd: usage: cd [-L|[-P [-e]] [-@]] [dir]\n")
					exit.code = 2
					return exit
				}
			}
		}
		var path string
		switch len(args) {
		case 0:
			home := r.lookupVar("HOME")
			if !home.IsSet() {
				return failf(1, "cd: HOME not set\n")
			}
			if path = home.String(); path == "" {
				return exit // bash's cd "" stays where it is
			}
		case 1:
			if path = args[0]; path == "" {
				return exit
			}
		default:
			return failf(1, "cd: too many arguments\n")
		}
		show := false // bash prints where it went for `cd -` and a CDPATH match
		if path == "-" {
			if path = r.envGet("OLDPWD"); path == "" {
				return failf(1, "cd: OLDPWD not set\n")
			}
			show = true
		} else if found, ok := r.cdpath(ctx, path); ok {
			path, show = found, true
		} else if value, ok := r.cdableVar(ctx, path); ok {
			if value == "" {
				return exit // as cd ""
			}
			path, show = value, true
		}
		exit.code = r.changeDir(ctx, "cd", path, physical)
		if show && exit.code == 0 {
			r.outf("%s\n", r.envGet("PWD"))
		}
	case "wait":
		return r.wait(ctx, args)
	case "kill":
		return r.kill(ctx, args)
	case "jobs":
		return r.printJobs(args)
	case "builtin":
		args, bad := r.noOptions(name, args)
		if bad != nil {
			return *bad
		}
		if len(args) < 1 {
			break
		}
		if !IsBuiltin(args[0]) {
			return failf(1, "builtin: %s: not a shell builtin\n", args[0])
		}
		exit = r.builtin(ctx, pos, args[0], args[1:])
	case "type":
		return r.typeBuiltin(args)
	case "hash":
		return r.hashBuiltin(args)
	case "eval":
		args, bad := r.noOptions(name, args)
		if bad != nil {
			return *bad
		}
		text := strings.Join(args, " ")
		file := r.parseAt(text, r.line, r.errName()+": eval")
		if file == nil {
			return exitStatus{code: 2} // as bash's for a syntax error
		}
		ctx, err := r.limits.Nest(ctx)
		if err != nil {
			r.exit.fatal(err)
			return r.exit
		}
		r.stmtsRead(ctx, text, file.Stmts)
		r.endDiscard()
		if r.callbackReturn != "" {
			r.returnTrap(ctx, false)
		}
		exit = r.exit
	case "source", ".":
		args, bad := r.noOptions(name, args)
		if bad != nil {
			return *bad
		}
		if len(args) < 1 {
			r.errf("%s: filename argument required\n", name)
			r.usage(name)
			return exitStatus{code: 2}
		}
		path, err := scriptFromPathDir(r.Dir, r.writeEnv, args[0])
		if err != nil {
			// If the script was not found in PATH or there was any error, pass
			// the source path to the open handler so it has a chance to look
			// at files it manages (eg: virtual filesystem), and also allow
			// it to look for the sourced script in the current directory.
			path = args[0]
		}
		f, err := r.open(context.WithValue(ctx, sourcingKey{}, true), path, os.O_RDONLY, 0, false)
		if errors.Is(err, syscall.EISDIR) {
			return failf(1, "%s: %s: is a directory\n", name, args[0])
		}
		if err != nil {
			return failf(1, "%s\n", pathErrorText(args[0], err))
		}
		defer f.Close()
		code, err := io.ReadAll(f)
		if errors.Is(err, syscall.EISDIR) {
			return failf(1, "%s: %s: is a directory\n", name, args[0])
		}
		if err != nil {
			return failf(1, "%s: %s: %v\n", name, args[0], err)
		}
		// As bash's BASH_SOURCE and its errors: the name as given,
		// unless found in $PATH.
		source := path
		if strings.Contains(args[0], "/") || path == args[0] {
			source = args[0]
		}
		file := r.parseAt(string(code), 1, source)
		if file == nil {
			return exitStatus{code: 2} // as bash's for a syntax error
		}

		// Keep the current versions of some fields we might modify.
		oldParams := r.Params
		oldSourceSetParams := r.sourceSetParams
		oldInSource := r.inSource

		// If we run "source file args...", set said args as parameters.
		// Otherwise, keep the current parameters.
		sourceArgs := len(args[1:]) > 0
		if sourceArgs {
			r.Params = args[1:]
			r.sourceSetParams = false
		}
		// We want to track if the sourced file explicitly sets the
		// parameters.
		r.sourceSetParams = false
		r.inSource = true // know that we're inside a sourced script.
		r.frames = append(r.frames, frame{"source", source, r.line})
		if ctx, err = r.limits.Nest(ctx); err != nil {
			r.exit.fatal(err)
			return r.exit
		}
		r.stmtsRead(ctx, string(code), file.Stmts)
		r.endDiscard()
		if r.callbackReturn != "" {
			r.returnTrap(ctx, false)
		}

		// If we modified the parameters and the sourced file didn't
		// explicitly set them, we restore the old ones.
		if sourceArgs && !r.sourceSetParams {
			r.Params = oldParams
		}
		r.sourceSetParams = oldSourceSetParams
		r.inSource = oldInSource
		r.frames = r.frames[:len(r.frames)-1]

		exit = r.exit
		exit.returning = false
	case "[":
		if len(args) == 0 || args[len(args)-1] != "]" {
			return failf(2, "[: missing `]'\n")
		}
		args = args[:len(args)-1]
		fallthrough
	case "test":
		expr, err := parseClassicTest(args)
		if err != nil {
			return failf(2, "%s: %v\n", name, err)
		}
		if bad, ok := r.notInteger(expr); ok {
			return failf(2, "%s: %s: integer expression expected\n", name, bad)
		}
		exit.oneIf(r.bashTest(ctx, expr, true) == "")
	case "exec":
		// TODO: Consider unix.Exec, i.e. actually replacing
		// the process. It's in theory what a shell should do,
		// but in practice it would kill the entire Go process
		// and it's not available on Windows.
		// -a NAME and -l give the program another argv[0], as bash's.
		argv0, login := "", false
	options:
		for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' {
			opt := args[0]
			args = args[1:]
			if opt == "--" {
				break
			}
			for i := 1; i < len(opt); i++ {
				switch opt[i] {
				case 'l':
					login = true
				case 'a':
					switch {
					case i+1 < len(opt):
						argv0 = opt[i+1:]
					case len(args) > 0:
						argv0, args = args[0], args[1:]
					default:
						r.errf("exec: -a: option requires an argument\n")
						fmt.Fprint(r.stderr, execUsage)
						exit.code = 2
						return exit
					}
					continue options
				case 'c':
					r.errf("exec: -c: not supported by tandem's shell; run env -i COMMAND instead\n")
					exit.code = 2
					return exit
				default:
					r.errf("exec: -%c: invalid option\n", opt[i])
					fmt.Fprint(r.stderr, execUsage)
					exit.code = 2
					return exit
				}
			}
		}
		if len(args) == 0 {
			r.keepRedirs = true
			break
		}
		if login {
			argv0 = "-" + cmp.Or(argv0, args[0])
		}
		r.exit.exiting = true
		r.execArgv0 = argv0
		r.exec(ctx, pos, args)
		r.execArgv0 = ""
		exit = r.exit
	case "command":
		return r.commandBuiltin(ctx, pos, args)
	case "dirs":
		for i, dir := range slices.Backward(r.dirStack) {
			r.outf("%s", dir)
			if i > 0 {
				r.out(" ")
			}
		}
		r.out("\n")
	case "pushd":
		change := true
		if len(args) > 0 && args[0] == "-n" {
			change = false
			args = args[1:]
		}
		swap := func() string {
			oldtop := r.dirStack[len(r.dirStack)-1]
			top := r.dirStack[len(r.dirStack)-2]
			r.dirStack[len(r.dirStack)-1] = top
			r.dirStack[len(r.dirStack)-2] = oldtop
			return top
		}
		switch len(args) {
		case 0:
			if !change {
				break
			}
			if len(r.dirStack) < 2 {
				return failf(1, "pushd: no other directory\n")
			}
			newtop := swap()
			if code := r.changeDir(ctx, "pushd", newtop, false); code != 0 {
				exit.code = code
				return exit
			}
			r.builtin(ctx, syntax.Pos{}, "dirs", nil)
		case 1:
			if change {
				if code := r.changeDir(ctx, "pushd", args[0], false); code != 0 {
					exit.code = code
					return exit
				}
				r.dirStack = append(r.dirStack, r.Dir)
			} else {
				r.dirStack = append(r.dirStack, args[0])
				swap()
			}
			r.builtin(ctx, syntax.Pos{}, "dirs", nil)
		default:
			return failf(2, "pushd: too many arguments\n")
		}
	case "popd":
		change := true
		if len(args) > 0 && args[0] == "-n" {
			change = false
			args = args[1:]
		}
		switch len(args) {
		case 0:
			if len(r.dirStack) < 2 {
				return failf(1, "popd: directory stack empty\n")
			}
			oldtop := r.dirStack[len(r.dirStack)-1]
			r.dirStack = r.dirStack[:len(r.dirStack)-1]
			if change {
				newtop := r.dirStack[len(r.dirStack)-1]
				if code := r.changeDir(ctx, "popd", newtop, false); code != 0 {
					exit.code = code
					return exit
				}
			} else {
				r.dirStack[len(r.dirStack)-1] = oldtop
			}
			r.builtin(ctx, syntax.Pos{}, "dirs", nil)
		default:
			return failf(2, "popd: invalid argument\n")
		}
	case "return":
		if !r.inFunc && !r.inSource {
			return failf(2, "return: can only `return' from a function or sourced script\n")
		}
		switch len(args) {
		case 0:
			exit.code = r.lastExit.code // the status of the last command
		case 1:
			n, err := strconv.Atoi(args[0])
			if err != nil {
				return failf(2, "invalid return status code: %q\n", args[0])
			}
			exit.code = uint8(n)
		default:
			return failf(2, "return: too many arguments\n")
		}
		exit.returning = true
	case "read":
		var prompt string
		raw := false
		silent := false
		readArray := false
		until := readStop{delim: '\n'}
		timeout, timed := time.Duration(0), false
		inputFD := "0"
		fp := flagParser{remaining: args}
		for fp.more() {
			switch flag := fp.flag(); flag {
			case "-t":
				v := fp.value()
				secs, err := strconv.ParseFloat(v, 64)
				// As bash: a negative whole part is invalid, and the sign
				// of -0.5 is lost.
				if err != nil || secs <= -1 || strings.ContainsAny(v, "eEnNiIxX_") {
					return failf(1, "read: %s: invalid timeout specification\n", v)
				}
				timeout, timed = time.Duration(math.Abs(secs)*float64(time.Second)), true
			case "-n", "-N":
				v := fp.value()
				n, err := strconv.Atoi(v)
				if err != nil || n < 0 {
					return failf(1, "read: %s: invalid number\n", v)
				}
				until.max, until.limited, until.noDelim = n, true, flag == "-N"
			case "-d":
				if v := fp.value(); v != "" {
					until.delim = v[0]
				} else {
					until.delim = 0 // -d '': up to a NUL byte
				}
			case "-s":
				silent = true
			case "-r":
				raw = true
			case "-a":
				readArray = true
			case "-u":
				// Read from a descriptor a redirection opened.
				v := fp.value()
				in, ok := r.fdReader(v)
				if !ok {
					if n, err := strconv.Atoi(v); err != nil || n < 0 {
						return failf(1, "read: %s: invalid file descriptor specification\n", v)
					}
					return failf(1, "read: %s: invalid file descriptor: Bad file descriptor\n", v)
				}
				stdin, err := newStdinFile(in)
				if err != nil {
					return failf(1, "read: %v\n", err)
				}
				defer func(old stdinFile) { r.stdin = old }(r.stdin)
				r.stdin = stdin
				inputFD = v
			case "-p":
				prompt = fp.value()
				if prompt == "" {
					return failf(2, "read: -p: option requires an argument\n")
				}
			default:
				return failf(2, "read: invalid option %q\n", flag)
			}
		}

		args := fp.args()
		for _, name := range args {
			if _, _, elem := cutElemSubscript(name); !syntax.ValidName(name) && !elem {
				return failf(1, "read: `%s': not a valid identifier\n", name)
			}
		}

		if _, terminal := stdinTerminal(r.stdin); prompt != "" && terminal {
			// As bash: on stderr, and only when reading a terminal.
			fmt.Fprint(r.stderr, prompt)
		}

		if timed && timeout == 0 {
			// read -t 0 reads nothing: it tells whether input waits.
			if r.stdin == nil || !inputReady(r.stdin) {
				exit.code = 1
			}
			return exit
		}
		readCtx := ctx
		if timed {
			var cancel context.CancelFunc
			readCtx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		var line []byte
		var err error
		fd, terminal := -1, false
		if silent {
			fd, terminal = stdinTerminal(r.stdin)
		}
		if terminal {
			// Only a terminal echoes what we read, so it is the only case
			// where we need to read without echoing.
			line, err = term.ReadPassword(fd)
		} else {
			line, err = r.readUntil(readCtx, raw, until)
		}
		if errors.As(err, new(*LimitError)) {
			r.exit.fatal(err)
			return r.exit
		}
		if readArray {
			// read -a arrayname: split line into fields and assign to indexed array.
			arrayName := shellReplyVar
			if len(args) > 0 {
				arrayName = args[0]
			}
			// Use -1 as max to get all fields without joining the last ones.
			values := expand.ReadFields(r.ecfg, string(line), -1, raw)
			if values == nil {
				values = []string{} // an empty line is an empty array
			}
			r.setVar(arrayName, expand.Variable{
				Set:  true,
				Kind: expand.Indexed,
				List: values,
			})
		} else if len(args) == 0 || until.noDelim {
			// Bare "read" (and read -N, into its first name) assigns
			// the whole line without any trimming, only discarding
			// backslash escapes unless raw.
			val := string(line)
			if !raw {
				var sb strings.Builder
				esc := false
				for i := range len(val) {
					if val[i] == '\\' && !esc {
						esc = true
						continue
					}
					sb.WriteByte(val[i])
					esc = false
				}
				val = sb.String()
			}
			name := shellReplyVar
			if len(args) > 0 {
				name = args[0]
				for _, other := range args[1:] {
					r.setVarOrElem(other, "")
				}
			}
			r.setVarOrElem(name, val)
		} else {
			values := expand.ReadFields(r.ecfg, string(line), len(args), raw)
			for i, name := range args {
				val := ""
				if i < len(values) {
					val = values[i]
				}
				r.setVarOrElem(name, val) // read 'a[i]' sets an element, as in bash
			}
		}

		// We can get data back from readLine and an error at the same time, so
		// check err after we process the data.
		var errno syscall.Errno
		switch {
		case err == nil:
		case timed && readCtx.Err() != nil && ctx.Err() == nil:
			exit.code = 128 + 14 // as bash: killed by its SIGALRM
		case errors.As(err, &errno):
			msg := errno.Error()
			r.errf("read: read error: %s: %s\n", inputFD, strings.ToUpper(msg[:1])+msg[1:])
			exit.code = 1
		default:
			exit.code = 1
		}
		if err != nil {
			return exit
		}

	case "getopts":
		if len(args) < 2 {
			fmt.Fprintf(r.stderr, "getopts: usage: getopts optstring name [arg ...]\n")
			exit.code = 2
			return exit
		}
		optstr, name := args[0], args[1]
		args = args[2:]
		if len(args) == 0 {
			args = r.Params
		}
		// A script that sets OPTIND starts a new scan.
		if optind, _ := strconv.Atoi(r.envGet("OPTIND")); optind != r.optState.optind {
			r.optState = getopts{optind: optind}
		}
		silent := strings.HasPrefix(optstr, ":")
		report := !silent && r.envGet("OPTERR") != "0"
		opt, optarg, done := r.optState.next(optstr, args)
		r.setVarString("OPTIND", strconv.Itoa(r.optState.optind))
		value := string(opt)
		switch {
		case done:
			r.delVar("OPTARG")
			value, exit.code = "?", 1
		case opt == '?' || opt == ':':
			if report {
				// As bash: after $0, without the line.
				words := map[rune]string{'?': "illegal option", ':': "option requires an argument"}[opt]
				fmt.Fprintf(r.stderr, "%s: %s -- %s\n", r.shellName(), words, optarg)
			}
			if silent {
				r.setVarString("OPTARG", optarg)
			} else {
				value = "?"
				r.delVar("OPTARG")
			}
		case optarg != "" || strings.Contains(optstr, string(opt)+":"):
			r.setVarString("OPTARG", optarg)
		default:
			r.delVar("OPTARG")
		}
		if !syntax.ValidName(name) {
			return failf(1, "getopts: `%s': not a valid identifier\n", name)
		}
		r.setVarString(name, value)

	case "shopt":
		mode := ""
		posixOpts, print, quiet := false, false, false
		fp := flagParser{remaining: args}
		for fp.more() {
			switch flag := fp.flag(); flag {
			case "-s", "-u":
				mode = flag
			case "-o":
				posixOpts = true
			case "-p":
				print = true
			case "-q":
				quiet = true
			default:
				r.errf("shopt: %s: invalid option\n", flag)
				fmt.Fprintf(r.stderr, "shopt: usage: shopt [-pqsu] [-o] [optname ...]\n")
				exit.code = 2
				return exit
			}
		}
		// show prints an option's state as bash does: `shopt -s name` or
		// `set -o name` with -p, else the name and on or off.
		show := func(name string, on, supported bool) {
			switch {
			case quiet:
			case print && posixOpts:
				r.outf("set %co %s\n", "+-"[oneIfBool(on)], name)
			case print:
				r.outf("shopt %s %s\n", map[bool]string{true: "-s", false: "-u"}[on], name)
			default:
				r.printOptLine(name, on, supported)
			}
		}
		args := fp.args()
		if len(args) == 0 {
			if quiet {
				break
			}
			for i := range r.opts {
				name, supported := "", true
				if i < len(posixOptsTable) {
					if !posixOpts {
						continue
					}
					name = posixOptsTable[i].name
				} else {
					if posixOpts {
						continue
					}
					opt := bashOptsTable[i-len(posixOptsTable)]
					name, supported = opt.name, opt.supported
				}
				if mode == "" || r.opts[i] == (mode == "-s") {
					show(name, r.opts[i], supported)
				}
			}
			break
		}
		for _, arg := range args {
			opt, supported := (*bool)(nil), true
			posixIndex := -1
			if posixOpts {
				if posixIndex = posixOptByName(arg); posixIndex >= 0 {
					opt = &r.opts[posixIndex]
				}
			} else {
				opt, supported = r.bashOptByName(arg)
			}
			if opt == nil {
				if posixOpts {
					r.errf("shopt: %s: invalid option name\n", arg)
				} else {
					r.errf("shopt: %s: invalid shell option name\n", arg)
				}
				exit.code = 1
				continue
			}

			switch mode {
			case "-s", "-u":
				if !supported {
					return failf(1, "shopt: unsupported option %q\n", arg)
				}
				if posixIndex >= 0 {
					if err := r.setPosixOpt(posixIndex, mode == "-s"); err != nil {
						return failf(1, "shopt: %v\n", err)
					}
					break
				}
				*opt = mode == "-s"
			default: // "", -p or -q: the status says whether every one is on
				show(arg, *opt, supported)
				if !*opt {
					exit.code = 1
				}
			}
		}
		r.updateExpandOpts()

	case "alias":
		return r.aliasBuiltin(args)
	case "unalias":
		return r.unaliasBuiltin(args)

	case "trap":
		fp := flagParser{remaining: args}
		list, dash := false, false
		for fp.more() {
			switch flag := fp.flag(); flag {
			case "-l":
				r.printSignals()
				return exit
			case "-p":
				list = true
			case "-":
				dash = true
			default:
				r.errf("trap: %s: invalid option\n", flag)
				fmt.Fprintf(r.stderr, "trap: usage: trap [-lp] [[arg] signal_spec ...]\n")
				exit.code = 2
				return exit
			}
		}
		args := fp.args()
		if dash && len(args) == 0 {
			fmt.Fprintf(r.stderr, "trap: usage: trap [-lp] [[arg] signal_spec ...]\n")
			exit.code = 2
			return exit
		}
		if len(args) == 0 || list {
			r.printTraps(args)
			break
		}
		// As in bash: `trap - SIG…` and `trap SIG` reset, and so does a
		// first operand that is a number (POSIX: `trap 0 2`); otherwise
		// the first operand is the action.
		action, reset := args[0], false
		switch _, isNum := strconv.Atoi(args[0]); {
		case dash:
			reset = true
		case args[0] == "-":
			args, reset = args[1:], true
		case isNum == nil:
			reset = true
		case len(args) == 1:
			if _, ok := trapName(args[0]); !ok {
				fmt.Fprintf(r.stderr, "trap: usage: trap [-lp] [[arg] signal_spec ...]\n")
				exit.code = 2
				return exit
			}
			reset = true
		default:
			args = args[1:]
		}
		for _, arg := range args {
			sig, ok := trapName(arg)
			if !ok {
				r.errf("trap: %s: invalid signal specification\n", arg)
				exit.code = 1
				continue
			}
			callback := action
			if reset {
				callback = ""
				delete(r.traps, sig)
			} else {
				if r.traps == nil {
					r.traps = make(map[string]string)
				}
				r.traps[sig] = action
			}
			switch sig {
			case "ERR":
				r.callbackErr = callback
			case "EXIT":
				r.callbackExit = callback
			case "DEBUG":
				r.callbackDebug = callback
			case "RETURN":
				r.callbackReturn = callback
				r.returnTrapInFunc = r.inFunc
			}
		}

	case "readarray", "mapfile":
		return r.mapfile(name, args)

	case "umask":
		return r.umask(args)
	case "ulimit":
		return r.ulimit(args)
	case "declare", "typeset", "local", "export", "readonly":
		return r.declareCall(name, args)
	case "history":
		return r.history(args)
	default:
		return failf(2, "%s: unsupported builtin\n", name)
	}
	return exit
}

// mapfileSplit returns a suitable Split function for a [bufio.Scanner];
// the code is mostly stolen from [bufio.ScanLines].
func mapfileSplit(delim byte, dropDelim bool) bufio.SplitFunc {
	return func(data []byte, atEOF bool) (advance int, token []byte, err error) {
		if atEOF && len(data) == 0 {
			return 0, nil, nil
		}
		if i := bytes.IndexByte(data, delim); i >= 0 {
			// We have a full newline-terminated line.
			if dropDelim {
				return i + 1, data[0:i], nil
			} else {
				return i + 1, data[0 : i+1], nil
			}
		}
		// If we're at EOF, we have a final, non-terminated line. Return it.
		if atEOF {
			return len(data), data, nil
		}
		// Request more data.
		return 0, nil, nil
	}
}

func (r *Runner) printOptLine(name string, enabled, supported bool) {
	state := r.optStatusText(enabled)
	if supported {
		r.outf("%-15s\t%s\n", name, state)
		return
	}
	r.outf("%s\t%s\t(%q not supported)\n", name, state, r.optStatusText(!enabled))
}

func (r *Runner) readLine(ctx context.Context, raw bool) ([]byte, error) {
	return r.readUntil(ctx, raw, readStop{delim: '\n'})
}

// readStop is where read stops: at delim (read -d; never with read -N),
// or after max characters (read -n, read -N) when limited.
type readStop struct {
	delim   byte
	max     int
	limited bool
	noDelim bool
}

func (r *Runner) readUntil(ctx context.Context, raw bool, until readStop) ([]byte, error) {
	if r.stdin == nil {
		return nil, errors.New("interp: can't read, there's no stdin")
	}

	var line []byte
	esc := false

	stopc := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		r.stdin.SetReadDeadline(time.Now())
		close(stopc)
	})
	defer func() {
		if !stop() {
			// The AfterFunc was started.
			// Wait for it to complete, and reset the file's deadline.
			<-stopc
			r.stdin.SetReadDeadline(time.Time{})
		}
	}()
	chars := 0   // characters read, escaping backslashes and continuations aside
	dropped := 0 // NUL bytes read and dropped
	for !until.limited || until.max > 0 {
		var buf [1]byte
		n, err := r.stdin.Read(buf[:])
		if n > 0 {
			b := buf[0]
			switch {
			case !raw && b == '\\':
				line = append(line, b)
				esc = !esc
				if !esc {
					chars++
				}
			case !raw && b == '\n' && esc:
				// line continuation; drop the trailing backslash
				line = line[:len(line)-1]
				esc = false
			case b == until.delim && !until.noDelim && !esc:
				return line, nil
			case b == 0:
				// A variable holds no NUL: bash's read drops them (they
				// still count toward the bound: < /dev/zero ends).
				esc = false
				dropped++
			default:
				line = append(line, b)
				esc = false
				if !utf8.RuneStart(b) {
					break // one character's later byte
				}
				chars++
			}
			if until.limited && chars >= until.max && !esc {
				if size := len(line); size > 0 && !utf8.FullRune(line[lastRuneStart(line):]) {
					continue // the rest of the last character
				}
				return line, nil
			}
			if r.limits != nil && r.limits.Bytes > 0 && len(line)+dropped > r.limits.Bytes {
				return line, &LimitError{Limit: BytesLimit, Max: r.limits.Bytes}
			}
		}
		if err != nil {
			return line, err
		}
	}
	return line, nil
}

// lastRuneStart is where the last (maybe partial) character of b starts.
func lastRuneStart(b []byte) int {
	i := len(b) - 1
	for i > 0 && !utf8.RuneStart(b[i]) {
		i--
	}
	return i
}

// cdpath finds a relative directory in CDPATH's directories, as cd does
// in bash: a path that starts with / . or .. is not looked up, and an empty
// entry is the working directory. It reports a match found through a
// non-empty entry, which cd then prints.
func (r *Runner) cdpath(ctx context.Context, path string) (string, bool) {
	cdpath := r.envGet("CDPATH")
	if cdpath == "" || filepath.IsAbs(path) || path == "." || path == ".." ||
		strings.HasPrefix(path, "./") || strings.HasPrefix(path, "../") {
		return "", false
	}
	for _, dir := range strings.Split(cdpath, ":") {
		if dir == "" {
			if info, err := r.stat(ctx, r.absPath(path)); err == nil && info.IsDir() {
				return "", false
			}
			continue
		}
		cand := filepath.Join(dir, path)
		if info, err := r.stat(ctx, r.absPath(cand)); err == nil && info.IsDir() {
			return cand, true
		}
	}
	return "", false
}

// cdableVar is bash's cdable_vars: a cd operand that is no directory but
// names a set variable goes to the variable's value.
func (r *Runner) cdableVar(ctx context.Context, path string) (string, bool) {
	if on, _ := r.bashOptByName("cdable_vars"); !*on || !syntax.ValidName(path) {
		return "", false
	}
	if info, err := r.stat(ctx, r.absPath(path)); err == nil && info.IsDir() {
		return "", false
	}
	vr := r.lookupVar(path)
	return vr.String(), vr.IsSet()
}

// changeDir makes path the working directory; physical resolves its
// symbolic links, as cd -P does.
func (r *Runner) changeDir(ctx context.Context, cmd, path string, physical bool) uint8 {
	if path == "" {
		r.errf("%s: empty directory path\n", cmd)
		return 1
	}
	apath := r.absPath(path)
	info, err := r.stat(ctx, apath)
	if err == nil && !physical {
		// What comes before each `..` must be a directory, as in bash:
		// cd nodir/.. fails though its cleaned form is where we are.
		elems := strings.Split(path, "/")
		for i, elem := range elems {
			if elem != ".." || i == 0 {
				continue
			}
			var before os.FileInfo
			if before, err = r.stat(ctx, r.absPath(strings.Join(elems[:i], "/")+"/")); err == nil && !before.IsDir() {
				err = os.ErrNotExist
			}
			if err != nil {
				break
			}
		}
	}
	switch {
	case err != nil:
		r.errf("%s: %s: No such file or directory\n", cmd, path)
		return 1
	case !info.IsDir():
		r.errf("%s: %s: Not a directory\n", cmd, path)
		return 1
	case r.access(ctx, apath, AccessExec) != nil:
		r.errf("%s: %s: Permission denied\n", cmd, path)
		return 1
	}
	if physical {
		if real, err := filepath.EvalSymlinks(apath); err == nil {
			apath = real
		}
	}
	r.Dir = apath
	r.setExportedString("OLDPWD", r.envGet("PWD"))
	r.setExportedString("PWD", apath)
	return 0
}

func absPath(dir, path string) string {
	if path == "" {
		return ""
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	// Note that [filepath.Join] cleans its result, but an already absolute
	// path needs cleaning too, such as turning "/a/../b" into "/b".
	return filepath.Clean(path)
}

func (r *Runner) absPath(path string) string {
	return absPath(r.Dir, path)
}

// flagParser is used to parse builtin flags.
//
// It's similar to the getopts implementation, but with some key differences.
// First, the API is designed for Go loops, making it easier to use directly.
// Second, it doesn't require the awkward ":ab" syntax that getopts uses.
// Third, it supports "-a" flags as well as "+a".
type flagParser struct {
	current   string
	remaining []string
}

func (p *flagParser) more() bool {
	if p.current != "" {
		// We're still parsing part of "-ab".
		return true
	}
	if len(p.remaining) == 0 {
		// Nothing left.
		p.remaining = nil
		return false
	}
	arg := p.remaining[0]
	if arg == "--" {
		// We explicitly stop parsing flags.
		p.remaining = p.remaining[1:]
		return false
	}
	if len(arg) == 0 || (arg[0] != '-' && arg[0] != '+') {
		// The next argument is not a flag.
		return false
	}
	// More flags to come.
	return true
}

func (p *flagParser) flag() string {
	arg := p.current
	if arg == "" {
		arg = p.remaining[0]
		p.remaining = p.remaining[1:]
	} else {
		p.current = ""
	}
	if len(arg) > 2 {
		// We have "-ab", so return "-a" and keep "-b".
		p.current = arg[:1] + arg[2:]
		arg = arg[:2]
	}
	return arg
}

func (p *flagParser) value() string {
	if p.current != "" {
		// "-n3": the value is the rest of the word, as in bash.
		v := p.current[1:]
		p.current = ""
		return v
	}
	if len(p.remaining) == 0 {
		return ""
	}
	arg := p.remaining[0]
	p.remaining = p.remaining[1:]
	return arg
}

func (p *flagParser) args() []string { return p.remaining }

// getopts is the state of a getopts scan, as bash's sh_getopt keeps it:
// the 1-based index of the next argument (OPTIND) and, inside a group of
// options (-abc), the byte of the next one.
type getopts struct {
	optind  int
	inGroup int // 0 when not inside a group
}

// next returns the next option of args by optstr: '?' for one optstr does
// not hold (optarg is it), ':' for one missing its argument, done at the
// end of the options (a first operand, `-`, or `--`, which is skipped).
func (g *getopts) next(optstr string, args []string) (opt rune, optarg string, done bool) {
	argc := len(args) + 1 // argv[0] counts, as in C
	if g.optind >= argc || g.optind < 0 {
		g.optind, g.inGroup = argc, 0
		return 0, "", true
	}
	if g.optind == 0 {
		g.optind, g.inGroup = 1, 0
	}
	if g.inGroup == 0 {
		if g.optind >= argc {
			return 0, "", true
		}
		arg := args[g.optind-1]
		if arg == "--" {
			g.optind++
			return 0, "", true
		}
		if len(arg) < 2 || arg[0] != '-' {
			return 0, "", true
		}
		g.inGroup = 1
	}
	arg := args[g.optind-1]
	c, size := utf8.DecodeRuneInString(arg[g.inGroup:])
	g.inGroup += size
	if g.inGroup >= len(arg) { // the group's last option moves on
		g.optind++
		g.inGroup = 0
	}
	i := strings.IndexRune(optstr, c)
	if i < 0 || c == ':' {
		return '?', string(c), false
	}
	if !strings.HasPrefix(optstr[i+len(string(c)):], ":") {
		return c, "", false
	}
	switch {
	case g.inGroup > 0: // -cVALUE
		optarg = arg[g.inGroup:]
		g.optind++
	case g.optind == argc:
		g.inGroup = 0
		return ':', string(c), false
	default:
		optarg = args[g.optind-1]
		g.optind++
	}
	g.inGroup = 0
	return c, optarg, false
}

func oneIfBool(b bool) int {
	if b {
		return 1
	}
	return 0
}

// optStatusText returns a shell option's status text display
func (r *Runner) optStatusText(status bool) string {
	if status {
		return "on"
	}
	return "off"
}

// trapName is the name trap lists a condition by: EXIT (also 0), ERR,
// DEBUG, RETURN, or a signal by its number or its name, with or without
// SIG, in any case (SIGINT).
func trapName(spec string) (string, bool) {
	up := strings.ToUpper(spec)
	switch up {
	case "EXIT", "0":
		return "EXIT", true
	case "ERR", "DEBUG", "RETURN":
		return up, true
	}
	if n, err := strconv.Atoi(spec); err == nil {
		name := signalName(n)
		return name, name != ""
	}
	name := "SIG" + strings.TrimPrefix(up, "SIG")
	return name, signalNumber(name) > 0
}

// trapOrder sorts traps as bash lists them: EXIT, the signals by number,
// then DEBUG, ERR and RETURN.
func trapOrder(name string) int {
	switch name {
	case "EXIT":
		return 0
	case "DEBUG":
		return 1000
	case "ERR":
		return 1001
	case "RETURN":
		return 1002
	}
	return signalNumber(name)
}

// printTraps lists the traps set (those of names only, if given), as
// `trap -- 'ACTION' NAME` lines a shell can read back.
func (r *Runner) printTraps(names []string) {
	var sigs []string
	if len(names) == 0 {
		sigs = slices.Collect(maps.Keys(r.traps))
	}
	for _, n := range names {
		if sig, ok := trapName(n); ok {
			sigs = append(sigs, sig)
		}
	}
	slices.SortFunc(sigs, func(a, b string) int { return trapOrder(a) - trapOrder(b) })
	for _, sig := range sigs {
		if action, ok := r.traps[sig]; ok {
			r.outf("trap -- '%s' %s\n", strings.ReplaceAll(action, "'", `'\''`), sig)
		}
	}
}
