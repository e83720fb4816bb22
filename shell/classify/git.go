package classify

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tandemdev/tandem/approvals"
)

// Repository config can make git run a program (fsmonitor, hooks, pager,
// clean filters, external diff and textconv drivers, signature programs, ssh
// commands, credential helpers). So only a few subcommands read, and those
// run with untrustedGitArgs; everything else is exec.

// gitQuietFlags are the global options that set no configuration and no
// program.
var gitQuietFlags = map[string]bool{
	"--no-pager": true, "-P": true, "--literal-pathspecs": true, "--no-literal-pathspecs": true,
	"--glob-pathspecs": true, "--noglob-pathspecs": true, "--icase-pathspecs": true,
	"--no-optional-locks": true, "--no-replace-objects": true, "--no-lazy-fetch": true, "--no-advice": true,
}

// gitValueFlags are the global options that take a value, attached with '='
// or as the next word; each can make git run a program or read another
// repository's config.
var gitValueFlags = map[string]bool{"--git-dir": true, "--work-tree": true, "--namespace": true,
	"--super-prefix": true, "--config-env": true, "--attr-source": true, "--shallow-file": true}

// gitPrintFlags print something and end git before any subcommand.
var gitPrintFlags = map[string]bool{"--version": true, "-v": true, "--exec-path": true,
	"--html-path": true, "--man-path": true, "--info-path": true}

// gitLine is what git's global options set before the subcommand runs.
type gitLine struct {
	dir    string   // the working directory, after -C
	gitDir string   // the repository --git-dir, --bare or GIT_DIR names ("": git looks for it from dir)
	config []string // name=value pairs from -c and --config-env, in order
	exec   bool     // an option makes git run a program (a pager, an exec path) or read config it names
}

// gitGlobals reads the global options at the head of args as git's
// handle_options does and returns the index of the subcommand (len(args)
// when there is none), and ok false when an option ends git (--version) or
// is unknown (git refuses it). getenv gives --config-env's values; nil when
// the values do not matter.
func gitGlobals(args []string, g *gitLine, getenv func(string) string) (sub int, ok bool) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			return i, true
		}
		name, val, attached := strings.Cut(a, "=")
		if gitValueFlags[name] && !attached {
			if i+1 == len(args) {
				return i, false
			}
			i++
			val, attached = args[i], true
		}
		switch {
		case gitQuietFlags[a]:
		case strings.HasPrefix(a, "-C"):
			// git takes only "-C DIR"; "-CDIR" is read the same, to err
			// toward what a newer git may accept.
			d := a[2:]
			if d == "" {
				if i+1 == len(args) {
					return i, false
				}
				i++
				d = args[i]
			}
			g.dir = cleanDir(g.dir, d)
		case strings.HasPrefix(a, "-c"):
			// "-cNAME=VALUE" likewise.
			kv := a[2:]
			if kv == "" {
				if i+1 == len(args) {
					return i, false
				}
				i++
				kv = args[i]
			}
			g.config = append(g.config, kv)
			g.exec = true
		case name == "--config-env":
			// name=ENVVAR: the value is that variable's.
			k, v, _ := strings.Cut(val, "=")
			if getenv != nil {
				v = getenv(v)
			}
			g.config = append(g.config, k+"="+v)
			g.exec = true
		case name == "--git-dir":
			g.gitDir = cleanDir(g.dir, val)
			g.exec = true
		case a == "--bare":
			g.gitDir = g.dir
			g.exec = true
		case gitValueFlags[name], a == "-p", a == "--paginate", attached && name == "--exec-path":
			g.exec = true
		case gitPrintFlags[a]:
			return i, false
		default:
			// --help, --list-cmds and anything git does not know.
			return i, false
		}
	}
	return i, true
}

// alias is the expansion git -c alias.NAME=… gives sub, if any (the last
// one given wins, as in git; names are case-insensitive).
func (g *gitLine) alias(sub string) (string, bool) {
	for i := len(g.config) - 1; i >= 0; i-- {
		k, v, _ := strings.Cut(g.config[i], "=")
		if strings.EqualFold(k, "alias."+sub) {
			return v, true
		}
	}
	return "", false
}

