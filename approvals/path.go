package approvals

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PathClass is what a real path is to the policy. The first class that
// applies wins, in the order Secret, Protected, Inside, Scratch, Outside.
type PathClass uint8

const (
	// PathInside is a path under a workspace root that no secret or
	// protected rule covers.
	PathInside PathClass = iota
	// PathOutside is every other path, including every path whose
	// symlinks loop and that no secret or protected rule covers.
	PathOutside
	// PathProtected is a .git or .tandem directory, a directory on PATH,
	// what a later shell, login, editor or git runs (~/.bashrc, ~/.profile,
	// ~/.vimrc, ~/.gitconfig, autostart entries, systemd user units,
	// crontabs), or an ancestor of a protected or secret entry (moving or
	// removing the ancestor moves or removes the entry).
	PathProtected
	// PathSecret is a credential store, or under one (stores.go lists
	// them); an agent's or daemon's socket (ssh-agent, gpg-agent, D-Bus,
	// docker); what carries tandem's execution gates (its config, the
	// editors' user settings) and tandem's state (chats, logs, the
	// approved MCP servers); and another process's environment, arguments
	// and memory (/proc/PID/environ, …). /proc and each process's
	// directory there hold secrets.
	PathSecret
	// PathHarmless is /dev/null, /dev/stdout, /dev/stderr. Reading or
	// writing them has no effect and never causes a question.
	PathHarmless
	// PathScratch is a path outside every root but under a scratch place
	// (the temporary directory, the build caches): programs write there as a
	// matter of course, so a write there is a plain write, not outside.
	PathScratch
)

func (c PathClass) String() string {
	switch c {
	case PathInside:
		return "inside"
	case PathOutside:
		return "outside"
	case PathProtected:
		return "protected"
	case PathSecret:
		return "secret"
	case PathHarmless:
		return "harmless"
	case PathScratch:
		return "scratch"
	}
	return "unknown"
}

// MarshalText writes the class name, so Question encodes readably.
func (c PathClass) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// MaxLinks is how many symlinks a resolution follows before it calls the path
// a loop, as Linux does.
const MaxLinks = 40

// RealPath is a path resolved on the filesystem: every symlink on its existing
// part followed (dangling ones too, since a write through them creates the
// target), ".." taken from the real directory, the part that does not exist
// kept as written.
type RealPath struct {
	Path string
	// Looped is true when more than MaxLinks symlinks were met: the rest of
	// the path is not trusted and the path is never Inside.
	Looped bool
	// Link is the real parent joined with the written last name when the last
	// name is itself a symlink: a command that replaces or removes the link
	// acts there, not on the target. Empty otherwise.
	Link string
	// Exists is true when the whole path exists (through its symlinks);
	// IsDir when it is a directory.
	Exists, IsDir bool
}

// Resolve makes path real as tandem itself sees it. A relative path is
// taken from dir.
func Resolve(dir, path string) RealPath { return resolve(dir, path, false, nil) }

// ResolveForProgram makes path real as a program started in dir sees it:
// /proc/self and /proc/thread-self (and /dev/fd, /dev/stdin through them)
// are that program's process, not tandem's. Its cwd is dir and its root /;
// its other entries (fd, exe, environ, …) are the program's own and are
// kept as written under ProgramProc, never read through tandem's.
func ResolveForProgram(dir, path string) RealPath { return resolve(dir, path, true, nil) }

// ProgramProc is the /proc directory of the program a step starts, as
// ResolveForProgram names it.
const ProgramProc = "/proc/self"

// InProgramProc reports whether a path ResolveForProgram made is one of the
// program's own /proc entries: no file tandem may open for it.
func InProgramProc(path string) bool { return Under(path, ProgramProc) }

