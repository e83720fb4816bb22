package documents

import (
	"bytes"
	"context"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/internal/lawhit"
	"github.com/tandemdev/tandem/internal/prereq"
)

// The names trees and patterns are made of: alike enough that patterns hit,
// with the bytes git's matcher treats apart (dots, case, spaces, "*", "!",
// "#", brackets).
var (
	lawDirs  = []string{"a", "b", "build", "src", "Doc", ".hid", "x y", "ab", "Build", "SRC"}
	lawFiles = []string{"a.c", "b.o", "main.go", "x.txt", "a", "build", "keep.log", "#x#", "y~",
		"Foo.C", "t[1].c", "a b", "q.tar.gz", ".env", "a*b", "!bang", "ab", "b.c", "x.o.cmd", "A.C", "MAIN.go"}
	// lawPieces make up one component of a pattern.
	lawPieces = []string{"a", "b", "ab", "build", "src", "keep", "x", ".c", ".o", "*", "*", "?",
		"[ab]", "[!a]", "[^b]", "[a-c]", "[[:alpha:]]", "[[:digit:]]", "[]a]", "\\*", "\\#", "\\!", "**",
		"*.c", "*.o", "a*", "*b", "Foo", ".hid", "x y", "log", "[.]", "\\", "*.[co]", "[a-z]", "[ab].c", "[a-z]*", "*[co]", "[!.]*",
		// case, which core.ignorecase folds
		"FOO", "A", "*.C", "doc", "[A-C]", "[[:upper:]]", "[[:lower:]]", "BUILD", "Src", "Main.go"}
)

// genPattern draws one ignore line from a grammar of git's pattern forms:
// names and globs joined by slashes, anchored or not, "**" at either end or
// between, "!" negation, a trailing "/" for directories only, escapes and
// trailing spaces (kept when escaped).
func genPattern(t *rapid.T) string {
	var comps []string
	for range rapid.SampledFrom([]int{1, 1, 2, 3}).Draw(t, "components") {
		c := ""
		for range rapid.IntRange(1, 2).Draw(t, "pieces") {
			c += rapid.SampledFrom(lawPieces).Draw(t, "piece")
		}
		comps = append(comps, c)
	}
	p := strings.Join(comps, "/")
	if rapid.IntRange(0, 3).Draw(t, "anchor") == 0 {
		p = "/" + p
	}
	if rapid.IntRange(0, 4).Draw(t, "leadingStars") == 0 {
		p = "**/" + p
	}
	if rapid.IntRange(0, 8).Draw(t, "trailingStars") == 0 {
		p += "/**"
	}
	if rapid.IntRange(0, 4).Draw(t, "dirOnly") == 0 {
		p += "/"
	}
	if rapid.IntRange(0, 3).Draw(t, "negate") == 0 {
		p = "!" + p
	}
	switch rapid.IntRange(0, 9).Draw(t, "ending") {
	case 0:
		p += "  "
	case 1:
		p += "\\ "
	case 2:
		p += "\r"
	}
	return p
}

// ignoreGen draws the ignore files of one case, lowest precedence first. A
// line may echo a pattern of an earlier file with its "!" flipped, so that
// later files overrule earlier ones often, as precedence is to be shown.
type ignoreGen struct {
	earlier []string
	echoes  map[string]bool // the echoed lines, as git reports them
}

// file draws one ignore file: patterns and echoes, with comments and blank
// lines among them.
func (g *ignoreGen) file(t *rapid.T, label string, maxLines int) []byte {
	var b bytes.Buffer
	var drawn []string
	for range rapid.IntRange(1, maxLines).Draw(t, label+"Lines") {
		switch k := rapid.IntRange(0, 12).Draw(t, label+"Kind"); {
		case k == 0:
			b.WriteString("# a comment\n")
		case k == 1:
			b.WriteString("\n")
		case k <= 6 && len(g.earlier) > 0:
			p := rapid.SampledFrom(g.earlier).Draw(t, label+"Echo")
			if rest, ok := strings.CutPrefix(p, "!"); ok {
				p = rest
			} else {
				p = "!" + p
			}
			g.echoes[strings.TrimRight(p, "\r ")] = true
			b.WriteString(p + "\n")
		default:
			p := genPattern(t)
			drawn = append(drawn, p)
			b.WriteString(p + "\n")
		}
	}
	g.earlier = append(g.earlier, drawn...)
	return b.Bytes()
}

