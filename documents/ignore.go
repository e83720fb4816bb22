package documents

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	gitconfig "github.com/go-git/go-git/v5/plumbing/format/config"
)

// Ignore rules follow git: the global excludes file, then .git/info/exclude,
// then each directory's .gitignore from the top down, a deeper file winning
// over a shallower one and a later line over an earlier one; "!" re-includes.
// A directory's .ignore (as ripgrep reads it) ranks above its .gitignore.
// An ignored directory is not entered, so nothing under it can be
// re-included, as in git, and what is below a directory that was entered is
// judged by its own path alone: a parent's verdict is never asked again.
//
// With core.ignorecase set (git sets it on a case-insensitive file system,
// as macOS's and Windows' are by default), patterns match without regard to
// ASCII case, as git's do: the patterns and each entry's name and path are
// compared in lower case.
//
// Each file is compiled once, as ripgrep's ignore crate does, so that an
// entry costs a few map lookups per file in force rather than a match per
// pattern: patterns without a wildcard are looked up by name (or by path),
// "*.ext" by the name's extension, "*suffix" and "prefix*" by a comparison,
// and only the rest go through wildmatch, git's own matcher.

// ignoreFiles are the per-directory files, lowest precedence first.
var ignoreFiles = [...]string{".gitignore", ".ignore"}

// verdict is what the ignore rules say of an entry.
type verdict int8

const (
	unmatched verdict = iota // no pattern names it
	excluded
	included // the last pattern naming it is a "!" pattern
)

// patternKind says how a pattern is matched (git's dir.c: match_basename
// for patterns without "/", match_pathname for the others).
type patternKind int8

const (
	nameLiteral patternKind = iota // the whole name, no wildcard
	nameSuffix                     // "*literal"
	namePrefix                     // "literal*"
	nameGlob                       // any other pattern without "/"
	pathLiteral                    // a path below the file's directory, no wildcard
	pathGlob                       // any other pattern with a "/"
)

// ignorePattern is one line of an ignore file, parsed as git parses it.
type ignorePattern struct {
	glob    string // without the "!", the trailing "/", and a path pattern's leading "/"
	literal int    // glob's leading bytes without a wildcard or escape
	need    string // a name glob's longest literal run before any class: a match holds it
	kind    patternKind
	negate  bool
	dirOnly bool // it ended in "/": directories only
}

// matches reports whether the pattern matches the entry called name whose
// path below the ignore file's directory is sub; fold is core.ignorecase
// (see foldGlob).
func (p *ignorePattern) matches(name, sub string, fold bool) bool {
	switch p.kind {
	case nameLiteral:
		return name == p.glob
	case nameSuffix:
		return strings.HasSuffix(name, p.glob[1:])
	case namePrefix:
		return strings.HasPrefix(name, p.glob[:len(p.glob)-1])
	case nameGlob:
		return strings.HasPrefix(name, p.glob[:p.literal]) && strings.Contains(name, p.need) &&
			wildmatch(p.glob, name, false, fold)
	case pathLiteral:
		return sub == p.glob
	}
	// git compares the literal part first and matches the rest as a
	// pattern of its own (so in "a**/b" the "**" follows a boundary).
	return len(sub) >= p.literal && sub[:p.literal] == p.glob[:p.literal] &&
		wildmatch(p.glob[p.literal:], sub[p.literal:], true, fold)
}

// parsePattern parses one line, already trimmed, as git's
// parse_path_pattern does. With fold, it is parsed as foldGlob puts it,
// to be matched against entries in lower case.
func parsePattern(line string, fold bool) ignorePattern {
	if fold {
		line = foldGlob(line)
	}
	var p ignorePattern
	if rest, ok := strings.CutPrefix(line, "!"); ok {
		p.negate, line = true, rest
	}
	if rest, ok := strings.CutSuffix(line, "/"); ok {
		p.dirOnly, line = true, rest
	}
	p.glob, p.literal = line, literalLen(line)
	lit := line[min(1, len(line)):] // after a leading "*"
	switch {
	case strings.Contains(line, "/"):
		p.glob = strings.TrimPrefix(line, "/")
		p.literal = literalLen(p.glob)
		p.kind = pathGlob
		if p.literal == len(p.glob) {
			p.kind = pathLiteral
		}
	case p.literal == len(line):
		p.kind = nameLiteral
	case line[0] == '*' && literalLen(lit) == len(lit):
		p.kind = nameSuffix
	case p.literal == len(line)-1 && line[len(line)-1] == '*':
		p.kind = namePrefix
	default:
		p.kind = nameGlob
		p.need = longestRun(line)
	}
	return p
}

// longestRun is the longest run of literal bytes in glob before its first
// class (whose end a "]" inside it could hide).
func longestRun(glob string) string {
	best, from := "", 0
	for i := 0; i <= len(glob); i++ {
		if i < len(glob) && !globSpecial(glob[i]) {
			continue
		}
		if i-from > len(best) {
			best = glob[from:i]
		}
		if i < len(glob) && glob[i] == '[' {
			break
		}
		if i < len(glob) && glob[i] == '\\' {
			i++ // the escaped byte is literal, but not part of a run here
		}
		from = i + 1
	}
	return best
}