// gitRead are the subcommands that only read (with untrustedGitArgs).
var gitRead = map[string]bool{
	"cat-file": true, "count-objects": true, "describe": true, "for-each-ref": true, "grep": true,
	"log": true, "ls-files": true, "ls-tree": true, "merge-base": true, "name-rev": true,
	"rev-list": true, "rev-parse": true, "shortlog": true, "show": true, "show-ref": true,
	"version": true, "diff": true, "branch": true, "symbolic-ref": true,
	"update-ref": true, "init": true,
}

// gitNet are the subcommands that talk to a remote.
var gitNet = map[string]bool{
	"clone": true, "fetch": true, "ls-remote": true, "pull": true, "push": true, "submodule": true,
	"remote": true, "archive": true, "fetch-pack": true, "send-pack": true, "request-pull": true,
	"send-email": true, "svn": true, "p4": true, "cvsimport": true,
}

// gitExecOpts make a read subcommand run a program: they are matched as
// prefixes (git's parse-options takes abbreviations).
var gitExecOpts = []string{"textconv", "ext-diff", "filters", "show-signature", "open-files-in-pager",
	"edit-description", "dirty", "broken", "modified", "verify-signatures", "gpg-sign", "pager",
	"paginate", "template", "separate-git-dir"}

// gitPrettyBuiltin are the --pretty/--format names that are not aliases.
var gitPrettyBuiltin = map[string]bool{"oneline": true, "short": true, "medium": true, "full": true,
	"fuller": true, "reference": true, "email": true, "mboxrd": true, "raw": true}

// maxGitEnvConfig bounds the GIT_CONFIG_KEY_n pairs looked at.
const maxGitEnvConfig = 100

func gitRow(c *classifier, args []string, dir string) {
	g := gitLine{dir: dir, gitDir: c.getenv("GIT_DIR")}
	if g.gitDir != "" {
		g.gitDir = cleanDir(dir, g.gitDir)
	}
	// GIT_CONFIG_COUNT and its GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n are -c
	// given through the environment (an alias too).
	n, _ := strconv.Atoi(c.getenv("GIT_CONFIG_COUNT"))
	for k := range min(n, maxGitEnvConfig) {
		g.config = append(g.config, c.getenv("GIT_CONFIG_KEY_"+strconv.Itoa(k))+"="+c.getenv("GIT_CONFIG_VALUE_"+strconv.Itoa(k)))
	}
	c.git(args, g, 0)
}

// git judges a git command line read with what earlier options (and the
// aliases that led to it, at depth) set in g.
func (c *classifier) git(args []string, g gitLine, depth int) {
	from := g.dir
	i, ok := gitGlobals(args, &g, c.getenv)
	c.anyWords(from, args[:i])
	if g.exec {
		c.add(approvals.Exec)
	}
	if !ok {
		if i < len(args) && !gitPrintFlags[args[i]] {
			// --help (a man viewer or browser) and options git refuses.
			c.add(approvals.Exec)
			c.anyWords(g.dir, args[i:])
		}
		return
	}
	if i == len(args) {
		return // usage
	}
	sub, rest := args[i], args[i+1:]
	if strings.HasPrefix(sub, "credential") {
		c.gitCredentials() // credential, credential-store, credential-cache
	}
	dir := g.dir
	if v, ok := g.alias(sub); ok {
		// git runs an alias of a name that is no git command: judged as
		// what it expands to, and as the command too (a builtin's name
		// keeps its builtin).
		c.gitAlias(v, rest, g, depth)
	}
	if target := c.gitConfigWritten(sub, rest, g); target != "" {
		// The config names programs git runs later (core.fsmonitor,
		// core.hooksPath, filters, aliases), outside any step.
		c.write(dir, target)
	}
	if gitNet[sub] {
		c.add(approvals.Net, approvals.Exec)
		if c.gitOverSSH(sub, rest, g) {
			// ssh signs with the agent's keys or ~/.ssh's.
			c.sshKeys()
		}
		c.anyWords(dir, rest)
		return
	}
	if !gitRead[sub] {
		c.add(approvals.Exec)
		c.anyWords(dir, rest)
		return
	}
	c.add(approvals.Read)
	if gitArgsExec(sub, rest) {
		c.add(approvals.Exec)
	}
	ops := 0
	dash := false
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if dash || !strings.HasPrefix(a, "-") {
			ops++
			c.read(dir, a)
			continue
		}
		if a == "--" {
			dash = true
			continue
		}
		name, v, ok := strings.Cut(a, "=")
		if (sub == "log" || sub == "show" || sub == "diff") && len(name) > 4 && strings.HasPrefix("--output", name) {
			// --output=FILE, or --output FILE
			if !ok && j+1 < len(rest) {
				j++
				v, ok = rest[j], true
			}
			if ok {
				c.write(dir, v)
			}
			continue
		}
		if ok {
			c.read(dir, v)
		}
	}
	switch sub {
	case "diff":
		if !hasAnyOpt(rest, "--cached", "--staged") {
			// A work-tree diff hashes files through the clean filters.
			c.add(approvals.Exec)
		}
	case "branch":
		if gitBranchWrites(rest) {
			c.add(approvals.Write)
		}
	case "symbolic-ref":
		if ops >= 2 || hasAnyOpt(rest, "-d", "--delete", "-m") {
			c.add(approvals.Write)
		}
	case "update-ref":
		c.add(approvals.Write)
	case "init":
		c.add(approvals.Write)
		target := dir
		if ops > 0 {
			target = cleanDir(dir, lastOperand(rest))
		}
		c.write(dir, target)
		c.write(dir, target+"/.git")
	case "ls-files":
		if ops == 0 {
			c.readsCwd(dir)
		}
	case "grep":
		// An operand before -- may be a revision: only a path after --
		// names a path.
		if !gitPathAfterDash(rest) {
			c.readsCwd(dir)
		}
	}
}