// The walk leaves out exactly the files git ignores, whatever the patterns:
// random trees under random .gitignore files (at the root and below),
// .git/info/exclude and the user's global excludes file, with
// core.ignorecase set or not, compared file by file with `git ls-files
// --others --exclude-standard`.
func TestLaw_walk_ignores_what_git_ignores(t *testing.T) {
	prereq.Program(t, "git", "install git")
	base := t.TempDir()
	home := filepath.Join(base, "home")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, ".gitconfig"))
	hits := lawhit.New(t, map[string]int{
		"ignored and listed": 8, "re-included by !": 2, "decided by **": 2,
		"decided by an anchored pattern": 2, "decided by a class": 2, "decided below the root": 2,
		"overruled an earlier file": 2, "decided without regard to case": 2,
	})
	var n int
	var mu sync.Mutex
	rapid.Check(t, func(rt *rapid.T) {
		mu.Lock()
		n++
		repo := filepath.Join(base, "repo"+strconv.Itoa(n))
		mu.Unlock()
		must(rt, os.MkdirAll(repo, 0o755))
		defer os.RemoveAll(repo)
		git := func(stdin []byte, args ...string) []byte {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Stdin = repo, bytes.NewReader(stdin)
			out, err := cmd.Output()
			if err != nil && !(len(args) > 0 && args[0] == "check-ignore") {
				rt.Fatalf("git %v: %v", args, err)
			}
			return out
		}
		git(nil, "init", "-q")
		fold := rapid.Bool().Draw(rt, "ignoreCase")
		git(nil, "config", "core.ignorecase", strconv.FormatBool(fold))

		// The tree: files at random depths, and the directories on their way.
		files, dirs := map[string]bool{}, map[string]bool{"": true}
		for range rapid.IntRange(1, 30).Draw(rt, "files") {
			var parts []string
			for range rapid.IntRange(0, 3).Draw(rt, "depth") {
				parts = append(parts, rapid.SampledFrom(lawDirs).Draw(rt, "dir"))
			}
			p := strings.Join(append(parts, rapid.SampledFrom(lawFiles).Draw(rt, "file")), "/")
			clash := dirs[p]
			for i := range parts {
				clash = clash || files[strings.Join(parts[:i+1], "/")]
			}
			if clash {
				continue
			}
			files[p] = true
			for i := range parts {
				dirs[strings.Join(parts[:i+1], "/")] = true
			}
			writeFile(rt, repo, p, []byte("x\n"))
		}
		dirList := slices.Sorted(maps.Keys(dirs))
		gen := &ignoreGen{echoes: map[string]bool{}}
		writeFile(rt, home, ".config/git/ignore", gen.file(rt, "global", 2))
		writeFile(rt, repo, ".git/info/exclude", gen.file(rt, "exclude", 3))
		var ignoreDirs []string
		for i := range rapid.IntRange(1, 4).Draw(rt, "ignoreFiles") {
			from := dirList
			if i == 0 && len(dirList) > 1 {
				from = dirList[1:] // one below the root, where the tree has a directory
			}
			d := rapid.SampledFrom(from).Draw(rt, "ignoreDir")
			if name := path.Join(d, ".gitignore"); !files[name] && !slices.Contains(ignoreDirs, d) {
				ignoreDirs = append(ignoreDirs, d)
			}
		}
		// Shallower files first: the deeper ones echo them.
		depth := func(d string) int {
			if d == "" {
				return 0
			}
			return strings.Count(d, "/") + 1
		}
		slices.SortStableFunc(ignoreDirs, func(a, b string) int { return depth(a) - depth(b) })
		for _, d := range ignoreDirs {
			name := path.Join(d, ".gitignore")
			writeFile(rt, repo, name, gen.file(rt, "gitignore", 8))
			files[name] = true
		}

		var want []string
		for _, p := range bytes.Split(git(nil, "ls-files", "-z", "--others", "--exclude-standard"), []byte{0}) {
			if len(p) > 0 {
				want = append(want, string(p))
			}
		}
		var got []string
		var gotMu sync.Mutex
		if _, err := Walk(context.Background(), "", repo, false, 0, func(e Entry, _ *Tally) {
			gotMu.Lock()
			got = append(got, e.Rel)
			gotMu.Unlock()
		}); err != nil {
			rt.Fatal(err)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			rt.Fatalf("tandem and git disagree on which files are ignored\ntandem lists: %q\ngit lists:    %q\nonly tandem: %q\nonly git:    %q",
				got, want, minus(got, want), minus(want, got))
		}

		// What decided each path, as git tells it, shows what the case reached.
		if len(want) > 0 && len(want) < len(files) {
			hits.Hit("ignored and listed")
		}
		var paths bytes.Buffer
		for _, p := range slices.Sorted(maps.Keys(files)) {
			paths.WriteString(p + "\x00")
		}
		for _, p := range dirList[1:] {
			paths.WriteString(p + "\x00")
		}
		fields := bytes.Split(git(paths.Bytes(), "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin"), []byte{0})
		seen := map[string]bool{}
		for i := 0; i+3 < len(fields); i += 4 {
			source, pattern := string(fields[i]), string(fields[i+2])
			if pattern == "" {
				continue
			}
			for branch, reached := range map[string]bool{
				"re-included by !":               strings.HasPrefix(pattern, "!"),
				"decided by **":                  strings.Contains(pattern, "**"),
				"decided by an anchored pattern": strings.Contains(strings.TrimSuffix(strings.TrimSpace(pattern), "/"), "/"),
				"decided by a class":             strings.Contains(pattern, "["),
				"decided below the root":         strings.Contains(source, "/.gitignore"),
				"overruled an earlier file":      gen.echoes[pattern],
				"decided without regard to case": fold && !matchesExactCase(pattern, string(fields[i+3])),
			} {
				if reached && !seen[branch] {
					seen[branch] = true
					hits.Hit(branch)
				}
			}
		}
	})
}