func resolve(dir, path string, program bool, memo lstatMemo) RealPath {
	if !filepath.IsAbs(path) {
		// Not filepath.Join: it would take ".." lexically, before the
		// links on the way are followed.
		path = dir + "/" + path
	}
	var r RealPath
	parts := splitPath(path)
	cur := "/"
	links := 0
	isDir := true
	// follow continues the walk at a link's target; false when the links
	// looped and r holds the rest of the path.
	follow := func(next, target string) bool {
		links++
		if links > MaxLinks {
			r.Looped = true
			r.Path = filepath.Join(append([]string{next}, parts...)...)
			return false
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		parts = append(splitPath(target), parts...)
		return true
	}
	for len(parts) > 0 {
		c := parts[0]
		parts = parts[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if program {
			switch {
			case next == ProgramProc || next == "/proc/thread-self" || cur == ProgramProc+"/task":
				cur = ProgramProc
				continue
			case next == ProgramProc+"/cwd":
				if !follow(next, dir) {
					return r
				}
				continue
			case next == ProgramProc+"/root":
				if !follow(next, "/") {
					return r
				}
				continue
			case next == ProgramProc+"/fd" || next == ProgramProc+"/task":
				cur = next
				continue
			case InProgramProc(cur):
				r.Path, r.Exists = filepath.Join(append([]string{next}, parts...)...), true
				return r
			}
		}
		fi, err := memo.lstat(next)
		if err != nil {
			r.Path = filepath.Join(append([]string{next}, parts...)...)
			return r
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur, isDir = next, fi.IsDir()
			continue
		}
		target, err := os.Readlink(next)
		if err != nil {
			r.Path = filepath.Join(append([]string{next}, parts...)...)
			return r
		}
		if restIsLast(parts) && r.Link == "" {
			r.Link = next
		}
		if !follow(next, target) {
			return r
		}
	}
	r.Path, r.Exists, r.IsDir = cur, true, isDir
	return r
}

// restIsLast reports whether nothing but "" and "." remain: the component
// just met is the path's last name.
func restIsLast(parts []string) bool {
	for _, p := range parts {
		if p != "" && p != "." {
			return false
		}
	}
	return true
}

func splitPath(p string) []string { return strings.Split(p, "/") }

// lstatMemo remembers the lstat of each path while a policy is built: its
// hundred entries share their parents (the home directory, ~/.config), and
// each stat is a system call of every tandem command's start. A nil memo
// stats every time.
type lstatMemo map[string]lstatResult

type lstatResult struct {
	fi  fs.FileInfo
	err error
}

func (m lstatMemo) lstat(p string) (fs.FileInfo, error) {
	if m == nil {
		return os.Lstat(p)
	}
	r, ok := m[p]
	if !ok {
		r.fi, r.err = os.Lstat(p)
		m[p] = r
	}
	return r.fi, r.err
}

// Judgement is everything the policy says about one path.
type Judgement struct {
	Written string // the path as the step named it
	RealPath
	Class PathClass
	// HoldsSecret means the path is a secret or an ancestor of one, so
	// reading it recursively (grep -r KEY ~) or removing it reaches a
	// secret.
	HoldsSecret bool
	// Private means the path exists in the home directory outside the roots,
	// the scratch places and the readable places, and holds no secret (a
	// secret read asks as secret). The kernel holds it back from a step
	// without outside, so reading it is outside.
	Private bool
}

// PolicyConfig is what a policy is built from. Every path in it is absolute.
type PolicyConfig struct {
	Roots []string // the workspace roots
	Home  string   // the user's home directory
	// Env is the session's environment as KEY=VALUE. PATH, the XDG_*
	// directories and the credential-file variables come from it.
	Env []string
	// ConfigDir and StateDir are tandem's own directories; empty means
	// $XDG_CONFIG_HOME/tandem and $XDG_STATE_HOME/tandem (their defaults
	// under Home when unset).
	ConfigDir, StateDir string
	// Protected and Secrets add entries: settings files tandem loads, tandem's
	// own credentials. Each covers the path and everything under it.
	Protected, Secrets []string
	// Scratch lists the places outside the roots where a write is not an
	// outside write (DefaultScratch, or the user's shell.writableDirs);
	// each covers the path and everything under it. If nil, there is none.
	Scratch []string
	// Readable lists places in the home that a step may read without the
	// outside effect, beyond the built-in ones (homeReadable): the user's
	// shell.readableDirs.
	Readable []string
}

// Policy judges paths. It is built once per session from its config; its
// entries are made real when it is built.
type Policy struct {
	home    string
	roots   []string
	scratch []string // real paths
	secrets []entry
	// sockets are the agents' and daemons' sockets. They are secret, but
	// unlike secrets they do not make their directories hold a secret: a
	// recursive read cannot read a socket, and /tmp may hold one.
	sockets   []entry
	protected []entry // trees and dirs; named .git/.tandem are matched by name
	// homes is the home directory, held back from reads except for the
	// roots, the scratch places and readable; empty without a home.
	homes, readable []entry
	env             map[string]string
}

type entryKind uint8

const (
	tree   entryKind = iota // the path and everything under it
	dir                     // the path and its direct entries
	prefix                  // siblings whose name starts with the last name, and under them
)

type entry struct {
	path string
	kind entryKind
}

// NewPolicy builds a policy. A relative PATH entry is taken from the first
// root, because a file there can stand in for a command.
func NewPolicy(c PolicyConfig) *Policy {
	p := &Policy{env: map[string]string{}, home: c.Home}
	memo := lstatMemo{}
	for _, kv := range c.Env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			p.env[k] = v
		}
	}
	base := "/"
	for _, r := range c.Roots {
		rp := resolve("/", r, false, memo).Path
		p.roots = append(p.roots, rp)
		if base == "/" {
			base = rp
		}
	}
	for _, d := range c.Scratch {
		if filepath.IsAbs(d) {
			p.scratch = append(p.scratch, resolve("/", d, false, memo).Path)
		}
	}
	home := c.Home
	xdg := func(name, def string) string {
		if v := p.env[name]; filepath.IsAbs(v) {
			return v
		}
		return filepath.Join(home, def)
	}
	cfgHome := xdg("XDG_CONFIG_HOME", ".config")
	stateHome := xdg("XDG_STATE_HOME", ".local/state")
	dataHome := xdg("XDG_DATA_HOME", ".local/share")
	if c.ConfigDir == "" {
		c.ConfigDir = filepath.Join(cfgHome, "tandem")
	}
	if c.StateDir == "" {
		c.StateDir = filepath.Join(stateHome, "tandem")
	}

	addSecret := func(path string, k entryKind) {
		if path == "" || !filepath.IsAbs(path) {
			return
		}
		p.secrets = append(p.secrets, entries(path, k, memo)...)
	}
	// xdgSecret adds rel under an XDG base directory and under its default
	// in the home: many programs use the default whatever the variable says.
	xdgSecret := func(base, def, rel string) {
		addSecret(filepath.Join(home, def, rel), tree)
		if base != filepath.Join(home, def) {
			addSecret(filepath.Join(base, rel), tree)
		}
	}
	if home != "" {
		for _, s := range homeSecrets {
			addSecret(filepath.Join(home, s), tree)
		}
		addSecret(filepath.Join(home, ".cargo/credentials"), prefix)
		for _, s := range configSecrets {
			xdgSecret(cfgHome, ".config", s)
		}
		for _, s := range dataSecrets {
			xdgSecret(dataHome, ".local/share", s)
		}
	}
	for _, name := range envSecrets {
		addSecret(p.env[name], tree)
	}
	for name, rels := range envDirSecrets {
		if d := p.env[name]; d != "" {
			for _, rel := range rels {
				addSecret(filepath.Join(d, rel), tree)
			}
		}
	}
	if d := p.env["CARGO_HOME"]; d != "" {
		addSecret(filepath.Join(d, "credentials"), prefix)
	}
	for _, k := range filepath.SplitList(p.env["KUBECONFIG"]) {
		addSecret(k, tree)
	}
	for _, s := range c.Secrets {
		addSecret(s, tree)
	}
	p.sockets = agentSockets(home, p.env, memo)
	if home != "" && filepath.Clean(home) != "/" {
		p.homes = entries(home, tree, memo)
		for _, r := range readablePlaces(home, p.env, c.Readable) {
			p.readable = append(p.readable, entries(r, tree, memo)...)
		}
	}

	addProtected := func(path string, k entryKind) {
		if path != "" && filepath.IsAbs(path) {
			p.protected = append(p.protected, entries(path, k, memo)...)
		}
	}
	// What carries tandem's execution gates is secret, not merely protected:
	// a user's auto set may hold protected, and a step that could rewrite the
	// user's settings (the auto set, mcp.autoAllow) or the remembered MCP
	// server approvals unasked would widen what runs unasked. tandem's
	// config may also hold MCP server headers, so reading it asks too. Its
	// state (chats, logs) holds what earlier steps read with the user's
	// yes: reading it is reading those secrets again.
	addSecret(c.ConfigDir, tree)
	addSecret(c.StateDir, tree)
	if home != "" {
		for _, d := range editorUserSettings {
			addSecret(filepath.Join(cfgHome, d), tree)
			addSecret(filepath.Join(home, "Library/Application Support", d), tree)
		}
		addSecret(filepath.Join(home, ".vscode-server/data/Machine"), tree)
	}
	if home != "" {
		for _, f := range startupFiles {
			addProtected(filepath.Join(home, f), tree)
		}
		for _, f := range configStartup {
			addProtected(filepath.Join(cfgHome, f), tree)
		}
		addProtected(filepath.Join(dataHome, "systemd/user"), tree)
	}
	if z := p.env["ZDOTDIR"]; z != "" {
		for _, f := range []string{".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout"} {
			addProtected(filepath.Join(z, f), tree)
		}
	}
	for _, d := range CrontabDirs {
		addProtected(d, tree)
	}
	for _, s := range c.Protected {
		addProtected(s, tree)
	}
	for _, d := range filepath.SplitList(p.env["PATH"]) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(base, d)
		}
		addProtected(d, dir)
	}
	for _, r := range p.roots {
		for _, n := range namedDirs {
			addProtected(filepath.Join(r, n), tree)
		}
	}
	return p
}

