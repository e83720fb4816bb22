package classify

import (
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/tandemdev/tandem/approvals"
)

// act is what an option does beyond reading what the command names.
type act uint8

const (
	actExec      act = iota + 1 // the option makes the command run a program
	actWrites                   // the option makes the command write what it names
	actWritePath                // the option's value is a file the command writes
)

// spec is one row of the command table.
type spec struct {
	eff   approvals.Effects // the command's own effects (read, write, net)
	write bool              // every word it names may be written (rm, cp, mv, …)
	opts  opts
	acts  map[string]act      // "-o" / "--output" → what it does
	cwd   func(p parsed) bool // reads its working directory because it names no path
	extra func(c *classifier, p parsed, dir string)
}

// row classifies one run of a program: it adds to c the effects of the
// program run with args from dir. The command table holds one per program.
type row func(c *classifier, args []string, dir string)

// run classifies args by the spec: its own effects, the acts of the options
// given, every operand and option value as a path (written ones by class),
// and its working directory when it reads it.
func (s *spec) run(c *classifier, args []string, dir string) {
	p := s.opts.parse(args)
	c.eff |= s.eff
	write := s.write
	var written []string
	for k, vs := range p.has {
		switch s.acts[k] {
		case actExec:
			c.add(approvals.Exec)
		case actWrites:
			write = true
		case actWritePath:
			c.add(approvals.Write)
			written = append(written, vs...)
		}
	}
	if write {
		c.add(approvals.Write)
	}
	c.words(dir, p.ops, write)
	for _, v := range p.vals {
		if !contains(written, v) {
			c.words(dir, []string{v}, write)
		}
	}
	c.words(dir, written, true)
	if s.cwd != nil && s.cwd(p) {
		c.readsCwd(dir)
	}
	for k, vs := range p.has {
		if k == "--files0-from" {
			for _, v := range vs {
				c.filesFrom(dir, v)
			}
		}
	}
	if s.extra != nil {
		s.extra(c, p, dir)
	}
}

// maxText bounds a file the classifier reads to judge a step: a file list,
// a config file.
const maxText = 1 << 20

// textOf is the text of a file a command reads for its list of files or its
// options. A file that does not exist gives none; one tandem cannot read now
// (standard input, a FIFO, an oversized file) may hold anything: exec.
func (c *classifier) textOf(dir, file string) (string, bool) {
	if file == "-" {
		c.add(approvals.Exec)
		return "", false
	}
	b, err := c.p.ReadFile(c.p.ExamineForProgram(dir, file).RealPath, maxText+1)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	if err != nil || len(b) > maxText {
		c.add(approvals.Exec)
		return "", false
	}
	return string(b), true
}

