package documents

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/internal/lawhit"
	"github.com/tandemdev/tandem/refusal"
)

var fixedTime = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

func durationSeconds(i int) time.Duration { return time.Duration(i) * time.Second }

func TestGlobNewestFirstThenPath(t *testing.T) {
	dir := t.TempDir()
	for name, age := range map[string]int{"b.go": 0, "a.go": 0, "old/c.go": 10, "new/d.go": -5, "x.txt": -9} {
		p := writeFile(t, dir, name, []byte("x"))
		mt := fixedTime.Add(-durationSeconds(age))
		must(t, os.Chtimes(p, mt, mt))
	}
	out, err := Glob(context.Background(), []string{dir}, GlobRequest{Pattern: "**/*.go"})
	if err != nil {
		t.Fatal(err)
	}
	want := "(glob \"**/*.go\" under .: 4 paths, newest first; shown: 1-4)\nnew/d.go\na.go\nb.go\nold/c.go\n"
	if out != want {
		t.Fatalf("got:\n%s\nwant:\n%s", out, want)
	}
	out, _ = Glob(context.Background(), []string{dir}, GlobRequest{Pattern: "*", Path: "old"})
	if !strings.Contains(out, "old/c.go\n") {
		t.Fatalf("glob under a path:\n%s", out)
	}
	out, _ = Glob(context.Background(), []string{dir}, GlobRequest{Pattern: "{old,new}"})
	if !strings.Contains(out, "new/\n") || !strings.Contains(out, "old/\n") {
		t.Fatalf("directories are listed with a slash:\n%s", out)
	}
}

func TestGlobRefusals(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.go", []byte("x"))
	for _, req := range []GlobRequest{{Pattern: ""}, {Pattern: "/etc/*"}, {Pattern: "[a"}, {Pattern: "*", Limit: 201}, {Pattern: "*", Skip: -1}, {Pattern: "*", Skip: 1}, {Pattern: "*", Skip: math.MaxInt}, {Pattern: "*", Path: "a.go"}, {Pattern: "../*"}, {Pattern: "**/../../*"}, {Pattern: "./../x"}} {
		if _, err := Glob(context.Background(), []string{dir}, req); codeOf(err) != refusal.Invalid {
			t.Errorf("%+v: %v, want invalid", req, err)
		}
	}
	if _, err := Glob(context.Background(), []string{dir}, GlobRequest{Pattern: "*", Path: filepath.Join(dir, "none")}); codeOf(err) != refusal.NotFound {
		t.Errorf("missing dir: %v", err)
	}
}

// With several workspace roots and no path, grep and glob search them all;
// paths outside the first root are shown absolute, as read accepts them.
func TestSeveralRootsAreAllSearched(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeFile(t, a, "one.go", []byte("needle\n"))
	writeFile(t, b, "two.go", []byte("needle\n"))
	nested := filepath.Join(a, "sub")
	writeFile(t, nested, "three.go", []byte("needle\n"))
	roots := []string{a, b, nested}
	out, err := Glob(context.Background(), roots, GlobRequest{Pattern: "**/*.go"})
	if err != nil || !strings.Contains(out, "\none.go\n") || !strings.Contains(out, "\n"+filepath.Join(b, "two.go")+"\n") || strings.Count(out, "three.go") != 1 {
		t.Fatalf("glob over several roots:\n%s %v", out, err)
	}
	rep, err := GrepSearch(context.Background(), nil, roots, GrepRequest{Pattern: "needle"})
	if err != nil || rep.FilesMatched != 3 || rep.Single {
		t.Fatalf("grep over several roots: %+v %v", rep, err)
	}
}

// A pattern's fixed prefix does not lead the walk through a symbolic link,
// as the walk itself never follows one: the link is counted, nothing under
// it is listed.
func TestGlobPrefixDoesNotFollowSymlinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	writeFile(t, outside, "secret.txt", []byte("x"))
	writeFile(t, dir, "in/a.txt", []byte("x"))
	must(t, os.Symlink(outside, filepath.Join(dir, "out")))
	must(t, os.Symlink(filepath.Join(dir, "in"), filepath.Join(dir, "alias")))
	for _, pattern := range []string{"out/*", "out/**", "alias/*.txt"} {
		out, err := Glob(context.Background(), []string{dir}, GlobRequest{Pattern: pattern})
		if err != nil || !strings.HasPrefix(out, "(no path under . matches") || !strings.Contains(out, "(not followed: 1 symbolic link, e.g. "+strings.Split(pattern, "/")[0]+")") {
			t.Errorf("glob %q:\n%s %v", pattern, out, err)
		}
	}
	if out, err := Glob(context.Background(), []string{dir}, GlobRequest{Pattern: "in/*.txt"}); err != nil || !strings.Contains(out, "\nin/a.txt\n") {
		t.Errorf("glob in/*.txt:\n%s %v", out, err)
	}
}

