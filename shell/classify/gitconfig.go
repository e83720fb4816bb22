package classify

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"

	"github.com/tandemdev/tandem/approvals"
)

// A repository's config names programs git runs later, outside any step
// (core.fsmonitor, core.hooksPath, filters, aliases). So every git command
// that writes it is judged a write of that file, which is protected: asked
// up front. Besides git config, these are the everyday forms that write it
// (found by running git 2.39 with the file read-only): upstreams
// (branch -u, push -u, --track, a branch made from a remote-tracking one,
// switch or checkout guessing a remote branch), a branch renamed, copied
// or deleted with its section (git rewrites the file for -m even when no
// section moves), remotes, submodules and sparse checkouts.

// gitRepo is the repository a git command works on, as it is now.
type gitRepo struct {
	c      *classifier
	gitDir string // "" when none was found
	common string // where config and refs live: a linked worktree's common directory, else gitDir
	dir    string // the command's working directory
}

// repoOf finds the repository as git does: the directory --git-dir or
// GIT_DIR names, else the first .git (a directory, or a file naming one)
// from the working directory up.
func (c *classifier) repoOf(g gitLine) gitRepo {
	r := gitRepo{c: c, dir: g.dir, gitDir: g.gitDir}
	for d := g.dir; r.gitDir == "" && filepath.IsAbs(d); d = filepath.Dir(d) {
		j := c.p.ExamineForProgram(d, ".git")
		switch {
		case j.IsDir:
			r.gitDir = filepath.Join(d, ".git")
		case j.Exists:
			text, _ := c.textOf(d, ".git")
			if dir, ok := strings.CutPrefix(strings.TrimSpace(text), "gitdir:"); ok {
				r.gitDir = cleanDir(d, strings.TrimSpace(dir))
			}
		}
		if d == "/" {
			break
		}
	}
	r.common = r.gitDir
	if r.gitDir != "" {
		if text, ok := c.textOf(r.gitDir, "commondir"); ok {
			r.common = cleanDir(r.gitDir, strings.TrimSpace(text))
		}
	}
	return r
}

// config is the repository's config file; without a repository, the one
// git init would make in the working directory.
func (r gitRepo) config() string {
	if r.common == "" {
		return filepath.Join(r.dir, ".git", "config")
	}
	return filepath.Join(r.common, "config")
}

// worktreeConfig is the file git config --worktree writes.
func (r gitRepo) worktreeConfig() string {
	if r.gitDir == "" {
		return filepath.Join(r.dir, ".git", "config.worktree")
	}
	return filepath.Join(r.gitDir, "config.worktree")
}

// ref reports whether the repository holds ref (refs/heads/x), loose or
// packed; remote "*" stands for any one remote in refs/remotes/*/NAME.
// unknown means the refs could not be read (reftable, an oversized
// packed-refs), so the answer may be wrong.
func (r gitRepo) ref(ref string) (has, unknown bool) {
	if r.common == "" {
		return false, false
	}
	if r.c.p.ExamineForProgram(r.common, "reftable").Exists {
		return false, true
	}
	loose := []string{ref}
	if name, ok := strings.CutPrefix(ref, "refs/remotes/*/"); ok {
		loose = nil
		ents, _ := r.c.p.ReadDir(r.c.p.ExamineForProgram(r.common, "refs/remotes").RealPath)
		for _, e := range ents {
			loose = append(loose, "refs/remotes/"+e.Name()+"/"+name)
		}
	}
	for _, l := range loose {
		if j := r.c.p.ExamineForProgram(r.common, l); j.Exists && !j.IsDir {
			return true, false
		}
	}
	j := r.c.p.ExamineForProgram(r.common, "packed-refs")
	if !j.Exists {
		return false, false
	}
	b, err := r.c.p.ReadFile(j.RealPath, 8*maxText+1)
	if err != nil || len(b) > 8*maxText {
		return false, true
	}
	pattern := strings.Replace(regexp.QuoteMeta(" "+ref), `/\*/`, `/[^/\n]+/`, 1)
	return regexp.MustCompile(`(?m)` + pattern + `$`).Match(b), false
}

// remoteTracking reports whether a start point names a remote-tracking
// branch (a branch made from one gets it as its upstream), or may.
func (r gitRepo) remoteTracking(start string) bool {
	if strings.Contains(start, "@{") {
		return true // @{upstream}, @{push}
	}
	name := strings.TrimPrefix(strings.TrimPrefix(start, "refs/"), "remotes/")
	for _, ref := range []string{"refs/remotes/" + name, "refs/remotes/" + name + "/HEAD"} {
		if has, unknown := r.ref(ref); has || unknown {
			return true
		}
	}
	return false
}