// entries gives the rule for a path as written (cleaned) and for its real
// path, when they differ: a home reached through a symlink is the same home.
func entries(path string, k entryKind, memo lstatMemo) []entry {
	path = filepath.Clean(path)
	out := []entry{{path, k}}
	var real string
	if k == prefix {
		// A prefix names no file of its own: its directory is resolved.
		real = filepath.Join(resolve("/", filepath.Dir(path), false, memo).Path, filepath.Base(path))
	} else {
		real = resolve("/", path, false, memo).Path
	}
	if real != path {
		out = append(out, entry{real, k})
	}
	return out
}

// editorUserSettings are the editors' user-level settings directories,
// under the XDG config home (or ~/Library/Application Support on macOS).
var editorUserSettings = []string{"Code/User", "Code - Insiders/User", "VSCodium/User", "Cursor/User", "nvim"}

// startupFiles, under the home directory, are run or read as commands by a
// later shell, login, editor or git: writing one is writing a program that
// runs later, unasked.
var startupFiles = []string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".kshrc", ".mkshrc", ".tcshrc", ".cshrc",
	".inputrc", ".xprofile", ".xinitrc", ".xsession", ".xsessionrc", ".vimrc", ".gvimrc", ".exrc",
	".vim", ".emacs", ".emacs.el", ".emacs.d", ".gitconfig"}