// The shortcuts for "**/NAME" patterns decide as doublestar does on the
// whole path, for any pattern and path.
func TestGlobShortcutsMatchDoublestar(t *testing.T) {
	pieces := []string{"*", "*", "?", "a", "b", ".c", ".h", "Kconfig", "[ab]", "{a,b}", "\\*", "/", "**"}
	names := []string{"a", "b", "a.c", "b.h", ".c", "Kconfig", "Kconfig.debug", "ab", "*", "x.c.h"}
	rapid.Check(t, func(t *rapid.T) {
		rest := ""
		if rapid.IntRange(0, 3).Draw(t, "anyDepth") > 0 {
			rest = "**/"
		}
		lit := rapid.SampledFrom([]string{"Kconfig", ".c", ".h", "a", "b.h"}).Draw(t, "literal")
		switch rapid.IntRange(0, 2).Draw(t, "form") {
		case 0:
			rest += "*" + lit
		case 1:
			rest += lit + "*"
		default:
			for range rapid.IntRange(1, 3).Draw(t, "pieces") {
				rest += rapid.SampledFrom(pieces).Draw(t, "piece")
			}
		}
		var parts []string
		for range rapid.IntRange(1, 4).Draw(t, "depth") {
			parts = append(parts, rapid.SampledFrom(names).Draw(t, "name"))
		}
		rel := strings.Join(parts, "/")
		want, err := doublestar.Match(rest, rel)
		if err != nil {
			t.Skip("not a pattern")
		}
		if got := globMatcher(rest)(rel); got != want {
			t.Fatalf("pattern %q on %q: %v, doublestar says %v", rest, rel, got, want)
		}
	})
}

// A glob is refused exactly when doublestar cannot match it, and the
// refusal says what is wrong at the column of the byte at fault: the
// pattern with that byte escaped (or, for an escape at the end, the escape
// doubled) gets past that fault.
func TestLaw_glob_fault_says_what_and_where(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"valid": 10, "unclosed [": 5, "empty class": 5, "unopened }": 5, "unclosed {": 5, "lone escape": 5})
	kinds := map[string]string{"opens a class": "unclosed [", "is empty": "empty class", "closes no": "unopened }", "opens alternatives": "unclosed {", "escapes nothing": "lone escape"}
	colRE := regexp.MustCompile(`at column (\d+)`)
	// Three patterns per case: each of the six branches is then reached a
	// dozen times or more in every run, not by luck.
	rapid.Check(t, func(rt *rapid.T) {
		for range 3 {
			globFaultCase(rt, hits, kinds, colRE)
		}
	})
}

// globFaultCase is one pattern of TestLaw_glob_fault_says_what_and_where.
func globFaultCase(rt *rapid.T, hits *lawhit.Counter, kinds map[string]string, colRE *regexp.Regexp) {
	// Any mix of the bytes that matter is judged as doublestar judges it.
	raw := strings.Join(rapid.SliceOfN(rapid.SampledFrom([]string{"[", "]", "{", "}", `\`, "!", "^", ",", "a", "*", "/"}), 0, 12).Draw(rt, "raw"), "")
	if (globFault(raw, 0) == "") != doublestar.ValidatePattern(raw) {
		rt.Fatalf("%q: fault %q, doublestar says valid %v", raw, globFault(raw, 0), doublestar.ValidatePattern(raw))
	}
	// Valid pieces around at most one faulty one; the pieces after it
	// may still close it, which doublestar judges too.
	valid := rapid.SampledFrom([]string{"a", "*", "/", "**", "[ab]", "[!a]", "{a,b}", `\[`, `\{`, ",", "!", "^", "]"})
	pieces := func(name string) string {
		return strings.Join(rapid.SliceOfN(valid, 0, 4).Draw(rt, name), "")
	}
	faulty := rapid.SampledFrom([]string{"", "[a", "[]", "[!]x", "}", "{a", `\`}).Draw(rt, "faulty")
	pattern := pieces("before") + faulty
	if faulty != `\` {
		pattern += pieces("after")
	}
	bang := rapid.SampledFrom([]string{"", "!"}).Draw(rt, "prefix")
	fault := globFault(pattern, len(bang))
	if (fault == "") != doublestar.ValidatePattern(pattern) {
		rt.Fatalf("%q: fault %q, doublestar says valid %v", pattern, fault, doublestar.ValidatePattern(pattern))
	}
	if fault == "" {
		hits.Hit("valid")
		return
	}
	kind := ""
	for says, k := range kinds {
		if strings.Contains(fault, says) {
			kind = k
		}
	}
	m := colRE.FindStringSubmatch(fault)
	if kind == "" || m == nil {
		rt.Fatalf("%q: %q says neither what nor where", pattern, fault)
	}
	col, _ := strconv.Atoi(m[1])
	at := col - 1 - len(bang)
	if at < 0 || at >= len(pattern) || pattern[at] != map[string]byte{"unclosed [": '[', "empty class": '[', "unopened }": '}', "unclosed {": '{', "lone escape": '\\'}[kind] {
		rt.Fatalf("%q (written %q): %q points at column %d", pattern, bang+pattern, fault, col)
	}
	fixed := pattern[:at] + `\` + pattern[at:]
	if again := globFault(fixed, 0); again != "" {
		if c := colRE.FindStringSubmatch(again)[1]; c == strconv.Itoa(at+1) || c == strconv.Itoa(at+2) {
			rt.Fatalf("%q: escaping the byte %q names leaves a fault there: %q", pattern, fault, again)
		}
	}
	hits.Hit(kind)
}

// An absolute pattern names the glob that searches its directory, with a
// pattern glob takes.
func TestAbsoluteGlobNamesTheCallForItsDirectory(t *testing.T) {
	said := regexp.MustCompile(`call glob with pattern ("[^"]*") and path ("[^"]*")`)
	for pattern, want := range map[string][2]string{"/": {"*", "/"}, "/src/": {"*", "/src"}, "/etc/**/*.conf": {"**/*.conf", "/etc"}} {
		_, err := Glob(context.Background(), []string{t.TempDir()}, GlobRequest{Pattern: pattern})
		m := said.FindStringSubmatch(fmt.Sprint(err))
		if codeOf(err) != refusal.Invalid || m == nil || m[1] != strconv.Quote(want[0]) || m[2] != strconv.Quote(want[1]) {
			t.Errorf("%s: %v, want the call with pattern %q and path %q", pattern, err, want[0], want[1])
		}
	}
}