// guessesRemote reports whether switch or checkout NAME makes NAME from a
// remote's branch of that name (and sets it as the upstream), or may.
func (r gitRepo) guessesRemote(name string) bool {
	if local, unknown := r.ref("refs/heads/" + name); unknown {
		return true
	} else if local {
		return false
	}
	has, unknown := r.ref("refs/remotes/*/" + name)
	return has || unknown
}

// branchSection reports whether the config has a section for branch name
// (deleting the branch removes it); true when that cannot be known.
func (r gitRepo) branchSection(name string) bool {
	text, ok := r.c.textOf("/", r.config())
	if !ok {
		return r.c.p.ExamineForProgram("/", r.config()).Exists
	}
	cfg, ok := decodeGitConfig(text)
	// A name is a subsection, whose case counts, and quoted in the file
	// with its escapes (`[branch "q\"b"]`).
	return !ok || cfg.Section("branch").HasSubsection(name)
}

// decodeGitConfig parses a config file's text; false when the parser cannot
// read it (a form git reads, such as a key on its section's line, or the
// old `[branch.name]`): then whatever the caller looks for may be there.
func decodeGitConfig(text string) (*gitconfig.Config, bool) {
	cfg := gitconfig.New()
	if gitconfig.NewDecoder(strings.NewReader(text)).Decode(cfg) != nil {
		return nil, false
	}
	return cfg, true
}

// The options of the subcommands that may write the config, as their
// parse-options reads them.
var (
	gitBranchOpts = opts{short: "dDmMcCfrlaqvtiu:", long: []string{"delete", "create-reflog", "force", "move",
		"copy", "remotes", "all", "list", "quiet", "verbose", "track?", "no-track", "set-upstream-to=",
		"unset-upstream", "edit-description", "contains?", "no-contains?", "merged?", "no-merged?", "points-at=",
		"sort=", "format=", "color?", "no-color", "column?", "no-column", "abbrev?", "no-abbrev", "show-current",
		"ignore-case", "omit-empty", "recurse-submodules", "no-create-reflog"}}
	gitCheckoutOpts = opts{short: "qfmb:B:ldt23p", long: []string{"quiet", "force", "merge", "detach", "track?",
		"no-track", "orphan=", "ours", "theirs", "patch", "conflict=", "guess", "no-guess", "overlay", "no-overlay",
		"pathspec-from-file=", "pathspec-file-nul", "recurse-submodules?", "no-recurse-submodules", "progress",
		"no-progress", "ignore-other-worktrees", "ignore-skip-worktree-bits", "overwrite-ignore", "no-overwrite-ignore"}}
	gitSwitchOpts = opts{short: "c:C:dtfmq", long: []string{"create=", "force-create=", "detach", "track?", "no-track",
		"guess", "no-guess", "force", "discard-changes", "merge", "quiet", "orphan=", "conflict=", "progress",
		"no-progress", "recurse-submodules?", "no-recurse-submodules", "ignore-other-worktrees"}}
	gitWorktreeAddOpts = opts{short: "fdb:B:q", long: []string{"force", "detach", "checkout", "no-checkout",
		"lock", "reason=", "orphan", "track", "no-track", "guess-remote", "no-guess-remote", "quiet"}}
	gitCloneOpts = opts{short: "vqlsnc:o:b:u:j:", long: []string{"verbose", "quiet", "progress", "no-checkout",
		"bare", "mirror", "local", "no-hardlinks", "shared", "recurse-submodules?", "jobs=", "template=",
		"reference=", "reference-if-able=", "dissociate", "origin=", "branch=", "upload-pack=", "depth=",
		"shallow-since=", "shallow-exclude=", "single-branch", "no-single-branch", "no-tags", "shallow-submodules",
		"separate-git-dir=", "config=", "server-option=", "ipv4", "ipv6", "filter=", "also-filter-submodules",
		"remote-submodules", "sparse", "reject-shallow", "bundle-uri="}}
	gitPushOpts = opts{short: "vqnfud46o:", long: []string{"set-upstream", "repo=", "all", "mirror", "delete",
		"tags", "dry-run", "porcelain", "force", "force-with-lease?", "force-if-includes", "recurse-submodules=",
		"thin", "no-thin", "receive-pack=", "exec=", "push-option=", "verbose", "quiet", "progress", "no-verify",
		"verify", "follow-tags", "signed?", "atomic", "ipv4", "ipv6", "prune"}}
)