// gitArgsExec reports whether an argument of a read subcommand can make git
// run a program.
func gitArgsExec(sub string, rest []string) bool {
	for _, a := range rest {
		if a == "--" {
			break
		}
		if strings.Contains(a, "%G") {
			return true
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a[2:], "=")
			if strings.HasPrefix(name, "no-") && !strings.HasPrefix(name, "no-no-") {
				continue
			}
			name = strings.TrimPrefix(name, "no-no-")
			for _, x := range gitExecOpts {
				if strings.HasPrefix(x, name) && name != "" {
					return true
				}
			}
			if (name == "pretty" || name == "format") && hasVal {
				if strings.Contains(val, "signature") {
					return true
				}
				if !strings.Contains(val, "%") && !gitPrettyBuiltin[val] &&
					!strings.HasPrefix(val, "format:") && !strings.HasPrefix(val, "tformat:") {
					return true // a pretty.<name> alias from config
				}
			}
			continue
		}
		if len(a) > 1 && a[0] == '-' {
			letters := a[1:]
			switch sub {
			case "grep":
				if strings.Contains(letters, "O") {
					return true
				}
			case "ls-files":
				if strings.Contains(letters, "m") {
					return true
				}
			}
		}
	}
	return false
}

// gitConfigWrites is the file a git config command changes ("" when it
// only reads): the repository's (repo), or the one --global, --system,
// --file or --worktree names.
func gitConfigWrites(rest []string, home string, repo gitRepo) string {
	target, reads, writes := repo.config(), false, false
	var ops []string
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		name, v, hasValue := strings.Cut(a, "=")
		switch {
		case !strings.HasPrefix(a, "-"):
			ops = append(ops, a)
		case a == "--global":
			target = filepath.Join(home, ".gitconfig")
		case a == "--system":
			target = "/etc/gitconfig"
		case a == "--worktree":
			target = repo.worktreeConfig()
		case name == "--file" || a == "-f":
			if !hasValue && j+1 < len(rest) {
				j++
				v = rest[j]
			}
			target = v
		case a == "--get" || a == "--get-all" || a == "--get-regexp" || a == "--get-urlmatch" || a == "--get-color" ||
			a == "--get-colorbool" || a == "-l" || a == "--list":
			reads = true
		case a == "--unset" || a == "--unset-all" || a == "--add" || a == "--replace-all" || a == "--rename-section" ||
			a == "--remove-section" || a == "-e" || a == "--edit":
			writes = true
		}
	}
	switch {
	case writes:
	case len(ops) > 0 && (ops[0] == "get" || ops[0] == "list"):
		return ""
	case len(ops) > 0 && (ops[0] == "set" || ops[0] == "unset" || ops[0] == "rename-section" || ops[0] == "remove-section" || ops[0] == "edit"):
	case reads || len(ops) < 2:
		return ""
	}
	return target
}