// filesFrom judges a --files0-from list (wc, du, sort, find -files0-from
// read each file it names): a read of the list, and of each name it holds
// now, so a list naming a key asks. The command reads the list when it
// runs, which may hold other names by then (a FIFO, or a step beside it
// rewriting the file): the command reads what tandem cannot see, exec. It
// returns the names.
func (c *classifier) filesFrom(dir, list string) []string {
	c.add(approvals.Exec)
	c.read(dir, list)
	text, ok := c.textOf(dir, list)
	if !ok {
		return nil
	}
	names := strings.Split(strings.TrimSuffix(text, "\x00"), "\x00")
	c.words(dir, names, false)
	return names
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// secretFile records a credential file under the home directory that the
// command reads without naming it; unless always, only when it exists.
func (c *classifier) secretFile(rel string, always bool) {
	home := c.p.Home()
	if home == "" {
		return
	}
	// The file is there when its name is, even as a dangling symlink (the
	// command would follow it): Exists, or a last name that is a link.
	if r := c.p.ExamineForProgram("/", home+"/"+rel); r.Exists || r.Link != "" || always {
		c.read("/", home+"/"+rel)
	}
}

func (s *spec) row() row { return s.run }

// noOperands reports whether the command names no path, and so reads its
// working directory.
func noOperands(p parsed) bool { return len(p.ops) == 0 }

// grepCwd returns the test of whether a recursive grep or rg reads the
// working directory: it does when no path follows its pattern (the first
// operand, unless a pattern option gives it).
func grepCwd(recursive func(parsed) bool, patternOpts ...string) func(parsed) bool {
	return func(p parsed) bool {
		if recursive != nil && !recursive(p) {
			return false
		}
		paths := len(p.ops)
		given := false
		for _, o := range patternOpts {
			given = given || p.set(o)
		}
		if !given {
			paths--
		}
		return paths <= 0
	}
}

var (
	eRead  = approvals.Of(approvals.Read)
	eWrite = approvals.Of(approvals.Write)
)

// pure is a command that reads no file's content but may look at what its
// words name (test -e, which): its words are judged as reads, so one that
// is or holds a secret asks.
func pure(o opts) row { return (&spec{opts: o}).row() }

// inert is a command that never opens or looks at what its words name
// (echo, printf, basename, declare): `echo $HOME` or `echo /` reveals
// nothing a directory holds, so a word asks only when it is itself a
// secret, or a private name of the home (`echo ~/*.txt` shows names the
// kernel keeps from a step without outside).
func inert(c *classifier, args []string, dir string) {
	for _, w := range args {
		if c.isCount(dir, w) {
			continue // sleep 0.5 in ~/.ssh
		}
		j, ok := c.judge(dir, w)
		switch {
		case !ok:
		case j.Class == approvals.PathSecret:
			c.add(approvals.Secret)
		case j.Private:
			c.add(approvals.Outside) // a name in the home, which may have come from a glob
		}
	}
}

func reader(o opts) row { return (&spec{eff: eRead, opts: o}).row() }
func writer(o opts) row { return (&spec{eff: eWrite, write: true, opts: o}).row() }

// table is the command table: the row of every program tandem can
// classify. A program not here is exec.
var table map[string]row

func init() {
	table = map[string]row{}
	for _, n := range []string{"echo", "printf", "true", "false", ":", "sleep", "seq", "yes",
		"basename", "dirname", "expr", "factor", "numfmt", "whoami", "id", "groups", "uname", "arch",
		"nproc", "tty", "locale", "printenv", "shift", "unset", "wait", "exit", "return", "break",
		"continue", "set", "shopt", "read", "getopts", "let", "local", "declare", "typeset", "times",
		"dirs", "jobs", "caller", "logname", "disown", "history", "pwd"} {
		table[n] = inert // pwd ignores its operands
	}
	for _, n := range []string{"test", "[", "getconf", "mapfile", "readarray", "type", "which", "tsort"} {
		table[n] = pure(opts{})
	}
	// cd, pushd and popd change the directory later commands read; what
	// those read is judged when they run, so the change itself reads nothing.
	for _, n := range []string{"cd", "pushd", "popd"} {
		table[n] = func(*classifier, []string, string) {}
	}
	for _, n := range []string{"cat", "tac", "nl", "stat", "cut", "paste", "tr", "fold", "fmt",
		"column", "expand", "unexpand", "rev", "od", "hexdump", "base64", "base32", "basenc", "md5sum",
		"sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum",
		"cmp", "comm", "join", "strings", "readlink", "realpath", "df", "head",
		"tail", "pr", "look", "iconv"} {
		table[n] = reader(opts{})
	}
	table["wc"] = reader(opts{short: "cmlLw", long: []string{"bytes", "chars", "lines", "files0-from=",
		"max-line-length", "words", "total=", "help", "version"}})
	table["cp"] = copyRow(false, true, opts{short: "abdfHilLnPpRrsTuvxZS:t:", long: []string{"archive", "attributes-only",
		"backup?", "copy-contents", "debug", "force", "interactive", "link", "dereference", "no-clobber",
		"no-dereference", "preserve?", "no-preserve=", "parents", "recursive", "reflink?", "remove-destination",
		"sparse=", "strip-trailing-slashes", "symbolic-link", "suffix=", "target-directory=",
		"no-target-directory", "update?", "verbose", "one-file-system", "context?", "keep-directory-symlink",
		"help", "version"}})
	table["mv"] = copyRow(true, false, opts{short: "bfinTuvZS:t:", long: []string{"backup?", "debug", "exchange", "force",
		"interactive", "no-clobber", "no-copy", "strip-trailing-slashes", "suffix=", "target-directory=",
		"no-target-directory", "update?", "verbose", "context", "help", "version"}})
	table["ln"] = copyRow(false, false, opts{short: "bdFfinLPrsTvS:t:", long: []string{"backup?", "directory", "force",
		"interactive", "logical", "no-dereference", "physical", "relative", "symbolic", "suffix=",
		"target-directory=", "no-target-directory", "verbose", "help", "version"}})
	for _, n := range []string{"rm", "rmdir", "touch", "mkdir", "link", "unlink",
		"chmod", "chown", "chgrp", "truncate", "shred", "tee", "mkfifo", "csplit"} {
		table[n] = writer(opts{})
	}
	// split writes the pieces its prefix names; --filter hands each piece
	// to a shell command instead.
	table["split"] = (&spec{eff: eWrite, write: true, opts: opts{short: "a:b:C:del:n:t:ux",
		long: []string{"suffix-length=", "additional-suffix=", "bytes=", "line-bytes=", "numeric-suffixes?",
			"hex-suffixes?", "elide-empty-files", "filter=", "lines=", "number=", "separator=", "unbuffered",
			"verbose", "help", "version"}},
		extra: func(c *classifier, p parsed, dir string) {
			for _, f := range p.has["--filter"] {
				c.userShell(f, dir)
			}
		}}).row()
	table["jq"] = jqRow
	table["crontab"] = crontabRow
	// date sets the clock with -s; hostname sets the host name with an operand.
	table["date"] = (&spec{opts: opts{short: "d:f:r:s:I?R", long: []string{"date=", "file=", "reference=", "set=", "iso-8601?", "rfc-3339=", "utc", "universal", "rfc-email", "debug", "resolution"}},
		acts: map[string]act{"-s": actExec, "--set": actExec}}).row()
	table["hostname"] = func(c *classifier, args []string, dir string) {
		p := opts{short: "F:"}.parse(args)
		if len(p.ops) > 0 || p.set("-F") {
			c.add(approvals.Exec)
		}
		c.words(dir, append(p.ops, p.vals...), false)
	}
	table["ls"] = (&spec{eff: eRead, cwd: noOperands, opts: opts{
		short: "aAbBcCdDfFgGhHiklLmnNopqQrRsStTuUvwxXZ1I:T:w:",
		long: []string{"all", "almost-all", "author", "escape", "block-size=", "ignore-backups", "color?",
			"directory", "dired", "classify?", "file-type", "format=", "full-time", "group-directories-first",
			"no-group", "human-readable", "si", "dereference-command-line", "dereference-command-line-symlink-to-dir",
			"hide=", "hyperlink?", "indicator-style=", "inode", "ignore=", "kibibytes", "dereference",
			"numeric-uid-gid", "literal", "hide-control-chars", "show-control-chars", "quote-name",
			"quoting-style=", "reverse", "recursive", "size", "sort=", "time=", "time-style=", "tabsize=",
			"width=", "context", "zero", "help", "version"}},
		extra: func(c *classifier, p parsed, dir string) {
			if (p.set("-R") || p.set("--recursive")) && (p.set("-L") || p.set("--dereference")) {
				c.followAll(p, dir, noOperands(p), false)
			}
		}}).row()
	table["du"] = (&spec{eff: eRead, cwd: noOperands, opts: opts{
		short: "0abcDhHklLmPsSxB:d:t:X:",
		long: []string{"null", "all", "apparent-size", "block-size=", "bytes", "total", "dereference-args",
			"max-depth=", "files0-from=", "human-readable", "inodes", "dereference", "count-links",
			"no-dereference", "separate-dirs", "si", "summarize", "threshold=", "time?", "time-style=",
			"exclude-from=", "exclude=", "one-file-system", "help", "version"}},
		extra: func(c *classifier, p parsed, dir string) {
			if p.set("-L") || p.set("--dereference") {
				c.followAll(p, dir, noOperands(p), false)
			}
		}}).row()
	// diff compares the files two directories hold by name (every level
	// with -r), reading through the links among them unless told not to.
	table["diff"] = (&spec{eff: eRead, opts: opts{
		short: "abBcdeEfHilnNpqrstTuvwyZC:D:F:I:S:U:W:x:X:",
		long: []string{"normal", "brief", "report-identical-files", "context?", "unified?", "ed", "rcs",
			"side-by-side", "width=", "left-column", "suppress-common-lines", "show-c-function",
			"show-function-line=", "label=", "expand-tabs", "initial-tab", "tabsize=", "suppress-blank-empty",
			"paginate", "recursive", "no-dereference", "new-file", "unidirectional-new-file",
			"ignore-file-name-case", "no-ignore-file-name-case", "exclude=", "exclude-from=", "starting-file=",
			"from-file=", "to-file=", "ignore-case", "ignore-tab-expansion", "ignore-trailing-space",
			"ignore-space-change", "ignore-all-space", "ignore-blank-lines", "ignore-matching-lines=", "text",
			"strip-trailing-cr", "ifdef=", "old-group-format=", "new-group-format=", "unchanged-group-format=",
			"changed-group-format=", "line-format=", "old-line-format=", "new-line-format=",
			"unchanged-line-format=", "minimal", "horizon-lines=", "speed-large-files", "color?", "palette=",
			"help", "version"}},
		extra: func(c *classifier, p parsed, dir string) {
			if !p.set("--no-dereference") {
				c.followAll(p, dir, false, false)
				for _, v := range append(p.has["--from-file"], p.has["--to-file"]...) {
					c.linksInto(dir, v)
				}
			}
		}}).row()
	grepLong := []string{"extended-regexp", "fixed-strings", "basic-regexp", "perl-regexp", "regexp=", "file=",
		"ignore-case", "no-ignore-case", "word-regexp", "line-regexp", "null-data", "no-messages", "invert-match",
		"version", "help", "max-count=", "byte-offset", "line-number", "no-line-number", "line-buffered", "with-filename",
		"no-filename", "label=", "only-matching", "quiet", "silent", "binary-files=", "text", "directories=",
		"devices=", "recursive", "dereference-recursive", "include=", "exclude=", "exclude-from=", "exclude-dir=",
		"files-without-match", "files-with-matches", "count", "initial-tab", "null", "before-context=",
		"after-context=", "context=", "group-separator=", "no-group-separator", "color?", "colour?", "binary"}
	grepRecursive := func(p parsed) bool {
		return p.set("-r") || p.set("-R") || p.set("--recursive") || p.set("--dereference-recursive") ||
			p.val("-d") == "recurse" || p.val("--directories") == "recurse"
	}
	grepCwdRule := grepCwd(grepRecursive, "-e", "-f", "--regexp", "--file")
	grep := (&spec{eff: eRead, opts: opts{short: "EFGPiywxzsvVbnHhoqaIrRLlcTUZe:f:m:A:B:C:d:D:", long: grepLong},
		cwd: grepCwdRule, extra: func(c *classifier, p parsed, dir string) {
			if p.set("-R") || p.set("--dereference-recursive") {
				c.followAll(p, dir, grepCwdRule(p), !(p.set("-e") || p.set("-f") || p.set("--regexp") || p.set("--file")))
			}
		}}).row()
	for _, n := range []string{"grep", "egrep", "fgrep"} {
		table[n] = grep
	}
	table["rg"] = (&spec{eff: eRead, opts: opts{
		short: "0abcFhHiIlLnNopqsSuUvVwxzA:B:C:d:E:e:f:g:j:M:m:r:t:T:",
		long: []string{"regexp=", "file=", "files", "type-list", "pre=", "pre-glob=", "hostname-bin=",
			"after-context=", "before-context=", "context=", "max-depth=", "encoding=", "glob=", "iglob=",
			"threads=", "max-columns=", "max-count=", "replace=", "type=", "type-not=", "type-add=",
			"type-clear=", "ignore-file=", "sort=", "sortr=", "colors=", "color=", "path-separator=",
			"context-separator=", "field-context-separator=", "field-match-separator=", "max-filesize=",
			"dfa-size-limit=", "regex-size-limit=", "engine=", "generate=", "hyperlink-format=",
			"follow", "hidden", "no-ignore", "json", "count", "count-matches", "files-with-matches",
			"files-without-match", "ignore-case", "smart-case", "case-sensitive", "fixed-strings",
			"invert-match", "line-number", "no-line-number", "only-matching", "quiet", "search-zip",
			"text", "unrestricted", "vimgrep", "word-regexp", "line-regexp", "multiline", "pcre2",
			"heading", "no-heading", "with-filename", "no-filename", "null", "null-data", "stats",
			"trim", "debug", "no-config", "no-messages", "one-file-system", "passthru", "help", "version"}},
		acts: map[string]act{"--pre": actExec, "--pre-glob": actExec, "--hostname-bin": actExec},
		cwd:  rgCwd, extra: func(c *classifier, p parsed, dir string) {
			if p.set("-L") || p.set("--follow") {
				c.followAll(p, dir, rgCwd(p), !(p.set("--files") || p.set("-e") || p.set("-f") || p.set("--regexp") || p.set("--file")))
			}
		}}).row()
	table["sort"] = (&spec{eff: eRead, opts: opts{
		short: "bdfghiMnRrVcCmsuzk:o:S:t:T:",
		long: []string{"ignore-leading-blanks", "dictionary-order", "ignore-case", "general-numeric-sort",
			"ignore-nonprinting", "month-sort", "human-numeric-sort", "numeric-sort", "random-sort",
			"random-source=", "reverse", "sort=", "version-sort", "batch-size=", "check?", "compress-program=",
			"debug", "files0-from=", "key=", "merge", "output=", "stable", "buffer-size=", "field-separator=",
			"temporary-directory=", "parallel=", "unique", "zero-terminated", "help", "version"}},
		acts: map[string]act{"--compress-program": actExec, "-o": actWritePath, "--output": actWritePath,
			"-T": actWritePath, "--temporary-directory": actWritePath}}).row()
	shuf := (&spec{eff: eRead, opts: opts{short: "eizn:o:i:", long: []string{"echo", "input-range=", "head-count=",
		"output=", "random-source=", "repeat", "zero-terminated", "help", "version"}},
		acts: map[string]act{"-o": actWritePath, "--output": actWritePath}}).row()
	table["shuf"] = shuf
	// uniq and xxd: a second operand is the output file.
	secondWritten := func(c *classifier, p parsed, dir string) {
		if len(p.ops) >= 2 {
			c.write(dir, p.ops[1])
		}
	}
	table["uniq"] = (&spec{eff: eRead, opts: opts{short: "cdDiuzf:s:w:", long: []string{"count", "repeated",
		"all-repeated?", "skip-fields=", "group?", "ignore-case", "skip-chars=", "unique", "zero-terminated",
		"check-chars=", "help", "version"}}, extra: secondWritten}).row()
	table["xxd"] = (&spec{eff: eRead, opts: opts{short: "abCEeihpruvdRc:g:l:n:o:s:"}, extra: secondWritten}).row()
	table["less"] = lessRow
	table["file"] = (&spec{eff: eRead, opts: opts{short: "bcCdEhiIkLlNnprsSvzZ0e:f:F:m:P:",
		long: []string{"compile", "magic-file=", "files-from=", "separator=", "exclude=", "exclude-quiet=",
			"parameter=", "brief", "checking-printout", "debug", "extension", "mime", "mime-type", "mime-encoding",
			"keep-going", "list", "dereference", "no-dereference", "no-buffer", "no-pad", "print0",
			"preserve-date", "raw", "special-files", "uncompress", "uncompress-noreport", "help", "version"}},
		acts: map[string]act{"-C": actWrites, "--compile": actWrites},
		extra: func(c *classifier, p parsed, dir string) {
			if p.set("-C") || p.set("--compile") {
				// The compiled magic files are written in the working directory.
				for _, m := range p.has["-m"] {
					c.write(dir, path.Base(m)+".mgc")
				}
				c.write(dir, "magic.mgc")
			}
		}}).row()
	table["dd"] = ddRow
	table["curl"] = curlRow
	table["wget"] = wgetRow
	table["find"] = findRow
	table["git"] = gitRow
	table["sed"] = sedRow
	table["export"] = exportRow
	table["readonly"] = exportRow
	table["eval"] = evalRow
	table["alias"] = aliasRow
	table["trap"] = trapRow
	table["command"] = commandRow
	table["builtin"] = commandRow
	table["exec"] = execRow
	table["env"] = envRow
	for n, wr := range wrappers {
		table[n] = wr.row()
	}
	for _, n := range shells {
		table[n] = shellRow(n)
	}
	table["xargs"] = xargsRow
	agentRows()
}

// copyRow returns the row of cp, mv or ln, which write their destination,
// or each source's name in it when it is a directory; mv also removes its
// sources, cp and ln only read (or name) them. reads says the command
// reads its sources' content (cp), so a recursive copy that follows links
// reads what they point at.
func copyRow(move, reads bool, o opts) row {
	return func(c *classifier, args []string, dir string) {
		p := o.parse(args)
		c.add(approvals.Write)
		if reads {
			c.add(approvals.Read)
		}
		target := p.val("-t")
		if target == "" {
			target = p.val("--target-directory")
		}
		srcs := p.ops
		toDir := target != ""
		if !toDir {
			if len(srcs) == 0 {
				return
			}
			target, srcs = srcs[len(srcs)-1], srcs[:len(srcs)-1]
			if !p.set("-T") && !p.set("--no-target-directory") && len(srcs) > 0 {
				toDir = c.p.ExamineForProgram(dir, target).IsDir
			}
		}
		// A hard link (ln without -s, cp -l) is a second name for its
		// source's data: a write through it writes the source, so making
		// one is judged as writing the source.
		symbolic := p.set("-s") || p.set("--symbolic")
		hard := !move && !reads && !symbolic ||
			reads && (p.set("-l") || p.set("--link"))
		// A symbolic link's relative target is taken from the link's
		// directory when the link is followed (ln -r makes it so from
		// the working directory's one).
		from := dir
		if !move && !reads && symbolic && !p.set("-r") && !p.set("--relative") {
			from = cleanDir(dir, path.Dir(target))
			if toDir {
				from = cleanDir(dir, target)
			}
		}
		c.words(from, srcs, move || hard)
		if reads && (p.set("-r") || p.set("-R") || p.set("--recursive") || p.set("-a") || p.set("--archive")) &&
			(p.set("-L") || p.set("--dereference")) {
			for _, s := range srcs {
				c.linksInto(dir, s)
			}
		}
		if toDir {
			// The directory itself is only named: a secret one still asks.
			c.read(dir, target)
			for _, s := range srcs {
				c.write(cleanDir(dir, target), path.Base(s))
			}
		} else {
			c.write(dir, target)
		}
		for _, v := range p.vals {
			if v != target {
				c.read(dir, v)
			}
		}
	}
}

func rgCwd(p parsed) bool {
	if p.set("--files") || p.set("--type-list") {
		return len(p.ops) == 0 && p.set("--files")
	}
	return grepCwd(nil, "-e", "-f", "--regexp", "--file")(p)
}

// followAll judges the symlinks a recursive search that follows them
// reaches: under its path operands (the first is the pattern when
// patternFirst), or its working directory.
func (c *classifier) followAll(p parsed, dir string, cwd, patternFirst bool) {
	if cwd {
		c.linksInto(dir, ".")
		return
	}
	ops := p.ops
	if patternFirst && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, o := range ops {
		c.linksInto(dir, o)
	}
}

// lessRow classifies less, which reads what it names; a '+' command holding
// '!' or '|' runs a program; -o, -O, --log-file and --LOG-FILE write a log.
func lessRow(c *classifier, args []string, dir string) {
	o := opts{short: "?aABcCdeEfFgGiIJKLmMnNqQrRsSuUVwWXo:O:b:h:j:k:p:P:t:T:x:y:z:#:D:",
		long: []string{"log-file=", "LOG-FILE=", "lesskey-file=", "lesskey-src=", "lesskey-content=", "pattern=", "prompt=",
			"tag=", "tag-file=", "tabs=", "jump-target=", "shift=", "max-back-scroll=", "max-forw-scroll=",
			"window=", "buffers=", "quit-at-eof", "QUIT-AT-EOF", "quit-if-one-screen", "ignore-case",
			"IGNORE-CASE", "chop-long-lines", "RAW-CONTROL-CHARS", "raw-control-chars", "no-init",
			"LINE-NUMBERS", "LONG-PROMPT", "squeeze-blank-lines", "silent", "SILENT", "help", "version",
			"mouse", "use-color", "color=", "header=", "incsearch", "save-marks", "status-column"}}
	var plus []string
	var rest []string
	for _, a := range args {
		if strings.HasPrefix(a, "+") {
			plus = append(plus, a)
			continue
		}
		rest = append(rest, a)
	}
	for _, a := range plus {
		if strings.ContainsAny(a, "!|") {
			c.add(approvals.Exec)
		}
	}
	p := o.parse(rest)
	c.add(approvals.Read)
	for k, vs := range p.has {
		switch k {
		case "-o", "-O", "--log-file", "--LOG-FILE":
			for _, v := range vs {
				c.write(dir, v)
			}
		case "-k", "--lesskey-file", "--lesskey-src", "--lesskey-content":
			// A lesskey file's #env section can set LESSOPEN: less then
			// runs that program on every file it shows.
			c.add(approvals.Exec)
		}
		// A '+' command given as an option's value counts too.
		for _, v := range vs {
			if strings.HasPrefix(v, "+") && strings.ContainsAny(v, "!|") {
				c.add(approvals.Exec)
			}
		}
	}
	c.words(dir, p.ops, false)
	c.words(dir, p.vals, false)
}

// ddRow classifies dd: if= is read, of= is written; without of=, dd writes
// its output.
func ddRow(c *classifier, args []string, dir string) {
	c.add(approvals.Read)
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		switch {
		case ok && k == "of":
			c.write(dir, v)
		case ok && k == "if":
			c.read(dir, v)
		case ok:
		default:
			c.read(dir, a)
		}
	}
}

// exportRow classifies export (and readonly). With an operand it can change
// what a later step runs (PATH, LD_PRELOAD, GIT_*): exec. Without one it
// lists.
func exportRow(c *classifier, args []string, dir string) {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			c.add(approvals.Exec)
		}
	}
	c.anyWords(dir, args)
}

// crontabRow classifies crontab. crontab -l lists the user's crontab; any
// other use installs one from a file or the input, edits it (-e, in an
// editor: exec) or removes it (-r), writing the crontab directory, which is
// protected: cron runs what it holds. -u names another user's, which takes
// privileges: exec.
func crontabRow(c *classifier, args []string, dir string) {
	p := opts{short: "u:lerisTV"}.parse(args)
	c.add(approvals.Read)
	c.words(dir, p.ops, false)
	if p.set("-u") || p.set("-e") {
		c.add(approvals.Exec)
	}
	if (p.set("-l") || p.set("-T") || p.set("-V")) && !p.set("-e") && !p.set("-r") {
		return
	}
	spool := approvals.CrontabDirs[0]
	for _, d := range approvals.CrontabDirs {
		if c.p.ExamineForProgram("/", d).Exists {
			spool = d
			break
		}
	}
	c.write("/", spool)
}