// ignoreFile is one ignore file compiled: its patterns in file order, and
// the indexes of its patterns (ascending) filed under what an entry must
// have for them to match, so that an entry tries only those that may.
type ignoreFile struct {
	base  string // its directory from the ignore root: "" or ending in "/"
	fold  bool   // patterns in lower case, matched against lower-cased entries
	pats  []ignorePattern
	names map[string][]int32 // patterns without a wildcard, by the name
	paths map[string][]int32 // path patterns without a wildcard, by the path
	exts  map[string][]int32 // patterns ending in a literal ".ext", by ".ext"
	first map[byte][]int32   // name patterns starting with a literal byte, by it
	final map[byte][]int32   // name patterns ending with a literal byte, by it
	scan  []int32            // the others, each tried in turn
	// hasPaths: some pattern needs the entry's path, not only its name.
	hasPaths bool
}

func compileIgnore(base string, pats []ignorePattern) *ignoreFile {
	f := &ignoreFile{base: base, pats: pats}
	for i, p := range pats {
		f.hasPaths = f.hasPaths || p.kind >= pathLiteral
		tail := literalTail(p.glob)
		switch {
		case p.kind == nameLiteral:
			fileUnder(&f.names, p.glob, i)
		case p.kind == pathLiteral:
			fileUnder(&f.paths, p.glob, i)
		case p.kind == pathGlob:
			f.scan = append(f.scan, int32(i))
		case strings.Contains(tail, "."):
			fileUnder(&f.exts, tail[strings.LastIndexByte(tail, '.'):], i)
		case p.literal > 0:
			fileUnder(&f.first, p.glob[0], i)
		case tail != "":
			fileUnder(&f.final, tail[len(tail)-1], i)
		default:
			f.scan = append(f.scan, int32(i))
		}
	}
	return f
}

func fileUnder[K comparable](m *map[K][]int32, key K, i int) {
	if *m == nil {
		*m = map[K][]int32{}
	}
	(*m)[key] = append((*m)[key], int32(i))
}

// literalTail is the run of bytes ending glob that a matching text must
// end with: none of them a wildcard, a class or an escape.
func literalTail(glob string) string {
	i := len(glob)
	for i > 0 && !globSpecial(glob[i-1]) && glob[i-1] != ']' {
		i--
	}
	return glob[i:]
}

// match says what the file's patterns say of the entry called name, at
// path from the ignore root (needed only when the file hasPaths): the last
// pattern that matches decides.
func (f *ignoreFile) match(name, path string, isDir bool) verdict {
	if f.fold {
		name, path = lowerASCII(name), lowerASCII(path)
	}
	sub := ""
	if f.hasPaths {
		sub = path[len(f.base):]
	}
	best := int32(-1)
	if f.names != nil {
		best = f.last(f.names[name], best, isDir, name, sub)
	}
	if f.paths != nil {
		best = f.last(f.paths[sub], best, isDir, name, sub)
	}
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 && f.exts != nil {
		best = f.last(f.exts[name[dot:]], best, isDir, name, sub)
	}
	if f.first != nil {
		best = f.last(f.first[name[0]], best, isDir, name, sub)
	}
	if f.final != nil {
		best = f.last(f.final[name[len(name)-1]], best, isDir, name, sub)
	}
	best = f.last(f.scan, best, isDir, name, sub)
	switch {
	case best < 0:
		return unmatched
	case f.pats[best].negate:
		return included
	}
	return excluded
}

// last returns the highest index in list above best whose pattern applies
// to the entry and matches it, else best.
func (f *ignoreFile) last(list []int32, best int32, isDir bool, name, sub string) int32 {
	for i := len(list) - 1; i >= 0 && list[i] > best; i-- {
		p := &f.pats[list[i]]
		if (isDir || !p.dirOnly) && p.matches(name, sub, f.fold) {
			return list[i]
		}
	}
	return best
}

// rules are the ignore files in force in one directory, lowest precedence
// first. Directories share their parent's slice until they add their own.
type rules struct {
	files []*ignoreFile
	paths bool // some file hasPaths
	fold  bool // core.ignorecase: files added match without regard to case
}

// ignored reports whether the entry called name, at path from the ignore
// root, is excluded. path is needed only when r.paths.
func (r rules) ignored(name, path string, isDir bool) bool {
	for i := len(r.files) - 1; i >= 0; i-- {
		switch r.files[i].match(name, path, isDir) {
		case excluded:
			return true
		case included:
			return false
		}
	}
	return false
}

