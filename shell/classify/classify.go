// Package classify gives the effects of one shell step — a simple command's
// expanded argv, or a redirection's target — and the paths it names with
// their classes, by the command table. It is a pure core: it runs nothing,
// and it reaches the filesystem only through the path policy
// (approvals.Policy), whose lookups take the real paths the policy judged.
// The interpreter (package shell) calls it just before each step runs; a
// sandbox that enforces a step's judged effects builds on the same answer.
//
// The command table (table) maps a program's name to its row: the function
// that gives the effects of one run of that program from its argv. Each
// row's doc comment says which of the program's actions have effects.
package classify

import (
	"io/fs"
	"net"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"

	"github.com/tandemdev/tandem/approvals"
)

// Command gives the effects of ONE simple command, from its real expanded
// arguments, and the paths it names with their classes. It is pure: the only
// I/O is the policy's filesystem lookups for real paths.
//
// env is the environment the command runs with (nil: the policy's own). dir
// is its working directory.
//
// The program's name, subcommand and options select a row of the command
// table. The step is exec when its program is not in the table, when the
// program's name holds a '/', or when the step's environment differs from
// the policy's in a variable that can make a reading command run another
// program (PATH, LD_*, GIT_*, LESSOPEN, HOME, …: an assignment prefix or
// an earlier export). A program not in the table whose real file is git (a
// link, git-core's git-SUB) is judged as git too.
//
// Wrappers (env, command, exec, nice, nohup, timeout, stdbuf, setsid, sudo,
// xargs, find -exec, …) are classified by their payload: the step has the
// payload's effects, and exec too when the wrapper itself can change what
// runs (sudo, xargs, which adds words read from its input, find -exec, env
// with assignments). The program behind a wrapper still reaches the
// runner's exec middleware, which must classify and gate it again with its
// own argv. `sh -c SCRIPT` and `bash -c SCRIPT` are parsed and every simple
// command and redirection of SCRIPT is classified (statically: a word whose
// value depends on the script's run is unknown, and makes its command exec);
// the step has the union of their effects.
//
// Every word that is or holds a secret adds secret; for a command that
// writes, a word outside the workspace adds outside and a protected word adds
// protected. A command that reads its working directory because it names no
// path (ls, du, find, rg PATTERN, grep -r PATTERN, git ls-files, git grep)
// judges dir.
func Command(argv []string, dir string, env expand.Environ, p *approvals.Policy) approvals.Step {
	c := newClassifier(env, p)
	c.command(argv, dir)
	return c.step(approvals.ShowAssigned(c.changedVars(), argv))
}

// Text returns argv as a question shows it when it runs with env: after
// each variable that changes what it loads or runs and that env sets
// otherwise than the session does, with its value (`LD_PRELOAD=./x.so cat
// ~/.netrc`). A yes is never given to a program whose question hides them.
func Text(argv []string, env expand.Environ, p *approvals.Policy) string {
	return approvals.ShowAssigned(newClassifier(env, p).changedVars(), argv)
}

// Redirect gives the effects of one redirection to target (made real from
// dir):
//
//   - a write inside the workspace is write; outside it, write and outside;
//     to a protected path, write and protected; to a secret, write and
//     secret;
//   - a read is read; of a path that is or holds a secret, read and secret;
//   - /dev/null, /dev/stdout and /dev/stderr have no effect;
//   - bash's /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT are not files but a
//     connection: net alone.
//
// The step's Text is the redirection as bash reads it ("> 'a b'").
func Redirect(target string, write bool, dir string, p *approvals.Policy) approvals.Step {
	s, _ := RedirectJudged(target, write, dir, p)
	return s
}

// RedirectJudged is Redirect that also returns the one judgement of target
// its effects rest on: whoever opens the target opens that real path, never
// a second resolution of the name, which a step running beside it could have
// changed in between.
func RedirectJudged(target string, write bool, dir string, p *approvals.Policy) (approvals.Step, approvals.Judgement) {
	c := newClassifier(nil, p)
	op := "<"
	if write {
		op = ">"
	}
	text := op + " " + approvals.Show([]string{target})
	if _, _, ok := Connection(target); ok {
		c.add(approvals.Net)
		return c.step(text), approvals.Judgement{Written: target}
	}
	j, ok := c.judge(dir, target)
	if write {
		c.written(j, ok)
	} else if ok {
		c.add(approvals.Read)
		c.readJudged(j, ok)
	}
	return c.step(text), j
}