// configStartup are the startup files under the XDG config home: fish's and
// emacs's config, autostart entries, systemd user units and environment,
// git's global config.
var configStartup = []string{"fish", "emacs", "autostart", "systemd/user", "environment.d", "git/config"}

// CrontabDirs hold the users' crontabs on Linux (Debian's, Red Hat's) and
// macOS: cron runs them; the crontab program installs them.
var CrontabDirs = []string{"/var/spool/cron/crontabs", "/var/spool/cron", "/usr/lib/cron/tabs"}

// namedDirs are protected wherever they appear: their contents name programs
// git or tandem runs (hooks, config, fsmonitor) or tandem's project settings.
var namedDirs = []string{".git", ".tandem"}

// Env returns the value of a variable in the environment the policy was
// built from ("" when unset). The classifier compares a step's environment
// to it.
func (p *Policy) Env(name string) string { return p.env[name] }

// HasEnv reports whether the policy's environment sets name.
func (p *Policy) HasEnv(name string) bool {
	_, ok := p.env[name]
	return ok
}

// Home returns the user's home directory the policy was built for ("" when
// none is known). It is not always $HOME: when $HOME is not an absolute
// path, it is the passwd entry's home.
func (p *Policy) Home() string { return p.home }

// Roots returns the real workspace roots.
func (p *Policy) Roots() []string { return p.roots }