// gitConfigWritten is the config file a git command writes: "" when it
// writes none.
func (c *classifier) gitConfigWritten(sub string, rest []string, g gitLine) string {
	// Found once, when first needed: it walks up the directories and reads
	// .git files.
	var found *gitRepo
	repo := func() gitRepo {
		if found == nil {
			r := c.repoOf(g)
			found = &r
		}
		return *found
	}
	operand := func() string {
		for _, a := range rest {
			if !strings.HasPrefix(a, "-") {
				return a
			}
		}
		return ""
	}
	switch sub {
	case "config":
		return gitConfigWrites(rest, c.getenv("HOME"), repo())
	case "remote":
		switch operand() {
		case "add", "rm", "remove", "rename", "set-url", "set-branches":
			return repo().config()
		}
	case "submodule":
		switch operand() {
		case "", "status", "summary", "foreach":
		default:
			return repo().config()
		}
	case "sparse-checkout":
		if operand() != "list" {
			return repo().config()
		}
	case "maintenance":
		switch operand() {
		case "register", "unregister", "start", "stop":
			// maintenance.repo goes into the user's global config.
			return filepath.Join(c.getenv("HOME"), ".gitconfig")
		}
	case "push":
		if p := gitPushOpts.parse(rest); p.set("-u") || p.set("--set-upstream") {
			return repo().config()
		}
	case "fetch", "pull":
		if hasAnyOpt(rest, "--set-upstream") {
			return repo().config()
		}
	case "branch":
		if gitBranchWritesConfig(gitBranchOpts.parse(rest), gitBranchWrites(rest), repo) {
			return repo().config()
		}
	case "checkout", "switch":
		o, create := gitCheckoutOpts, []string{"-b", "-B"}
		if sub == "switch" {
			o, create = gitSwitchOpts, []string{"-c", "-C", "--create", "--force-create"}
		}
		if gitSwitchWritesConfig(o.parse(rest), create, repo) {
			return repo().config()
		}
	case "clone":
		// A new repository's config is git's own, unless the command line
		// adds to it: keys (-c, --config) or hooks from a template.
		p := gitCloneOpts.parse(rest)
		if !p.set("-c") && !p.set("--config") && !p.set("--template") {
			return ""
		}
		if sep := p.val("--separate-git-dir"); sep != "" {
			return filepath.Join(sep, "config")
		}
		target := ""
		switch len(p.ops) {
		case 0:
			return ""
		case 1:
			target = strings.TrimSuffix(filepath.Base(strings.TrimRight(p.ops[0], "/")), ".git")
		default:
			target = p.ops[1]
		}
		return filepath.Join(target, ".git", "config")
	case "worktree":
		if operand() == "add" {
			p := gitWorktreeAddOpts.parse(rest[slices.Index(rest, "add")+1:])
			if gitWorktreeAddWritesConfig(p, repo) {
				return repo().config()
			}
		}
	}
	return ""
}

// tracks reports whether options ask for an upstream.
func tracks(p parsed) bool {
	return (p.set("-t") || p.set("--track")) && !p.set("--no-track")
}

// gitBranchWritesConfig reports whether git branch writes the config: it
// does when it sets or unsets an upstream, renames or copies a branch (git
// rewrites the config even when no section moves), edits a description,
// deletes a branch that has a section, or makes a branch from a
// remote-tracking one. changes says it does more than list.
func gitBranchWritesConfig(p parsed, changes bool, repo func() gitRepo) bool {
	for _, k := range []string{"-u", "--set-upstream-to", "--unset-upstream", "--edit-description", "-m", "-M",
		"-c", "-C", "--move", "--copy"} {
		if p.set(k) {
			return true
		}
	}
	if !changes {
		return false
	}
	if tracks(p) {
		return true
	}
	if p.set("-d") || p.set("-D") || p.set("--delete") {
		if p.set("-r") || p.set("--remotes") {
			return false
		}
		r := repo()
		for _, b := range p.ops {
			if r.branchSection(b) {
				return true
			}
		}
		return false
	}
	return len(p.ops) == 2 && !p.set("--no-track") && repo().remoteTracking(p.ops[1])
}