// Connection splits bash's /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT into
// the network ("tcp", "udp") and the address; ok is false for any other
// name.
func Connection(target string) (network, address string, ok bool) {
	for _, network := range []string{"tcp", "udp"} {
		rest, found := strings.CutPrefix(target, "/dev/"+network+"/")
		if !found {
			continue
		}
		host, port, found := strings.Cut(rest, "/")
		if !found || host == "" || port == "" || strings.Contains(port, "/") {
			return "", "", false
		}
		return network, net.JoinHostPort(host, port), true
	}
	return "", "", false
}

// classifier gathers the effects and paths of one step.
type classifier struct {
	p     *approvals.Policy
	env   expand.Environ // nil: the policy's environment
	eff   approvals.Effects
	paths []approvals.StepPath
	depth int       // wrapper nesting, bounded so a crafted argv cannot recurse forever
	vars  *[]string // changedVars, once found: env does not change
}

func newClassifier(env expand.Environ, p *approvals.Policy) *classifier {
	return &classifier{p: p, env: env}
}

func (c *classifier) step(text string) approvals.Step {
	return approvals.Step{Text: text, Effects: c.eff, Paths: c.paths}
}

func (c *classifier) add(es ...approvals.Effect) { c.eff |= approvals.Of(es...) }

// judge looks at one word as a path. It records the path when it exists or
// is anything but inside, and returns the judgement.
func (c *classifier) judge(dir, word string) (approvals.Judgement, bool) {
	if word == "" || word == "-" || strings.ContainsRune(word, 0) {
		return approvals.Judgement{}, false
	}
	j := c.p.ExamineForProgram(dir, word)
	if j.Class == approvals.PathHarmless {
		return j, false
	}
	if j.Exists || j.Class != approvals.PathInside {
		for _, sp := range c.paths {
			if sp.Path == word && sp.Real == j.Path {
				return j, true
			}
		}
		c.paths = append(c.paths, approvals.StepPath{Path: word, Real: j.Path, Class: j.Class, HoldsSecret: j.HoldsSecret, Private: j.Private})
	}
	return j, true
}

// read judges a word the command reads or merely names: a word that is or
// holds a secret adds secret, and a private one (in the home, which the
// kernel holds back without outside) adds outside. A number that names no
// file is a count or a size (head -n 3, sleep 0.5, head -c 1K in ~/.ssh),
// not a path.
func (c *classifier) read(dir, word string) {
	if c.isCount(dir, word) {
		return
	}
	c.readJudged(c.judge(dir, word))
}

// isCount reports whether word is a number that names no file from dir.
func (c *classifier) isCount(dir, word string) bool {
	return isNumber(word) && !c.p.ExamineForProgram(dir, word).Exists
}

// readDefault judges a configuration file a program reads of itself,
// unnamed (~/.curlrc): a secret one asks, but a private one adds nothing,
// since the kernel keeps it from a step without outside and the program
// goes without it, as without the file.
func (c *classifier) readDefault(dir, file string) {
	if j, ok := c.judge(dir, file); ok && j.HoldsSecret {
		c.add(approvals.Secret)
	}
}

// readJudged adds what reading a judged path needs beyond read.
func (c *classifier) readJudged(j approvals.Judgement, ok bool) {
	switch {
	case !ok:
	case j.HoldsSecret:
		c.add(approvals.Secret)
	case j.Private:
		c.add(approvals.Outside)
	}
}

// write judges a word of a command that writes: by its class it adds
// outside, protected or secret, and secret when it holds one.
func (c *classifier) write(dir, word string) {
	c.written(c.judge(dir, word))
}

// written adds the effects of writing a judged word (ok is judge's
// answer).
func (c *classifier) written(j approvals.Judgement, ok bool) {
	if !ok {
		return
	}
	c.add(approvals.Write)
	switch j.Class {
	case approvals.PathOutside:
		c.add(approvals.Outside)
	case approvals.PathProtected:
		c.add(approvals.Protected)
	case approvals.PathSecret:
		c.add(approvals.Secret)
	}
	if j.HoldsSecret {
		c.add(approvals.Secret)
	}
}

// words judges every word, as written paths when write is set.
func (c *classifier) words(dir string, ws []string, write bool) {
	for _, w := range ws {
		if write {
			c.write(dir, w)
		} else {
			c.read(dir, w)
		}
	}
}

// anyWords judges every word of an argv the table does not know: each
// operand, each option value after '=', as a read (a secret word asks).
func (c *classifier) anyWords(dir string, args []string) {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			if _, v, ok := strings.Cut(a, "="); ok {
				c.read(dir, v)
			}
			continue
		}
		if _, v, ok := strings.Cut(a, "="); ok && isName(a[:strings.IndexByte(a, '=')]) {
			c.read(dir, v)
		}
		c.read(dir, a)
	}
}