// Scratch returns the real scratch places: a write under one (and not under
// a secret or protected entry) is a plain write.
func (p *Policy) Scratch() []string { return p.scratch }

// Judge classifies path (relative paths are taken from the first root).
func (p *Policy) Judge(path string) PathClass {
	dir := "/"
	if len(p.roots) > 0 {
		dir = p.roots[0]
	}
	return p.Examine(dir, path).Class
}

// Examine resolves path from dir as tandem sees it (Resolve) and judges
// it. When the last name is a symlink, the worse of the link's and the
// target's class counts: a write can replace the link or write through it.
func (p *Policy) Examine(dir, path string) Judgement { return p.examine(dir, path, false) }

// ExamineForProgram is Examine for a path a program started in dir opens
// (ResolveForProgram): a shell step's words and redirections.
func (p *Policy) ExamineForProgram(dir, path string) Judgement { return p.examine(dir, path, true) }

func (p *Policy) examine(dir, path string, program bool) Judgement {
	if abs := path; filepath.IsAbs(abs) && harmless[filepath.Clean(abs)] {
		return Judgement{Written: path, RealPath: RealPath{Path: filepath.Clean(abs), Exists: true}, Class: PathHarmless}
	}
	r := resolve(dir, path, program, nil)
	j := p.JudgeReal(r)
	j.Written = path
	if r.Link != "" {
		l := p.JudgeReal(RealPath{Path: r.Link, Looped: r.Looped})
		if worse(l.Class, j.Class) {
			j.Class = l.Class
		}
		j.HoldsSecret = j.HoldsSecret || l.HoldsSecret
		j.Private = j.Private && !j.HoldsSecret
	}
	return j
}

// worse orders classes by how much they need a question.
func worse(a, b PathClass) bool { return rank[a] > rank[b] }

var rank = map[PathClass]int{PathHarmless: 0, PathInside: 1, PathScratch: 2, PathOutside: 3, PathProtected: 4, PathSecret: 5}

// harmless targets never cause a question.
var harmless = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true}

// programOutputs are a program's own output streams in its view of /proc:
// writing them is writing its output. (Its standard input is not here: a
// write through it reopens whatever file the input was.)
var programOutputs = map[string]bool{ProgramProc + "/fd/1": true, ProgramProc + "/fd/2": true}

// processSecrets are the entries of a process's /proc directory that show
// what it holds: its environment (tokens), its arguments, its memory.
// Another process's (tandem's, a sibling's, a parent's) are secret.
var processSecrets = map[string]bool{"environ": true, "cmdline": true, "mem": true, "maps": true,
	"smaps": true, "smaps_rollup": true, "numa_maps": true, "pagemap": true, "auxv": true, "stack": true,
	"syscall": true}