// with returns r plus the ignore files names of dir, whose path from the
// ignore root is dirPath, never changing r itself.
func (r rules) with(dir, dirPath string, names []string) rules {
	base := ""
	if dirPath != "" {
		base = dirPath + "/"
	}
	for _, name := range names {
		if f := readIgnore(filepath.Join(dir, name), base, r.fold); f != nil {
			r.files = append(r.files[:len(r.files):len(r.files)], f)
			r.paths = r.paths || f.hasPaths
		}
	}
	return r
}

// readIgnore reads and compiles one ignore file as git reads it: a BOM
// skipped, blank lines and "#" comments left out, a "\r" before the line
// end dropped, trailing spaces trimmed unless escaped. A missing or
// unreadable file, or one without patterns, adds nothing.
func readIgnore(path, base string, fold bool) *ignoreFile {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	data = bytes.TrimPrefix(data, bom)
	var pats []ignorePattern
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		if p := trimTrailingSpaces(string(line)); p != "" {
			pats = append(pats, parsePattern(p, fold))
		}
	}
	if len(pats) == 0 {
		return nil
	}
	f := compileIgnore(base, pats)
	f.fold = fold
	return f
}

// lowerASCII is s with its ASCII letters in lower case, as git folds case:
// s itself when it has none in upper case.
func lowerASCII(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' })
	if i < 0 {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// trimTrailingSpaces drops the spaces ending line, but not one escaped
// with "\" (git's trim_trailing_spaces).
func trimTrailingSpaces(line string) string {
	end := len(line)
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			continue
		case '\\':
			i++
		}
		end = min(i+1, len(line))
	}
	return line[:end]
}

// baseRules are the rules in force at the ignore root: inside a git
// repository, the global excludes file and .git/info/exclude. consulted
// names every file they depend on, git's configuration files included.
func baseRules(top string, inRepo bool) (r rules, consulted []string) {
	if !inRepo {
		return rules{}, nil
	}
	configs := gitConfigFiles(top)
	r.fold = coreIgnoreCase(configs)
	if f := globalExcludesFile(top, configs); f != "" {
		r = r.with(filepath.Dir(f), "", []string{filepath.Base(f)})
		consulted = append(consulted, f)
	}
	exclude := filepath.Join(top, ".git", "info", "exclude")
	return r.with(filepath.Dir(exclude), "", []string{"exclude"}), append(append(consulted, exclude), configs...)
}

// findGitRoot returns the nearest directory at or above dir holding .git.
func findGitRoot(dir string) (string, bool) {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// gitConfigFiles are git's configuration files in its order, lowest
// precedence first: the system's, the user's ($GIT_CONFIG_GLOBAL if set),
// the repository's.
func gitConfigFiles(top string) []string {
	home, xdg := homeAndXDG()
	var configs []string
	if os.Getenv("GIT_CONFIG_NOSYSTEM") == "" {
		configs = append(configs, "/etc/gitconfig")
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		configs = append(configs, g)
	} else {
		configs = append(configs, filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig"))
	}
	return append(configs, filepath.Join(top, ".git", "config"))
}

func homeAndXDG() (home, xdg string) {
	home, _ = os.UserHomeDir()
	xdg = os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	return home, xdg
}

// globalExcludesFile is core.excludesFile from git's config files, the
// later winning, else $XDG_CONFIG_HOME/git/ignore.
func globalExcludesFile(top string, configs []string) string {
	home, xdg := homeAndXDG()
	var file string
	for _, cfg := range configs {
		if v := coreOption(cfg, "excludesfile"); v != "" {
			file = v
		}
	}
	if file == "" {
		if xdg == "" {
			return ""
		}
		return filepath.Join(xdg, "git", "ignore")
	}
	if rest, ok := strings.CutPrefix(file, "~/"); ok && home != "" {
		file = filepath.Join(home, rest)
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(top, file)
	}
	return file
}

// coreIgnoreCase is core.ignorecase from git's config files, the later
// winning: a boolean as git reads one ("true", "yes", "on", a number other
// than 0, or the key alone).
func coreIgnoreCase(configs []string) bool {
	fold := false
	for _, cfg := range configs {
		v, set := coreOptionSet(cfg, "ignorecase")
		if !set {
			continue
		}
		switch strings.ToLower(v) {
		case "", "true", "yes", "on":
			fold = true
		case "false", "no", "off":
			fold = false
		default:
			n, err := strconv.Atoi(v)
			fold = err == nil && n != 0
		}
	}
	return fold
}

// coreOption is the value of core.KEY in the config file at path, "" when
// it is not set there.
func coreOption(path, key string) string {
	v, _ := coreOptionSet(path, key)
	return v
}

// coreOptionSet is core.KEY in the config file at path, and whether the
// file sets it (a key alone, without "=", is set to "").
func coreOptionSet(path, key string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	cfg := gitconfig.New()
	if err := gitconfig.NewDecoder(f).Decode(cfg); err != nil {
		return "", false
	}
	core := cfg.Section("core")
	if !core.HasOption(key) {
		return "", false
	}
	return core.Option(key), true
}
