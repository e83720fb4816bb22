package classify

import (
	"path"
	"strings"

	"github.com/tandemdev/tandem/approvals"
)

// A wrapper runs another program (its payload) with its own options first.
// The step gets the payload's effects; the runner's exec middleware gates the
// payload again with its own argv when it starts.
type wrapper struct {
	opts opts
	skip int  // operands before the payload (timeout's duration)
	exec bool // the wrapper itself can change what runs (sudo, doas)
	// writes are options whose value is a file the wrapper writes (time -o).
	writes []string
}

var wrappers = map[string]*wrapper{
	"nice":    {opts: opts{short: "n:", long: []string{"adjustment="}}},
	"nohup":   {},
	"timeout": {opts: opts{short: "k:s:v", long: []string{"kill-after=", "signal=", "preserve-status", "foreground", "verbose"}}, skip: 1},
	"stdbuf":  {opts: opts{short: "i:o:e:", long: []string{"input=", "output=", "error="}}},
	"setsid":  {opts: opts{short: "cfw", long: []string{"ctty", "fork", "wait"}}},
	"ionice":  {opts: opts{short: "c:n:t", long: []string{"class=", "classdata=", "ignore"}}},
	"taskset": {opts: opts{short: "ac", long: []string{"all-tasks", "cpu-list"}}, skip: 1},
	"time":    {opts: opts{short: "ao:f:pqv", long: []string{"append", "output=", "format=", "portability", "quiet", "verbose"}}, writes: []string{"-o", "--output"}},
	"sudo": {opts: opts{short: "AbEeHiKklnPSsVg:h:p:r:t:T:U:u:C:D:R:", long: []string{"askpass", "background", "preserve-env?",
		"edit", "group=", "set-home", "host=", "login", "remove-timestamp", "reset-timestamp", "list", "non-interactive",
		"preserve-groups", "prompt=", "chroot=", "role=", "stdin", "shell", "type=", "command-timeout=", "other-user=",
		"user=", "close-from=", "chdir=", "validate"}}, exec: true},
	"doas": {opts: opts{short: "nsLC:u:a:"}, exec: true},
}

func (w *wrapper) row() row {
	return func(c *classifier, args []string, dir string) {
		o := w.opts
		o.posix = true
		p := o.parse(args)
		if w.exec {
			c.add(approvals.Exec)
		}
		for _, k := range w.writes {
			for _, v := range p.has[k] {
				c.write(dir, v)
			}
		}
		c.words(dir, p.vals, false)
		ops := p.ops
		if len(ops) > 0 && ops[0] == "--" {
			ops = ops[1:]
		}
		if len(ops) < w.skip {
			return
		}
		c.words(dir, ops[:w.skip], false)
		c.command(ops[w.skip:], dir)
	}
}

// commandRow classifies command (and builtin), which runs its payload
// bypassing functions; command -v and -V only look a name up.
func commandRow(c *classifier, args []string, dir string) {
	p := opts{short: "pvV", posix: true}.parse(args)
	if p.set("-v") || p.set("-V") {
		c.words(dir, p.ops, false)
		return
	}
	c.command(dropDashDash(p.ops), dir)
}

// execRow classifies exec, which replaces the shell with its payload; -a
// sets the payload's argv[0], which changes nothing of what runs.
func execRow(c *classifier, args []string, dir string) {
	p := opts{short: "cla:", posix: true}.parse(args)
	c.command(dropDashDash(p.ops), dir)
}

func dropDashDash(ops []string) []string {
	if len(ops) > 0 && ops[0] == "--" {
		return ops[1:]
	}
	return ops
}