// gitBranchWrites reports whether git branch changes refs: it does unless
// it only lists.
func gitBranchWrites(rest []string) bool {
	list := false
	ops := 0
	for _, a := range rest {
		switch {
		case a == "--list" || a == "-l" || strings.HasPrefix(a, "--contains") || strings.HasPrefix(a, "--merged") ||
			strings.HasPrefix(a, "--no-merged") || strings.HasPrefix(a, "--points-at") || a == "--show-current":
			list = true
		case a == "-a" || a == "--all" || a == "-r" || a == "--remotes" || a == "-v" || a == "-vv" ||
			a == "--verbose" || strings.HasPrefix(a, "--sort") || strings.HasPrefix(a, "--format") ||
			strings.HasPrefix(a, "--color") || a == "--no-color" || strings.HasPrefix(a, "--column") ||
			a == "--no-column" || strings.HasPrefix(a, "--abbrev") || a == "--no-abbrev" || a == "-i" ||
			a == "--ignore-case" || a == "-q" || a == "--quiet":
		case strings.HasPrefix(a, "-"):
			return true // -d, -D, -m, -M, -c, -C, -f, -u, --set-upstream-to, --track, …
		default:
			ops++
		}
	}
	return ops > 0 && !list
}

func hasAnyOpt(args []string, names ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		for _, n := range names {
			if a == n {
				return true
			}
		}
	}
	return false
}

func lastOperand(args []string) string {
	for i := len(args) - 1; i >= 0; i-- {
		if !strings.HasPrefix(args[i], "-") {
			return args[i]
		}
	}
	return "."
}

func gitPathAfterDash(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return i+1 < len(args)
		}
	}
	return false
}

// untrustedGitArgs go before the subcommand of every git step the table
// reads as read-only: no fsmonitor, hooks, pager, signature checks,
// external programs for credentials or ssh.
var untrustedGitArgs = []string{
	"--no-pager", "--no-optional-locks",
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.pager=cat",
	"-c", "core.sshCommand=false",
	"-c", "core.askPass=false",
	"-c", "credential.helper=",
	"-c", "log.showSignature=false",
	"-c", "gpg.program=false",
	// Config chooses a signature format and its verifier (format.pretty
	// with %G? makes a plain git log verify): disable every format's.
	"-c", "gpg.openpgp.program=false",
	"-c", "gpg.x509.program=false",
	"-c", "gpg.ssh.program=false",
	"-c", "diff.external=",
	"-c", "protocol.allow=never",
}

// untrustedGitEnv goes into the environment of those steps.
var untrustedGitEnv = []string{"GIT_NO_LAZY_FETCH=1", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "GIT_ASKPASS=false"}

// untrustedLessEnv keeps less from its lesskey files: a file's #env section
// can set LESSOPEN, which makes less run a program on every file it shows,
// and ~/.lesskey is an ordinary file a step may write. (A lesskey file named
// on the command line, or its content in an option, is exec.)
var untrustedLessEnv = []string{"LESSKEYIN=/dev/null", "LESSKEY=/dev/null", "LESSKEY_CONTENT="}

// RunArgs is the argv a classified step must run with: a git subcommand the
// table reads as read-only gets the untrusted-repository arguments (no
// fsmonitor, hooks, pager, signature programs or lazy fetch; diff, log and
// show without external diff or textconv; init without a template), so
// repository or user config cannot make it run a program or copy a
// directory it does not name; env holds KEY=VALUE pairs to add to its environment.
// less runs without its lesskey files (untrustedLessEnv). Every other argv
// is returned unchanged with no env.
func RunArgs(argv []string) (args, env []string) {
	if len(argv) > 0 && argv[0] == "less" {
		return argv, untrustedLessEnv
	}
	if len(argv) < 2 || argv[0] != "git" {
		return argv, nil
	}
	i, ok := gitGlobals(argv[1:], &gitLine{}, nil)
	i++
	if !ok || i >= len(argv) || !gitRead[argv[i]] {
		return argv, nil
	}
	out := append([]string{"git"}, untrustedGitArgs...)
	if argv[i] == "init" {
		// A template (init.templateDir in the user's config, which the
		// step does not name) is copied into .git: its hooks run later,
		// and it can name any directory (~/.ssh). Copy none.
		out = append(out, "-c", "init.templateDir=")
	}
	out = append(out, argv[1:i+1]...)
	switch argv[i] {
	case "diff", "log", "show":
		out = append(out, "--no-ext-diff", "--no-textconv")
	}
	out = append(out, argv[i+1:]...)
	return out, untrustedGitEnv
}