// inProcess splits /proc/PID/… and /proc/PID/task/TID/… into the process's
// directory part and the name below it ("" for the directory itself). ok is
// false for any other path; /proc and /proc/PID/task are directories too.
func inProcess(path string) (name string, ok bool) {
	rest, found := strings.CutPrefix(path, "/proc/")
	if !found {
		return "", path == "/proc"
	}
	parts := strings.Split(rest, "/")
	if !isPID(parts[0]) {
		return "", false
	}
	parts = parts[1:]
	if len(parts) > 0 && parts[0] == "task" {
		if len(parts) == 1 {
			return "", true
		}
		if !isPID(parts[1]) {
			return "", false
		}
		parts = parts[2:]
	}
	if len(parts) == 0 {
		return "", true
	}
	return parts[0], true
}

func isPID(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// JudgeReal judges a path that is already real. It does not resolve again: a
// second resolution could lose a loop.
func (p *Policy) JudgeReal(r RealPath) Judgement {
	j := Judgement{Written: r.Path, RealPath: r}
	path := filepath.Clean(r.Path)
	procName, inProc := inProcess(path)
	switch {
	case (harmless[path] || programOutputs[path]) && !r.Looped:
		j.Class = PathHarmless
	case p.covered(p.secrets, path) || p.covered(p.sockets, path) || processSecrets[procName]:
		j.Class, j.HoldsSecret = PathSecret, true
	case p.ancestorOf(p.secrets, path) || inProc && procName == "":
		j.Class, j.HoldsSecret = PathProtected, true
	case p.covered(p.protected, path) || p.named(path) || p.ancestorOf(p.protected, path) || holdsNamed(path):
		j.Class = PathProtected
	case !r.Looped && p.inside(path):
		j.Class = PathInside
	case !r.Looped && p.inScratch(path):
		j.Class = PathScratch
	default:
		j.Class = PathOutside
	}
	// A path that does not exist is not found in the kernel's view either.
	j.Private = r.Exists && !j.HoldsSecret && j.Class != PathHarmless && p.private(path)
	return j
}

// covered reports whether an entry covers path.
func (p *Policy) covered(es []entry, path string) bool {
	for _, e := range es {
		switch e.kind {
		case tree:
			if Under(path, e.path) {
				return true
			}
		case dir:
			if path == e.path || filepath.Dir(path) == e.path {
				return true
			}
		case prefix:
			for a := path; ; a = filepath.Dir(a) {
				if filepath.Dir(a) == filepath.Dir(e.path) && strings.HasPrefix(filepath.Base(a), filepath.Base(e.path)) {
					return true
				}
				if a == "/" {
					break
				}
			}
		}
	}
	return false
}

// ancestorOf reports whether path is a strict ancestor of an entry.
func (p *Policy) ancestorOf(es []entry, path string) bool {
	for _, e := range es {
		if e.path != path && Under(e.path, path) {
			return true
		}
	}
	return false
}

// named reports whether a .git or .tandem name appears in the part of path
// below the root that holds it (the whole path when none does).
func (p *Policy) named(path string) bool {
	rel := path
	for _, r := range p.roots {
		if Under(path, r) {
			rel = strings.TrimPrefix(path, r)
			break
		}
	}
	for _, c := range strings.Split(rel, "/") {
		for _, n := range namedDirs {
			if c == n {
				return true
			}
		}
	}
	return false
}

// holdsNamed reports whether a directory directly holds a .git or .tandem
// entry: removing or moving it removes that entry.
func holdsNamed(path string) bool {
	for _, n := range namedDirs {
		if _, err := os.Lstat(filepath.Join(path, n)); err == nil {
			return true
		}
	}
	return false
}

func (p *Policy) inside(path string) bool {
	for _, r := range p.roots {
		if Under(path, r) {
			return true
		}
	}
	return false
}

func (p *Policy) inScratch(path string) bool {
	for _, d := range p.scratch {
		if Under(path, d) {
			return true
		}
	}
	return false
}

// Under reports whether path is root or below it (both absolute and clean).
// It allocates nothing: the sandbox asks it for every pair of its rules
// each time it plans a program's start.
func Under(path, root string) bool {
	if root == "/" {
		return true
	}
	return strings.HasPrefix(path, root) && (len(path) == len(root) || path[len(root)] == '/')
}