// readsCwd judges the working directory of a command that reads it because it
// names no path.
func (c *classifier) readsCwd(dir string) { c.read(dir, ".") }

// maxWalk bounds the entries linksInto looks at.
const maxWalk = 5000

// linksInto judges what a recursive command that follows symlinks reaches
// under root: each symlink's target, as a read (a link into ~/.ssh asks).
// It looks at maxWalk entries at most.
func (c *classifier) linksInto(dir, root string) {
	base := c.p.ExamineForProgram(dir, root)
	if base.HoldsSecret || !base.IsDir {
		return
	}
	n := 0
	_ = c.p.WalkDir(base.RealPath, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > maxWalk {
			return filepath.SkipAll
		}
		if d.Type()&fs.ModeSymlink != 0 {
			c.read(dir, path)
		}
		return nil
	})
}

// maxDepth bounds wrapper nesting (env env env … rm).
const maxDepth = 16

// command classifies one argv run from dir.
func (c *classifier) command(argv []string, dir string) {
	if len(argv) == 0 {
		return
	}
	if c.depth > maxDepth {
		c.eff = approvals.All
		return
	}
	c.depth++
	defer func() { c.depth-- }()
	if c.depth == 1 && len(c.changedVars()) > 0 {
		c.add(approvals.Exec)
	}
	name, args := argv[0], argv[1:]
	if !strings.Contains(name, "/") {
		if r, ok := table[name]; ok {
			r(c, args, dir)
			return
		}
	} else {
		// The shell runs that file, whatever its name.
		c.read(dir, name)
	}
	c.add(approvals.Exec)
	if c.isGit(dir, name) {
		// git under another name (a link, git-core's git-SUB): judged as
		// git, which takes a name git-SUB as git SUB.
		if sub, ok := strings.CutPrefix(filepath.Base(name), "git-"); ok {
			args = append([]string{sub}, args...)
		}
		gitRow(c, args, dir)
		return
	}
	c.anyWords(dir, args)
}

// isGit reports whether the program the shell runs for name (a path, or
// a name found on PATH) is git: its real file, links followed, is named git.
func (c *classifier) isGit(dir, name string) bool {
	paths := []string{name}
	if !strings.Contains(name, "/") {
		paths = nil
		for _, d := range filepath.SplitList(c.getenv("PATH")) {
			if d == "" {
				d = "."
			}
			paths = append(paths, filepath.Join(d, name))
		}
	}
	for _, p := range paths {
		if j := c.p.ExamineForProgram(dir, p); j.Exists && !j.IsDir {
			return filepath.Base(j.Path) == "git"
		}
	}
	return false
}