// envRow classifies env, which runs its payload in a changed environment. An
// assignment, or -S (which splits a string into a new argv), is exec; -C
// moves the payload's working directory. Without a payload, env prints the
// environment.
func envRow(c *classifier, args []string, dir string) {
	p := opts{short: "0ivu:C:S:", posix: true, long: []string{"ignore-environment", "null", "unset=", "chdir=",
		"split-string=", "debug", "default-signal?", "ignore-signal?", "block-signal?", "list-signal-handling",
		"help", "version"}}.parse(args)
	if p.set("-S") || p.set("--split-string") {
		c.add(approvals.Exec)
		for _, s := range append(p.has["-S"], p.has["--split-string"]...) {
			c.command(strings.Fields(s), dir)
		}
	}
	for _, k := range []string{"-C", "--chdir"} {
		if v := p.val(k); v != "" {
			c.read(dir, v)
			dir = cleanDir(dir, v)
		}
	}
	ops := dropDashDash(p.ops)
	for len(ops) > 0 && strings.Contains(ops[0], "=") {
		c.add(approvals.Exec)
		_, v, _ := strings.Cut(ops[0], "=")
		c.read(dir, v)
		ops = ops[1:]
	}
	c.command(ops, dir)
}

// xargsRow classifies xargs, which runs its payload with words read from
// its input, which tandem cannot see (they may be options that change what
// the payload does): exec, plus the payload's own effects.
func xargsRow(c *classifier, args []string, dir string) {
	o, err := ParseXargs(args)
	c.add(approvals.Exec)
	if err != nil {
		return // xargs refuses the line and runs nothing
	}
	if o.ArgFile != "" {
		c.read(dir, o.ArgFile)
	}
	c.command(o.Command, dir)
}

// shells are the programs shellRow classifies.
var shells = []string{"sh", "bash", "dash", "ksh", "zsh", "mksh", "posh", "ash"}

func isShellName(name string) bool { return contains(shells, name) }

// shellRow returns the row of the shell called name. sh -c SCRIPT (and bash,
// dash, …) runs SCRIPT, so SCRIPT is parsed and every command of it
// classified. A shell that runs a script file, reads its commands from
// input, or runs as a login or interactive shell (which sources profile
// files) is exec.
func shellRow(name string) row {
	return func(c *classifier, args []string, dir string) {
		script, hasScript := "", false
		exec := false
		var rest []string
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--":
				rest = append(rest, args[i+1:]...)
				i = len(args)
			case a == "-o" || a == "+o" || a == "-O" || a == "+O":
				i++
			case strings.HasPrefix(a, "--"):
				// --norc, --noprofile, --posix are harmless; --rcfile,
				// --init-file, --login and the rest are not classified.
				if a != "--norc" && a != "--noprofile" && a != "--posix" && a != "--restricted" {
					exec = true
				}
			case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
				for _, l := range a[1:] {
					switch l {
					case 'c':
						hasScript = true
					case 'i', 'l', 's':
						exec = true
					}
				}
			default:
				rest = append(rest, args[i:]...)
				i = len(args)
			}
		}
		if !hasScript || len(rest) == 0 {
			// A script file, or commands from input.
			c.add(approvals.Exec)
			c.words(dir, rest, false)
			return
		}
		script = rest[0]
		if exec {
			c.add(approvals.Exec)
		}
		c.words(dir, rest[1:], false)
		c.script(script, dir, langOf(name))
	}
}

// userShell classifies a command a program hands to the user's shell
// ($SHELL -c COMMAND, sh when unset): a shell the table does not know is
// exec.
func (c *classifier) userShell(script, dir string) {
	sh := "sh"
	if s := c.p.Env("SHELL"); s != "" {
		sh = path.Base(s)
	}
	if !isShellName(sh) {
		c.add(approvals.Exec)
	}
	c.script(script, dir, langOf(sh))
}

// evalRow classifies eval, which runs its arguments, joined by spaces, as a
// script.
func evalRow(c *classifier, args []string, dir string) {
	c.script(strings.Join(args, " "), dir, langBash)
}

// aliasRow classifies an alias definition by what the alias runs, so a
// script that defines one to hide a command asks when it defines it.
func aliasRow(c *classifier, args []string, dir string) {
	for _, a := range args {
		if n, v, ok := strings.Cut(a, "="); ok && n != "" {
			c.script(v, dir, langBash)
		}
	}
}

// trapRow classifies trap, whose action runs later, when its signal comes.
func trapRow(c *classifier, args []string, dir string) {
	p := opts{short: "lp", posix: true}.parse(args)
	if p.set("-l") || p.set("-p") {
		return
	}
	ops := dropDashDash(p.ops)
	if len(ops) > 1 && ops[0] != "-" {
		c.script(ops[0], dir, langBash)
	}
}