// minus returns the strings of a (sorted) not in b (sorted).
func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if _, found := slices.BinarySearch(b, s); !found {
			out = append(out, s)
		}
	}
	return out
}

// The walk lists what git lists on a real repository's rules: a skeleton
// of the tree in TANDEM_IGNORE_TREE (every directory, every file empty but
// the ignore files, which keep their text) with build products added — in
// every directory the names its .gitignore lists without a wildcard, and
// object files, command files and archives beside its sources — compared
// with `git ls-files --others --exclude-standard` on the copy. On the
// Linux tree that is 305 .gitignore files and some 60,000 ignored files.
func TestWalkMatchesGitOnARealTree(t *testing.T) {
	src := os.Getenv("TANDEM_IGNORE_TREE")
	if src == "" {
		t.Skip("TANDEM_IGNORE_TREE names no git work tree to compare the walk with git on; make test-real-tree runs this on the Linux tree (CI does)")
	}
	prereq.Program(t, "git", "install git")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	dst := t.TempDir()
	touch := func(rel string) {
		p := filepath.Join(dst, rel)
		if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
			if f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				f.Close()
			}
		}
	}
	var ignoreFilesSeen []string
	must(t, filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		case !d.Type().IsRegular(): // symbolic links are never listed by the walk
		case d.Name() == ".gitignore" || d.Name() == ".ignore":
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			ignoreFilesSeen = append(ignoreFilesSeen, rel)
			return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
		default:
			touch(rel)
			if ext := filepath.Ext(rel); ext == ".c" || ext == ".S" {
				stem := strings.TrimSuffix(d.Name(), ext)
				dir := filepath.Dir(rel)
				for _, product := range []string{stem + ".o", "." + stem + ".o.cmd", stem + ".mod.c", stem + ".ko", stem + ".o.d", stem + ".s"} {
					touch(filepath.Join(dir, product))
				}
			}
			if d.Name() == "Makefile" {
				dir := filepath.Dir(rel)
				for _, product := range []string{"built-in.a", ".built-in.a.cmd", "modules.order", ".modules.order.cmd", "Module.symvers"} {
					touch(filepath.Join(dir, product))
				}
			}
		}
		return nil
	}))
	// Every name an ignore file spells out, made where it applies: the
	// products the kernel's build leaves there (and the "!" ones it keeps).
	for _, rel := range ignoreFilesSeen {
		data, _ := os.ReadFile(filepath.Join(dst, rel))
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimPrefix(strings.TrimSpace(line), "!")
			if line == "" || strings.ContainsAny(line, "#*?[\\") {
				continue
			}
			name := strings.TrimPrefix(line, "/")
			if strings.HasSuffix(name, "/") {
				name += "generated.h"
			}
			touch(filepath.Join(filepath.Dir(rel), name))
		}
	}
	git := exec.Command("git", "init", "-q")
	git.Dir = dst
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	git = exec.Command("git", "ls-files", "-z", "--others", "--exclude-standard")
	git.Dir = dst
	out, err := git.Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	var got []string
	var mu sync.Mutex
	tally, err := Walk(context.Background(), "", dst, false, 0, func(e Entry, _ *Tally) {
		mu.Lock()
		got = append(got, e.Rel)
		mu.Unlock()
	})
	must(t, err)
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("tandem and git disagree on which files are ignored (%d listed by tandem, %d by git)\nonly tandem: %q\nonly git: %q",
			len(got), len(want), head(minus(got, want)), head(minus(want, got)))
	}
	ignored := tally.Count[ClassIgnoredFile] + tally.Count[ClassIgnoredDir]
	t.Logf("%d ignore files; %d files listed by both; %d ignored entries", len(ignoreFilesSeen), len(got), ignored)
	if ignored < 1000 {
		t.Fatalf("only %d entries were ignored: the build products no longer exercise the rules", ignored)
	}
}

// head returns at most the first 20 of s.
func head(s []string) []string { return s[:min(len(s), 20)] }

// matchesExactCase reports whether git's pattern (a line of an ignore file)
// names the path's last component in the same case, roughly: a case-folded
// verdict where it does not is one only core.ignorecase could give.
func matchesExactCase(pattern, p string) bool {
	return strings.Contains(pattern, path.Base(p)) || strings.ToLower(pattern) == pattern && strings.ToLower(p) == p
}