// programVars are the variables that make a program load or run another
// program, or read configuration that does: an assignment prefix or an export
// of one of them makes every later step exec, and the question names it with
// its value. Each is here because a program tandem classifies as reading
// (cat, less, git status, curl, jq, tar…) or an interpreter honours it:
// the dynamic loader (LD_*, DYLD_*, GCONV_PATH, LOCPATH, NLSPATH,
// GLIBC_TUNABLES, MALLOC_*), shells' startup files (BASH_ENV, ENV, ZDOTDIR),
// where programs are found and configured (PATH, HOME, XDG_CONFIG_HOME,
// TMPDIR, CURL_HOME, WGETRC, GNUPGHOME, OPENSSL_CONF, OPENSSL_ENGINES,
// OPENSSL_MODULES, KUBECONFIG, DOCKER_CONFIG, AWS_CONFIG_FILE, HGRCPATH,
// RIPGREP_CONFIG_PATH, GREP_OPTIONS, TAR_OPTIONS, MANOPT, MAKEFLAGS,
// MAKEFILES, GOFLAGS, GOENV, GOTOOLCHAIN, RUSTC_WRAPPER,
// RUSTC_WORKSPACE_WRAPPER, CARGO_*, NPM_CONFIG_*), the programs they start
// (PAGER, MANPAGER, SYSTEMD_PAGER, EDITOR, VISUAL, SUDO_EDITOR, FCEDIT,
// SVN_EDITOR, BROWSER, SHELL, SSH_ASKPASS, SUDO_ASKPASS, LESSOPEN,
// LESSCLOSE, LESS*, GIT_*), and the module paths and options of
// interpreters (PYTHONPATH, PYTHONHOME, PYTHONSTARTUP, PYTHONUSERBASE,
// PYTHONBREAKPOINT, NODE_OPTIONS, NODE_PATH, NODE_REPL_EXTERNAL_MODULE,
// PERL5LIB, PERLLIB, PERL5OPT, PERL5DB, RUBYOPT, RUBYLIB, GEM_HOME,
// GEM_PATH, BUNDLE_GEMFILE, JAVA_TOOL_OPTIONS, _JAVA_OPTIONS,
// JDK_JAVA_OPTIONS, CLASSPATH, LUA_INIT, LUA_PATH, LUA_CPATH, PHPRC,
// PHP_INI_SCAN_DIR, JQ_LIBRARY_PATH, VIMINIT, EXINIT, MYVIMRC).
var programVars = map[string]bool{
	"PATH": true, "HOME": true, "XDG_CONFIG_HOME": true, "BASH_ENV": true, "ENV": true, "ZDOTDIR": true,
	"LESSOPEN": true, "LESSCLOSE": true, "LESS": true, "LESSKEY": true, "LESSKEYIN": true,
	"LESSKEY_SYSTEM": true, "LESSKEYIN_SYSTEM": true, "LESSKEY_CONTENT": true, "LESSEDIT": true, "PAGER": true, "MANPAGER": true, "EDITOR": true,
	"VISUAL": true, "SUDO_EDITOR": true, "FCEDIT": true, "SVN_EDITOR": true, "BROWSER": true,
	"SHELL": true, "GCONV_PATH": true, "LOCPATH": true, "NLSPATH": true, "GLIBC_TUNABLES": true,
	"RIPGREP_CONFIG_PATH": true, "GREP_OPTIONS": true, "TAR_OPTIONS": true, "MANOPT": true,
	"MAKEFLAGS": true, "MAKEFILES": true, "PYTHONPATH": true, "PYTHONHOME": true,
	"PYTHONSTARTUP": true, "PYTHONUSERBASE": true, "PYTHONBREAKPOINT": true,
	"PERL5LIB": true, "PERLLIB": true, "PERL5OPT": true, "PERL5DB": true, "RUBYOPT": true, "RUBYLIB": true,
	"GEM_HOME": true, "GEM_PATH": true, "BUNDLE_GEMFILE": true,
	"NODE_OPTIONS": true, "NODE_PATH": true, "NODE_REPL_EXTERNAL_MODULE": true,
	"JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "CLASSPATH": true,
	"LUA_INIT": true, "LUA_PATH": true, "LUA_CPATH": true, "PHPRC": true, "PHP_INI_SCAN_DIR": true,
	"VIMINIT": true, "EXINIT": true, "MYVIMRC": true,
	"JQ_LIBRARY_PATH": true, "CURL_HOME": true, "WGETRC": true, "GNUPGHOME": true,
	"OPENSSL_CONF": true, "OPENSSL_ENGINES": true, "OPENSSL_MODULES": true,
	"KUBECONFIG": true, "DOCKER_CONFIG": true, "AWS_CONFIG_FILE": true, "HGRCPATH": true,
	"GOFLAGS": true, "GOENV": true, "GOTOOLCHAIN": true, "RUSTC_WRAPPER": true, "RUSTC_WORKSPACE_WRAPPER": true,
	"SYSTEMD_PAGER": true, "TMPDIR": true, "SSH_ASKPASS": true, "SUDO_ASKPASS": true,
}

// programVarPrefixes are families of such variables. npm reads its
// npm_config_* variables in any case, so the prefix is matched upper-cased.
var programVarPrefixes = []string{"LD_", "DYLD_", "GIT_", "MALLOC_", "CARGO_", "NPM_CONFIG_"}

func isProgramVar(name string) bool {
	if programVars[name] {
		return true
	}
	up := strings.ToUpper(name)
	for _, p := range programVarPrefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	return false
}

// changedVars are the program variables the step's environment sets to a
// value other than the session's own, as sorted NAME=value entries: each
// makes the step exec, and the question shows it.
func (c *classifier) changedVars() []string {
	if c.env == nil {
		return nil
	}
	if c.vars != nil {
		return *c.vars
	}
	var vars []string
	c.env.Each(func(name string, vr expand.Variable) bool {
		if vr.IsSet() && isProgramVar(name) {
			if v := vr.String(); v != c.p.Env(name) || !c.p.HasEnv(name) {
				vars = append(vars, name+"="+v)
			}
		}
		return true
	})
	sort.Strings(vars)
	c.vars = &vars
	return vars
}

// isNumber reports whether a word reads as a number: an optional sign,
// digits and dots, and a unit of up to three letters or '%' (3, -1, 0.5,
// 10K, 5s, 50%).
func isNumber(s string) bool {
	s = strings.TrimLeft(s, "+-")
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	s = strings.TrimLeft(s, "0123456789.")
	if len(s) > 3 {
		return false
	}
	for _, r := range s {
		if !(r == '%' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// cleanDir joins a directory word to dir.
func cleanDir(dir, d string) string {
	if filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	return filepath.Join(dir, d)
}