// gitSwitchWritesConfig reports whether git switch or checkout writes the
// config: it does when it asks for an upstream, makes a branch (the create
// options) from a remote-tracking one, or makes one by guessing a remote's
// branch of the name given.
func gitSwitchWritesConfig(p parsed, create []string, repo func() gitRepo) bool {
	if tracks(p) {
		return true
	}
	if p.set("--no-track") || p.set("-d") || p.set("--detach") || p.set("--orphan") {
		return false
	}
	for _, k := range create {
		if p.set(k) {
			return len(p.ops) > 0 && repo().remoteTracking(p.ops[0])
		}
	}
	return len(p.ops) == 1 && !p.set("--no-guess") && !p.set("-p") && !p.set("--patch") && repo().guessesRemote(p.ops[0])
}

// gitWorktreeAddWritesConfig reports whether git worktree add PATH [START]
// writes the config: it does with a new branch (-b, -B) from a
// remote-tracking start, or when it guesses a remote's branch.
func gitWorktreeAddWritesConfig(p parsed, repo func() gitRepo) bool {
	if p.set("--track") || p.set("--guess-remote") {
		return !p.set("--no-track")
	}
	if p.set("--no-track") || p.set("-d") || p.set("--detach") || len(p.ops) < 2 {
		return false
	}
	if p.set("-b") || p.set("-B") {
		return repo().remoteTracking(p.ops[1])
	}
	return repo().guessesRemote(p.ops[1])
}

// gitAlias judges what an alias given on the command line (-c alias.NAME=…)
// expands to: a '!' alias is a shell command git runs with sh, any other
// is a git command line. git refuses a loop; depth bounds one.
func (c *classifier) gitAlias(value string, rest []string, g gitLine, depth int) {
	if depth >= maxDepth {
		c.add(approvals.Exec)
		return
	}
	if script, ok := strings.CutPrefix(value, "!"); ok {
		c.add(approvals.Exec)
		c.script(script, g.dir, langOf("sh"))
		c.anyWords(g.dir, rest)
		return
	}
	words, ok := splitGitCmdline(value)
	if !ok {
		return // git refuses it
	}
	c.git(append(words, rest...), g, depth+1)
}

// splitGitCmdline splits an alias into words as git's split_cmdline does:
// at white space outside quotes; ' and " quote, and a backslash outside
// single quotes takes the next character as it is. ok is false when git
// refuses the line (an open quote, a trailing backslash).
func splitGitCmdline(s string) (words []string, ok bool) {
	var w strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote == 0 && strings.IndexByte(" \t\n\v\f\r", ch) >= 0:
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
			continue
		case quote == 0 && (ch == '\'' || ch == '"'):
			quote = ch
		case ch == quote:
			quote = 0
		default:
			if ch == '\\' && quote != '\'' {
				i++
				if i == len(s) {
					return nil, false
				}
				ch = s[i]
			}
			w.WriteByte(ch)
		}
		inWord = true
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, true
}

// getenv is a variable of the step's environment.
func (c *classifier) getenv(name string) string {
	if c.env == nil {
		return c.p.Env(name)
	}
	return c.env.Get(name).String()
}

// gitOverSSH reports whether a git command that talks to a remote reaches
// it over ssh: an operand that is an ssh URL, or a remote the repository's
// config gives an ssh URL (the one named, or, when the command names none,
// any). ssh then signs with the user's keys.
func (c *classifier) gitOverSSH(sub string, rest []string, g gitLine) bool {
	if (sub == "remote" || sub == "submodule") && len(rest) > 0 {
		rest = rest[1:] // remote update, remote show NAME, …
	}
	named := ""
	for _, a := range rest {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if sshURL(a) {
			return true
		}
		if named == "" {
			named = a
		}
	}
	text, ok := c.textOf("/", c.repoOf(g).config())
	if !ok {
		return false
	}
	cfg, ok := decodeGitConfig(text)
	if !ok {
		return true // asked, as if it named ssh
	}
	for _, remote := range cfg.Section("remote").Subsections {
		if named != "" && named != remote.Name {
			continue
		}
		for _, u := range append(remote.Options.GetAll("url"), remote.Options.GetAll("pushurl")...) {
			if sshURL(u) {
				return true
			}
		}
	}
	return false
}

// sshURL reports whether a git URL goes over ssh: an ssh scheme, or git's
// scp-like form, [user@]host:path, where a colon comes before any slash.
func sshURL(u string) bool {
	for _, scheme := range []string{"ssh://", "git+ssh://", "ssh+git://"} {
		if strings.HasPrefix(u, scheme) {
			return true
		}
	}
	if strings.Contains(u, "://") {
		return false
	}
	host, _, ok := strings.Cut(u, ":")
	return ok && host != "" && !strings.Contains(host, "/")
}
