package documents

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/internal/lawhit"
	"github.com/tandemdev/tandem/refusal"
)

// grepGroup is one file group of a grep's output.
type grepGroup struct {
	header string
	rows   []readItem
	notes  []string
}

// parseGrep takes a grep's output apart: file groups, then closing notices.
// A match is a row of kind "row", a line shown around one (" N:text") of
// kind "context"; the gap markers between groups of them are left out.
func parseGrep(t testing.TB, out string) (groups []grepGroup, notices []string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case line == GapMarker:
		case strings.HasPrefix(line, "["):
			groups = append(groups, grepGroup{header: line})
		case strings.HasPrefix(line, "("):
			if len(groups) > 0 && len(notices) == 0 && !isClosing(line) {
				groups[len(groups)-1].notes = append(groups[len(groups)-1].notes, line)
			} else {
				notices = append(notices, line)
			}
		default:
			kind := "row"
			if row, ok := strings.CutPrefix(line, contextLead); ok {
				kind, line = "context", row
			}
			num, text, ok := strings.Cut(line, ":")
			n, err := strconv.Atoi(num)
			if !ok || err != nil || len(groups) == 0 {
				t.Fatalf("line %q is neither a header, a row nor a notice:\n%s", line, out)
			}
			g := &groups[len(groups)-1]
			g.rows = append(g.rows, readItem{kind: kind, n: n, text: text})
		}
	}
	return groups, notices
}

// isClosing tells the summary notice that opens the closing notices.
func isClosing(line string) bool {
	return strings.Contains(line, "searched files match") || strings.HasPrefix(line, "(no file matches") ||
		strings.Contains(line, "matching line") || strings.HasPrefix(line, "(no line matches")
}

func headerPath(h string) string {
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if i := strings.LastIndexByte(h, '#'); i >= 0 {
		h = h[:i]
	}
	return h
}

// grepText draws texts with the bytes that trouble line matching: "\r",
// "\r\n", BOM, and runes whose case folds are not ASCII (K, ſ).
func grepText() *rapid.Generator[[]byte] {
	return piecesText(30, "a", "b", "A", "B", "k", "s", "K", "ſ", " ", "\r", "\n", "\r\n", "é", "É", "ab", "ba")
}

var grepPatterns = []string{"a", "ab", "b$", "^a", `a\s*b`, "A", "é", "a.b", "", "^$", `\bab\b`, "(a|b)b", "[^a]b", "a+",
	"k", "s", "sk", "ab$", `\Aa`, `b\z`, "ab|ba", "a b", "\r", `a\r`, "é$",
	// every match starts with the literal: tried anchored at each of its places
	`\bab\w*`, `ab\B`, `\Bab`, `ab[ks]+\b`, `^ab.*b`, `\bba\s`, `(ab)+a`, `éa`,
	// a second literal a line must hold before the regexp runs
	`\bab\s*\w*ba\b`, `k\w+ab`,
	// a class repeated, then the literal: decided by the runes before it
	`\w+ab`, `\w+é`, `[^a]+b`, `\w{2,}ba`, `\S*ab`, `.+\r`, `(?s:.)+b`, `[aé]{3,}b`,
	// no literal every match holds: the whole-text candidate regexp
	`[ab][ab]`, `\S\s+\S`, `(a|B)$`, `^[^a]`, `[ks]\b`}

// The matcher finds exactly the lines whose text (without its ending) the
// regexp matches on its own, whatever the prefilter chose.
func TestMatcherAgreesWithPerLineRegexp(t *testing.T) {
	// Patterns with no literal on a text of several lines, whose windows of
	// a line (which must end at a line's end) see a match: the random cases
	// below may draw none in a run.
	for _, pattern := range []string{`[ab][ab]`, `\S\s+\S`} {
		if got, want := matchLines(t, []byte("ab a\nb\n"), pattern, false, false); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q on \"ab a\\nb\\n\": lines %v, want %v", pattern, got, want)
		}
	}
	// A pattern that starts with its literal, matching only at the
	// literal's second place in the line: the random cases below draw such
	// a line in some runs only.
	if got, want := matchLines(t, []byte("abx ab1\nab\n"), `ab\d`, false, false); fmt.Sprint(got) != fmt.Sprint(want) || len(want) != 1 {
		t.Fatalf("%q on \"abx ab1\\nab\\n\": lines %v, want %v", `ab\d`, got, want)
	}
	// A class repeated, then the literal: the literal's first place in a
	// line has no word rune before it, its second has.
	if got, want := matchLines(t, []byte(" ab\n ab xab\nab\n"), `\w+ab`, false, false); fmt.Sprint(got) != fmt.Sprint(want) || len(want) != 1 {
		t.Fatalf("%q on \" ab\\n ab xab\\nab\\n\": lines %v, want %v", `\w+ab`, got, want)
	}
	// A second literal in another case than the pattern's, when ignoring
	// case.
	if got, want := matchLines(t, []byte("AB kBA\nab ba\n"), `\bab\s*\w*ba\b`, true, false); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%q ignoring case on \"AB kBA\\nab ba\\n\": lines %v, want %v", `\bab\s*\w*ba\b`, got, want)
	}
	rapid.Check(t, func(t *rapid.T) {
		text := grepText().Draw(t, "text")
		pattern := rapid.SampledFrom(grepPatterns).Draw(t, "pattern")
		fold, literal := rapid.Bool().Draw(t, "ignoreCase"), rapid.Bool().Draw(t, "literal")
		got, want := matchLines(t, text, pattern, fold, literal)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q (fold %v, literal %v) on %q: lines %v, want %v", pattern, fold, literal, text, got, want)
		}
	})
}

// matchLines is the reference: the lines whose text the regexp matches on
// its own; and what the matcher finds. Each hit must span its line's text.
func matchLines(t interface{ Fatalf(string, ...any) }, text []byte, pattern string, fold, literal bool) (got, want []int) {
	m, err := Compile(pattern, fold, literal)
	if err != nil {
		t.Fatalf("compile %q: %v", pattern, err)
	}
	// \w means a Unicode word character, as in ripgrep: spelled out for
	// Go's regexp, whose \w is ASCII. The texts drawn hold no space but
	// ASCII ones, so \s and \S need no spelling out.
	expr := strings.ReplaceAll(pattern, `\w`, `[\p{L}\p{M}\p{Nd}\p{Pc}]`)
	if literal {
		expr = regexp.QuoteMeta(pattern)
	}
	if fold {
		expr = "(?i)" + expr
	}
	re := regexp.MustCompile(expr)
	ls := Scan(text)
	for n := 1; n <= ls.Len(); n++ {
		if re.Match(ls.Text(n)) {
			want = append(want, n)
		}
	}
	// Each regexp runs on the whole text; then on windows of a line, each
	// through the reader that looks at the context after every byte, as a
	// costly pattern does; then on windows of a few lines, mixing both.
	for _, every := range []int{checkWork, 1, 100} {
		s := m.Search(context.Background(), ls.Body)
		s.every = every
		var lines []int
		for {
			h, ok := s.Next()
			if !ok {
				break
			}
			if !bytes.Equal(ls.Body[h.Start:h.End], ls.Text(h.N)) {
				t.Fatalf("hit %d spans %q, line is %q", h.N, ls.Body[h.Start:h.End], ls.Text(h.N))
			}
			lines = append(lines, h.N)
		}
		if s.Err() != nil {
			t.Fatalf("the search stopped early: %v", s.Err())
		}
		if every != checkWork && fmt.Sprint(lines) != fmt.Sprint(got) {
			t.Fatalf("%q looking every %d of work: lines %v, on the whole text %v", pattern, every, lines, got)
		}
		got = lines
	}
	return got, want
}

// Arbitrary bytes (invalid UTF-8, NULs, lone CRs) against every pattern.
func FuzzMatcher(f *testing.F) {
	for _, s := range []string{"a\r\nb\n", "\xef\xbb\xbfab\r", "K\u212ak\nſs\n", "\xffa\x00b\n\n"} {
		f.Add([]byte(s), uint8(0), false, false)
	}
	f.Fuzz(func(t *testing.T, text []byte, which uint8, fold, literal bool) {
		pattern := grepPatterns[int(which)%len(grepPatterns)]
		got, want := matchLines(t, text, pattern, fold, literal)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q (fold %v, literal %v) on %q: lines %v, want %v", pattern, fold, literal, text, got, want)
		}
	})
}

// grep and read show the same text at the same line number, for matches
// and the lines around them alike.
func TestLaw_grep_line_is_read_line(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		// A CRLF line every time: the generator alone reaches one that a
		// pattern matches only now and then.
		text := append(grepText().Draw(rt, "text"), "\nab\r\n"...)
		writeFile(t, dir, "g/f.txt", text)
		pattern := rapid.SampledFrom(grepPatterns).Draw(rt, "pattern")
		path := rapid.SampledFrom([]string{"g", "g/f.txt"}).Draw(rt, "path")
		around := rapid.IntRange(0, 2).Draw(rt, "context")
		store := NewStore()
		out, err := Grep(context.Background(), store, NewOverlay(), []string{dir}, GrepRequest{Pattern: pattern, Path: path, Context: around})
		if err != nil {
			rt.Fatalf("grep: %v", err)
		}
		groups, _ := parseGrep(t, out)
		for _, g := range groups {
			for _, r := range g.rows {
				rout, err := Read(context.Background(), store, NewOverlay(), []string{dir}, headerPath(g.header), strconv.Itoa(r.n))
				if err != nil {
					rt.Fatalf("read: %v", err)
				}
				rr := parseRead(t, rout).rows()
				if len(rr) != 1 || rr[0].n != r.n || rr[0].text != r.text {
					rt.Fatalf("grep row %d:%q, read shows %v\ngrep:\n%s\nread:\n%s", r.n, r.text, rr, out, rout)
				}
				if rout[:strings.IndexByte(rout, '\n')] != g.header {
					rt.Fatalf("grep header %s, read header %s", g.header, rout[:strings.IndexByte(rout, '\n')])
				}
			}
		}
	})
}

// The tag of a grep result names the bytes grep searched, not a second read:
// the file changes after the search, and the store still holds the searched
// bytes under the shown tag, with the shown rows seen — the lines shown
// around the matches too.
func TestLaw_tag_names_shown_text_in_grep(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		text := append(grepText().Draw(rt, "text"), "\nneedle here\n"...)
		path := writeFile(t, dir, "f.txt", text)
		around := rapid.IntRange(0, 3).Draw(rt, "context")
		rep, err := GrepSearch(context.Background(), NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle|a", Path: ".", Context: around})
		if err != nil {
			rt.Fatal(err)
		}
		writeFile(t, dir, "f.txt", []byte("changed on disk\n"))
		store := NewStore()
		out := rep.Record(store)
		groups, _ := parseGrep(t, out)
		tag := TagOf(text)
		if len(groups) != 1 || groups[0].header != "[f.txt#"+string(tag)+"]" {
			rt.Fatalf("want [f.txt#%s], got:\n%s", tag, out)
		}
		kept, ok := store.Version(path, tag)
		if !ok || !bytes.Equal(kept, text) {
			rt.Fatal("the store does not hold the searched bytes under the tag")
		}
		ls := Scan(text)
		for _, r := range groups[0].rows {
			if r.text != string(ls.Text(r.n)) || !store.Seen(path, tag, r.n) {
				rt.Fatalf("row %d: %q vs %q, seen %v", r.n, r.text, ls.Text(r.n), store.Seen(path, tag, r.n))
			}
		}
	})
}

// fixtureKind is one kind of entry a search can meet, with the class the
// walk must put it in.
type fixtureKind struct {
	name  string
	class Class
	make  func(t testing.TB, dir string, i int) // creates entry i of this kind under dir
}

var fixtureKinds = []fixtureKind{
	{"match", ClassSearched, func(t testing.TB, dir string, i int) {
		writeFile(t, dir, fmt.Sprintf("m%d.txt", i), []byte("x\nneedle\n"))
	}},
	{"nomatch", ClassSearched, func(t testing.TB, dir string, i int) {
		writeFile(t, dir, fmt.Sprintf("n%d.txt", i), []byte("hay\n"))
	}},
	{"binary", ClassBinary, func(t testing.TB, dir string, i int) {
		writeFile(t, dir, fmt.Sprintf("b%d.bin", i), []byte("needle\x00\x01"))
	}},
	{"large", ClassLarge, func(t testing.TB, dir string, i int) {
		writeFile(t, dir, fmt.Sprintf("big%d.txt", i), append([]byte("needle\n"), bytes.Repeat([]byte("z"), MaxFileBytes)...))
	}},
	{"ignoredFile", ClassIgnoredFile, func(t testing.TB, dir string, i int) {
		writeFile(t, dir, fmt.Sprintf("x%d.log", i), []byte("needle\n"))
	}},
	{"ignoredDir", ClassIgnoredDir, func(t testing.TB, dir string, i int) {
		writeFile(t, dir, fmt.Sprintf("build%d/inner.txt", i), []byte("needle\n"))
	}},
	{"symlink", ClassSymlink, func(t testing.TB, dir string, i int) {
		must(t, os.Symlink("target", filepath.Join(dir, fmt.Sprintf("l%d", i))))
	}},
	{"fifo", ClassSpecial, func(t testing.TB, dir string, i int) {
		must(t, syscall.Mkfifo(filepath.Join(dir, fmt.Sprintf("p%d", i)), 0o644))
	}},
	{"temp", ClassTemp, func(t testing.TB, dir string, i int) {
		writeFile(t, dir, fmt.Sprintf("%sa%d.txt", TempPrefix, i), []byte("needle\n"))
	}},
	{"notGlob", ClassNotMatched, func(t testing.TB, dir string, i int) {
		writeFile(t, dir, fmt.Sprintf("g%d.md", i), []byte("needle\n"))
	}},
	{"vcs", ClassVCSDir, func(t testing.TB, dir string, i int) {
		writeFile(t, dir, fmt.Sprintf("v%d/.git/HEAD", i), []byte("needle\n"))
	}},
}

// buildFixture makes count[k] entries of each kind in a fresh directory with
// a .gitignore for the ignored kinds and returns the expected tally.
func buildFixture(t testing.TB, counts map[string]int) (string, [numClasses]int) {
	dir, err := os.MkdirTemp("", "tandem-grep-")
	must(t, err)
	if tt, ok := t.(interface{ Cleanup(func()) }); ok {
		tt.Cleanup(func() { os.RemoveAll(dir) })
	}
	writeFile(t, dir, ".gitignore", []byte("*.log\nbuild*/\n"))
	var want [numClasses]int
	want[ClassDir] = 1
	want[ClassSearched] = 1 // .gitignore itself
	for _, k := range fixtureKinds {
		for i := 0; i < counts[k.name]; i++ {
			k.make(t, dir, i)
		}
		want[k.class] += counts[k.name]
		if k.name == "vcs" {
			want[ClassDir] += counts[k.name] // v<i>/ is entered, its .git is not
		}
	}
	return dir, want
}

// Each walked entry is in exactly one class, and the classes sum to the walk.
func TestLaw_grep_accounts_every_file(t *testing.T) {
	counts := map[string]int{}
	for i, k := range fixtureKinds {
		counts[k.name] = 1 + i%3
	}
	counts["large"] = 1
	dir, want := buildFixture(t, counts)
	rep, err := GrepSearch(context.Background(), NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle", Glob: "{*.txt,*.bin,.gitignore}"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tally.Count != want {
		t.Fatalf("classes %v, want %v", rep.Tally.Count, want)
	}
	entries := 0
	must(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		entries++
		if d.IsDir() && (d.Name() == ".git" || strings.HasPrefix(d.Name(), "build")) {
			return filepath.SkipDir
		}
		return nil
	}))
	walked := 0
	for _, n := range rep.Tally.Count {
		walked += n
	}
	if walked != entries {
		t.Fatalf("the classes sum to %d, the walk met %d entries", walked, entries)
	}
	if rep.Tally.Count[ClassFile] != 0 {
		t.Fatalf("%d files were handed over and never classed", rep.Tally.Count[ClassFile])
	}
	if rep.FilesMatched != counts["match"]+counts["large"] {
		t.Fatalf("%d files matched, want %d", rep.FilesMatched, counts["match"]+counts["large"])
	}
}

// A skipped, cut or unsearched class has a notice iff it is not empty, and a
// shown file with cut matches has its own notice.
func TestLaw_grep_notes_every_gap(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		counts := map[string]int{}
		for _, k := range fixtureKinds {
			if k.name != "large" {
				counts[k.name] = rapid.IntRange(0, 2).Draw(rt, k.name)
			}
		}
		dir, want := buildFixture(t, counts)
		many := rapid.IntRange(0, 2).Draw(rt, "files with many matches")
		for i := 0; i < many; i++ {
			writeFile(t, dir, fmt.Sprintf("many%d.txt", i), bytes.Repeat([]byte("needle\n"), matchesPerFile+1+i))
			want[ClassSearched]++
		}
		out, err := Grep(context.Background(), NewStore(), NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle", Glob: "{*.txt,*.bin,.gitignore}"})
		if err != nil {
			rt.Fatal(err)
		}
		groups, notices := parseGrep(t, out)
		for c, says := range gapNotices {
			has := false
			for _, n := range notices {
				if says.MatchString(n) {
					has = true
				}
			}
			if has != (want[c] > 0 && !silentClasses[c]) {
				rt.Fatalf("class %v has %d entries, notice present %v:\n%s", says, want[c], has, out)
			}
		}
		cutFiles := 0
		for _, g := range groups {
			cut := len(g.rows) == matchesPerFile && strings.HasPrefix(headerPath(g.header), "many")
			noted := len(g.notes) > 0 && strings.Contains(g.notes[len(g.notes)-1], " in this file not shown")
			if cut != noted {
				rt.Fatalf("%s: cut %v, own notice %v:\n%s", g.header, cut, noted, out)
			}
			if cut {
				cutFiles++
			}
		}
		if cutFiles != many {
			rt.Fatalf("%d files cut, want %d", cutFiles, many)
		}
	})
}

// silentClasses are skipped without a notice: no search enters .git, and
// files outside the glob filter are what the filter asked for.
var silentClasses = map[Class]bool{ClassVCSDir: true, ClassNotMatched: true}

// gapNotices are the classes of entries that were skipped, cut or not
// searched, with what their notice says (or said, for the silent ones).
var gapNotices = map[Class]*regexp.Regexp{
	ClassBinary:      regexp.MustCompile(`^\(skipped: \d+ binary files? `),
	ClassUnreadable:  regexp.MustCompile(`^\(skipped: \d+ files? that could not be read`),
	ClassLarge:       regexp.MustCompile(`^\(searched whole without a tag: \d+ files? over the 4 MiB limit`),
	ClassCut:         regexp.MustCompile(`^\(searched in part: \d+ files? where the pattern was too slow`),
	ClassIgnoredFile: regexp.MustCompile(`^\(skipped: \d+ files? excluded by \.gitignore`),
	ClassIgnoredDir:  regexp.MustCompile(`^\(not entered: \d+ director(y|ies) excluded by \.gitignore`),
	ClassVCSDir:      regexp.MustCompile(`^\(not entered: \d+ \.git director(y|ies)`),
	ClassSymlink:     regexp.MustCompile(`^\(not followed: \d+ symbolic links?`),
	ClassSpecial:     regexp.MustCompile(`^\(skipped: \d+ special files? `),
	ClassTemp:        regexp.MustCompile(`^\(not shown: \d+ temporary files? `),
	ClassWalkError:   regexp.MustCompile(`^\(not entered: \d+ director(y|ies) that could not be listed`),
	ClassNotMatched:  regexp.MustCompile(`^\(skipped: \d+ files? outside the glob filter`),
}

// pages collects every page of a paged listing, following the continuation
// each page gives. It stops at an empty continuation page, which would
// otherwise offer itself again forever; the laws judge what it collected.
func pages(t *rapid.T, page func(skip int) (items []string, next int, err error)) [][]string {
	var all [][]string
	skip := 0
	for {
		items, next, err := page(skip)
		if err != nil {
			t.Fatalf("page at skip=%d: %v", skip, err)
		}
		all = append(all, items)
		if next == 0 || len(items) == 0 {
			return all
		}
		if next != skip+len(items) {
			t.Fatalf("continuation skip=%d after a page of %d items at skip=%d", next, len(items), skip)
		}
		skip = next
	}
}

func checkContinuation(t *rapid.T, got [][]string, want []string) {
	var flat []string
	seen := map[string]int{}
	for i, p := range got {
		for _, it := range p {
			if j, dup := seen[it]; dup {
				t.Fatalf("continuation_disjoint: %q on page %d and page %d", it, j, i)
			}
			seen[it] = i
			flat = append(flat, it)
		}
	}
	if fmt.Sprint(flat) != fmt.Sprint(want) {
		t.Fatalf("continuation_contiguous: pages %v, want the list %v", got, want)
	}
}

// paged is what a pager collected: the pages in order, the whole list they
// must make up, and the bound each page that has a continuation ended on.
type paged struct {
	got  [][]string
	want []string
	ends []string
}

// pageEnds names the bound each page but the last ended on: a page of the
// full count ended on the count bound (named bound), a shorter one on the
// byte bound of the output.
func pageEnds(got [][]string, full int, bound string) []string {
	var ends []string
	for i := 0; i+1 < len(got); i++ {
		if len(got[i]) >= full {
			ends = append(ends, bound)
		} else {
			ends = append(ends, "byte bound")
		}
	}
	return ends
}

// nextSkip is the continuation a rendered grep page gives.
var nextSkip = regexp.MustCompile(`next page: grep again with skip=(\d+)\)`)

// renderedPage reads a rendered grep page as the model does: the items it
// shows (files, or the matching rows of one file) and the skip it gives
// for the next page (0: none).
func renderedPage(out, output string, single bool) (items []string, next int) {
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "("):
			if m := nextSkip.FindStringSubmatch(line); m != nil {
				next, _ = strconv.Atoi(m[1])
			}
		case line == GapMarker || strings.HasPrefix(line, contextLead):
		case strings.HasPrefix(line, "["):
			if !single {
				items = append(items, headerPath(line))
			}
		case output == "files":
			items = append(items, line)
		case output == "count":
			path, _, _ := strings.Cut(line, ": ")
			items = append(items, path)
		case single:
			num, _, _ := strings.Cut(line, ":")
			items = append(items, num)
		}
	}
	return items, next
}

// wideText is a file of lines, every every-th one a match, each width bytes
// past its word: a few such files fill the output bound of a page.
func wideText(lines, every, width int) []byte {
	var b bytes.Buffer
	for i := 1; i <= lines; i++ {
		word := "hay"
		if i%every == 0 {
			word = "needle"
		}
		fmt.Fprintf(&b, "%s %d %s\n", word, i, strings.Repeat("w", width))
	}
	return b.Bytes()
}

// grepFilePages pages a directory search as a model does: through the
// session's Grep (its cursor included), reading the files and the next
// skip off each rendered page. In some cases the files have several long
// lines, so pages end on the byte bound of the output as well as on the
// file bound; paths and counts are paged too.
func grepFilePages(t *rapid.T, dir string) paged {
	n := rapid.IntRange(0, filesPerPage+2).Draw(t, "files")
	if rapid.Bool().Draw(t, "several pages") {
		n = rapid.IntRange(filesPerPage+1, 3*filesPerPage+3).Draw(t, "files")
	}
	// Rows of wide files in most cases: with half the cases wide and a third
	// rows, one page in ten ended on the byte bound, too few to be sure of
	// the five the law asks for.
	wide := rapid.IntRange(0, 3).Draw(t, "wide") > 0
	output := rapid.SampledFrom([]string{"rows", "rows", "files", "count"}).Draw(t, "output")
	around := 0
	if output == "rows" {
		around = rapid.IntRange(0, 2).Draw(t, "context")
	}
	var want []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("d%d/f%03d.txt", i%3, rapid.IntRange(0, 999).Draw(t, "name"))
		writeFile(t, dir, name, drawFileText(t, wide))
		want = append(want, name)
	}
	sort.Strings(want)
	want = dedupe(want)
	store := NewStore()
	got := pages(t, func(skip int) ([]string, int, error) {
		out, err := Grep(context.Background(), store, NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle", Skip: skip, Output: output, Context: around})
		if err != nil {
			return nil, 0, err
		}
		items, next := renderedPage(out, output, false)
		return items, next, nil
	})
	// Paths and counts show no row: their pages end on the file bound only.
	for i := 0; output != "rows" && i+1 < len(got); i++ {
		if len(got[i]) < filesPerPage {
			t.Fatalf("output %s: page %d lists %d files, yet offers a next page", output, i, len(got[i]))
		}
	}
	return paged{got, want, pageEnds(got, filesPerPage, "file bound")}
}

// grepLinePages pages the matches of one file, read off the rendered pages.
// The matching lines are short in some cases, so pages end on the match
// bound, and long in others (past the row cut in some), so pages end on
// the byte bound in the middle of the file.
func grepLinePages(t *rapid.T, dir string) paged {
	n := rapid.IntRange(1, matchesPerPage).Draw(t, "lines")
	if rapid.Bool().Draw(t, "several pages") {
		n = rapid.IntRange(2*matchesPerPage, 3*matchesPerPage+5).Draw(t, "lines")
	}
	wide := strings.Repeat("w", rapid.SampledFrom([]int{0, 0, 600, 2000, 5000}).Draw(t, "width"))
	var b bytes.Buffer
	var want []string
	for i := 1; i <= n; i++ {
		if rapid.IntRange(0, 3).Draw(t, "match") > 0 {
			fmt.Fprintf(&b, "needle %d%s\n", i, wide)
			want = append(want, strconv.Itoa(i))
		} else {
			b.WriteString("hay\n")
		}
	}
	writeFile(t, dir, "one.txt", b.Bytes())
	if len(want) == 0 {
		return paged{}
	}
	store := NewStore()
	got := pages(t, func(skip int) ([]string, int, error) {
		out, err := Grep(context.Background(), store, NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle", Path: "one.txt", Skip: skip})
		if err != nil {
			return nil, 0, err
		}
		items, next := renderedPage(out, "rows", true)
		return items, next, nil
	})
	return paged{got, want, pageEnds(got, matchesPerPage, "match bound")}
}

func globPages(t *rapid.T, dir string) paged {
	n := rapid.IntRange(0, 40).Draw(t, "files")
	limit := rapid.IntRange(1, 12).Draw(t, "limit")
	var want []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("s%d/f%03d.go", i%4, rapid.IntRange(0, 999).Draw(t, "name"))
		writeFile(t, dir, name, []byte("x"))
		want = append(want, name)
	}
	sort.Strings(want)
	want = dedupe(want)
	// The order is newest first: give each file its own time, oldest last.
	for i, name := range want {
		mt := fixedTime.Add(-durationSeconds(i))
		must(t, os.Chtimes(filepath.Join(dir, name), mt, mt))
	}
	got := pages(t, func(skip int) ([]string, int, error) {
		rep, err := GlobSearch(context.Background(), []string{dir}, GlobRequest{Pattern: "**/*.go", Skip: skip, Limit: limit})
		if err != nil {
			return nil, 0, err
		}
		var items []string
		for _, p := range rep.Page {
			items = append(items, p.Show)
		}
		if rep.Next > 0 && !strings.Contains(rep.Render(), fmt.Sprintf("(%s past this page: glob again with skip=%d)", count(rep.Total-rep.Next, "more path"), rep.Next)) {
			return nil, 0, fmt.Errorf("the page does not give the count past the end:\n%s", rep.Render())
		}
		return items, rep.Next, nil
	})
	return paged{got, want, pageEnds(got, limit, "limit bound")}
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func tempDir(t *rapid.T) string {
	dir, err := os.MkdirTemp("", "tandem-pages-")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// pagers are the paged listings the continuation laws hold for, each with
// the bounds its pages end on and how many generated cases must have a page
// that ended on each: a law proves nothing of a bound no page ended on.
var pagers = map[string]struct {
	page func(*rapid.T, string) paged
	min  map[string]int
}{
	"grep files": {grepFilePages, map[string]int{"file bound": 5, "byte bound": 5}},
	"grep lines": {grepLinePages, map[string]int{"match bound": 5, "byte bound": 5}},
	"glob":       {globPages, map[string]int{"limit bound": 20}},
}

func forEachPager(t *testing.T, check func(t *rapid.T, got [][]string, want []string)) {
	for name, p := range pagers {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			hits := lawhit.New(t, p.min)
			rapid.Check(t, func(rt *rapid.T) {
				dir := tempDir(rt)
				defer os.RemoveAll(dir)
				l := p.page(rt, dir)
				check(rt, l.got, l.want)
				counted := map[string]bool{}
				for _, end := range l.ends {
					if !counted[end] {
						counted[end] = true
						hits.Hit(end)
					}
				}
			})
		})
	}
}

// A continuation page is never empty.
func TestLaw_continuation_progresses(t *testing.T) {
	forEachPager(t, func(t *rapid.T, got [][]string, want []string) {
		for i, p := range got {
			if i > 0 && len(p) == 0 {
				t.Fatalf("page %d is empty", i)
			}
		}
	})
}

// The pages in order are the whole list: none left out, none twice.
func TestLaw_continuation_contiguous(t *testing.T) {
	forEachPager(t, func(t *rapid.T, got [][]string, want []string) { checkContinuation(t, got, want) })
}

// A page and its continuation share no item.
func TestLaw_continuation_disjoint(t *testing.T) {
	forEachPager(t, func(t *rapid.T, got [][]string, want []string) {
		for i := 1; i < len(got); i++ {
			in := map[string]bool{}
			for _, x := range got[i-1] {
				in[x] = true
			}
			for _, x := range got[i] {
				if in[x] {
					t.Fatalf("%q is on page %d and on its continuation", x, i-1)
				}
			}
		}
	})
}

func TestGrepSearchesDirtyBuffers(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "a.go", []byte("on disk\n"))
	o := NewOverlay()
	o.Open(path, 1, []byte("on disk\n"))
	must(t, o.Change(path, 2, []Change{{Text: "typed but unsaved\n"}}))
	newFile := filepath.Join(dir, "new.go")
	o.Open(newFile, 1, []byte("unsaved new file\n"))
	store := NewStore()
	out, err := Grep(context.Background(), store, o, []string{dir}, GrepRequest{Pattern: "unsaved"})
	if err != nil {
		t.Fatal(err)
	}
	tag := TagOf([]byte("typed but unsaved\n"))
	if !strings.Contains(out, "[a.go#"+string(tag)+"]\n(unsaved editor buffer, version 2") || !strings.Contains(out, "[new.go#") {
		t.Fatalf("grep does not search the buffers:\n%s", out)
	}
	if !store.Seen(path, tag, 1) {
		t.Fatal("the buffer row grep showed is not seen")
	}
	out, _ = Grep(context.Background(), NewStore(), o, []string{dir}, GrepRequest{Pattern: "on disk"})
	if !strings.Contains(out, "(no file matches") {
		t.Fatalf("grep found the disk text under an open buffer:\n%s", out)
	}
}

func TestGrepAndGlobNeverShowTempFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.txt", []byte("needle\n"))
	writeFile(t, dir, "sub/"+TempPrefix+"a.txt-123", []byte("needle\n"))
	out, err := Grep(context.Background(), NewStore(), NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle"})
	if err != nil || strings.Contains(out, TempPrefix) || !strings.Contains(out, "not shown: 1 temporary file") {
		t.Fatalf("grep:\n%s %v", out, err)
	}
	out, err = Glob(context.Background(), []string{dir}, GlobRequest{Pattern: "**"})
	if err != nil || strings.Contains(out, TempPrefix) {
		t.Fatalf("glob:\n%s %v", out, err)
	}
}

func TestGrepRefusals(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.txt", []byte("x\n"))
	for _, c := range []struct {
		req  GrepRequest
		code refusal.Code
	}{
		{GrepRequest{Pattern: "("}, refusal.Invalid},
		{GrepRequest{Pattern: "x", Skip: -1}, refusal.Invalid},
		{GrepRequest{Pattern: "x", Skip: 5}, refusal.Invalid},
		{GrepRequest{Pattern: "x", Skip: math.MaxInt}, refusal.Invalid},
		{GrepRequest{Pattern: "x", Path: "a.txt", Skip: math.MaxInt}, refusal.Invalid},
		{GrepRequest{Pattern: "x", Path: "missing"}, refusal.NotFound},
		{GrepRequest{Pattern: "x", Path: "repo://.."}, refusal.Escapes},
		{GrepRequest{Pattern: "x", Glob: "[a"}, refusal.Invalid},
		{GrepRequest{Pattern: `a\nb`}, refusal.Invalid},
		{GrepRequest{Pattern: "a\nb", Literal: true}, refusal.Invalid},
	} {
		if _, err := Grep(context.Background(), NewStore(), NewOverlay(), []string{dir}, c.req); codeOf(err) != c.code {
			t.Errorf("%+v: %v, want %s", c.req, err, c.code)
		}
	}
	writeFile(t, dir, "b.md", []byte("x\n"))
	rep, err := GrepSearch(context.Background(), nil, []string{dir}, GrepRequest{Pattern: "x", Glob: "!*.md"})
	if err != nil || rep.FilesMatched != 1 || rep.Page[0].Show != "a.txt" || rep.Tally.Count[ClassNotMatched] != 1 {
		t.Errorf("glob !*.md must keep only a.txt: %+v %v", rep, err)
	}
	must(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644))
	out, err := Grep(context.Background(), NewStore(), NewOverlay(), []string{dir}, GrepRequest{Pattern: "x", Path: "pipe"})
	if err != nil || !strings.Contains(out, "skipped: 1 special file") {
		t.Errorf("grep of a named pipe must not block and must say why: %q %v", out, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Grep(ctx, NewStore(), NewOverlay(), []string{dir}, GrepRequest{Pattern: "x"}); codeOf(err) != refusal.Cancelled {
		t.Errorf("a cancelled grep: %v", err)
	}
}

// A file over the limit is searched whole and a non-UTF-8 file
// is searched too; both are shown without a tag, so nothing of them is
// recorded and their rows are no edit anchors.
func TestGrepLargeAndNonUTF8FilesHaveNoTag(t *testing.T) {
	dir := t.TempDir()
	big := writeFile(t, dir, "big.txt", append([]byte("needle first\n"), bytes.Repeat([]byte("z\n"), MaxFileBytes/2)...))
	latin := writeFile(t, dir, "latin.txt", []byte("caf\xe9 needle\n"))
	store := NewStore()
	out, err := Grep(context.Background(), store, NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"[big.txt]\n(over the 4 MiB limit: searched whole, but it has no tag, so these rows are not edit anchors)\n1:needle first\n",
		"[latin.txt]\n(not UTF-8 text: no tag, so these rows are not edit anchors)\n1:caf\uFFFD needle\n",
		"(searched whole without a tag: 1 file over the 4 MiB limit",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q in:\n%s", want, out)
		}
	}
	for _, p := range []string{big, latin} {
		if _, ok := store.Latest(p); ok {
			t.Fatalf("%s has no tag, yet grep recorded a version of it", p)
		}
	}
}

// Long lines cannot flood a page: it stops at the output bound, and the
// continuation picks up right after it.
func TestGrepPageStopsAtTheOutputBound(t *testing.T) {
	dir := t.TempDir()
	wide := bytes.Repeat([]byte("w"), 3000)
	for i := 0; i < filesPerPage; i++ {
		writeFile(t, dir, fmt.Sprintf("f%02d.txt", i), bytes.Repeat(append(append([]byte("needle "), wide...), '\n'), 5))
	}
	out, err := Grep(context.Background(), NewStore(), NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > maxBytes+maxRowBytes*matchesPerFile {
		t.Fatalf("a page of %d bytes", len(out))
	}
	groups, notices := parseGrep(t, out)
	next := fmt.Sprintf("next page: grep again with skip=%d)", len(groups))
	if len(groups) >= filesPerPage || !strings.Contains(notices[0], next) {
		t.Fatalf("%d files on the page; notice %q, want %q", len(groups), notices[0], next)
	}
}

// Paging one file with context: the pages in order show every line within
// context of a match exactly once — a match as "N:text", a line around one
// as " N:text" — whatever the bounds cut, and "..." stands exactly where a
// page skips lines.
func TestLaw_continuation_context_rows_once(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"match bound": 5, "byte bound": 5})
	rapid.Check(t, func(rt *rapid.T) {
		ends := map[string]bool{}
		dir := tempDir(rt)
		defer os.RemoveAll(dir)
		n := rapid.IntRange(1, 2*matchesPerPage+50).Draw(rt, "lines")
		around := rapid.IntRange(0, maxContext).Draw(rt, "context")
		sparse := rapid.IntRange(0, 12).Draw(rt, "sparseness")
		if rapid.Bool().Draw(rt, "several pages") { // enough matches for the match bound
			n = rapid.IntRange(2*matchesPerPage, 4*matchesPerPage).Draw(rt, "lines")
			sparse = rapid.IntRange(0, 2).Draw(rt, "sparseness")
		}
		wide := strings.Repeat("w", rapid.SampledFrom([]int{0, 1500}).Draw(rt, "width"))
		var b bytes.Buffer
		match := make([]bool, n+2)
		for i := 1; i <= n; i++ {
			if match[i] = rapid.IntRange(0, sparse).Draw(rt, "match") == 0; match[i] {
				fmt.Fprintf(&b, "needle %d%s\n", i, wide)
			} else {
				fmt.Fprintf(&b, "hay %d%s\n", i, wide)
			}
		}
		writeFile(t, dir, "one.txt", b.Bytes())
		var want []string
		for i := 1; i <= n; i++ {
			for j := max(1, i-around); j <= min(n, i+around); j++ {
				if match[j] {
					want = append(want, fmt.Sprintf("%s%d:", map[bool]string{true: "", false: contextLead}[match[i]], i))
					break
				}
			}
		}
		var got []string
		for skip, page := 0, 0; ; page++ {
			rep, err := GrepSearch(context.Background(), NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle", Path: "one.txt", Skip: skip, Context: around})
			if len(want) == 0 {
				if err != nil || len(rep.Page) != 0 {
					rt.Fatalf("no match, yet a page: %+v %v", rep, err)
				}
				break
			}
			if err != nil {
				rt.Fatalf("page at skip=%d: %v", skip, err)
			}
			text, _ := rep.Render()
			// The bound stops a page after the match that passes it, whose
			// window adds at most 2*context+1 rows (of at most len(wide)+24
			// bytes), beside the header and the notice.
			if bound := maxBytes + (2*maxContext+1)*(len(wide)+24) + 200; len(text) > bound {
				rt.Fatalf("page %d has %d bytes, past the bound of about %d", page, len(text), bound)
			}
			last, gap := 0, false // the last row of the page, and whether a gap marker follows it
			for _, line := range strings.Split(text, "\n") {
				if line == GapMarker {
					if around == 0 || last == 0 || gap {
						rt.Fatalf("page %d: a gap marker without context, before any row or twice:\n%s", page, text)
					}
					gap = true
					continue
				}
				prefix, _, _ := strings.Cut(line, ":")
				row, err := strconv.Atoi(strings.TrimPrefix(prefix, contextLead))
				if err != nil { // the header or a notice
					continue
				}
				if around > 0 && last > 0 && (row > last+1) != gap {
					rt.Fatalf("page %d: rows %d and %d, gap marker between them %v:\n%s", page, last, row, gap, text)
				}
				got = append(got, prefix+":")
				last, gap = row, false
			}
			if rep.Next == 0 {
				break
			}
			if rep.Next != rep.PageTo || rep.PageTo <= skip {
				rt.Fatalf("continuation skip=%d after a page that showed matches %d-%d", rep.Next, skip+1, rep.PageTo)
			}
			ends[map[bool]string{true: "match bound", false: "byte bound"}[rep.PageTo-skip >= matchesPerPage]] = true
			skip = rep.Next
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			rt.Fatalf("context %d: the pages show rows\n%v\nwant every line within context of a match once:\n%v", around, got, want)
		}
		for end := range ends {
			hits.Hit(end)
		}
	})
}

// A file cut at its 20 matches in a directory search shows no line around
// its 20th match that is the 21st or past it: those belong to the page of
// the file alone that its notice points to.
func TestGrepContextStopsBeforeTheMatchesNotShown(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "many.txt", append([]byte("before\n"), bytes.Repeat([]byte("needle\n"), matchesPerFile+5)...))
	out, err := Grep(context.Background(), NewStore(), NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle", Context: 3})
	if err != nil {
		t.Fatal(err)
	}
	groups, _ := parseGrep(t, out)
	rows := groups[0].rows
	if len(rows) != matchesPerFile+1 || rows[0].kind != "context" || rows[len(rows)-1].n != matchesPerFile+1 ||
		!strings.Contains(out, "(5 more matches in this file not shown") {
		t.Fatalf("want line 1 as context, then matches 2-21 and the notice of 5 more:\n%s", out)
	}
}

// The laws contiguous and disjoint hold across changes between pages: a
// session paging through a directory search while files are added,
// removed or changed to match no more sees each file that matched all along
// exactly once, and no file twice.
func TestLaw_continuation_across_changes(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"file bound": 5, "byte bound": 5})
	rapid.Check(t, func(t *rapid.T) {
		dir := tempDir(t)
		defer os.RemoveAll(dir)
		// In some cases the files have several long lines, so pages end
		// on the byte bound of the output as well as on the file bound.
		wide := rapid.Bool().Draw(t, "wide")
		var stable []string
		for i := range rapid.IntRange(filesPerPage+1, 3*filesPerPage+3).Draw(t, "files") {
			name := fmt.Sprintf("d%d/s%03d.txt", i%3, i)
			writeFile(t, dir, name, drawFileText(t, wide))
			stable = append(stable, name)
		}
		ends := map[string]bool{}
		store := NewStore()
		shown := map[string]int{}
		skip, page := 0, 0
		for ; ; page++ {
			rep, err := store.GrepPage(context.Background(), NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle", Skip: skip})
			if err != nil {
				t.Fatalf("page at skip=%d: %v", skip, err)
			}
			for _, f := range rep.Page {
				if p, twice := shown[f.Show]; twice {
					t.Fatalf("%s is on page %d and on page %d", f.Show, p, page)
				}
				shown[f.Show] = page
			}
			if rep.Next == 0 {
				break
			}
			ends[map[bool]string{true: "file bound", false: "byte bound"}[len(rep.Page) >= filesPerPage]] = true
			skip = rep.Next
			// Between pages: files come, go or stop matching, anywhere in
			// the order, never one of the stable ones.
			for i := range rapid.IntRange(0, 6).Draw(t, "changes") {
				name := fmt.Sprintf("d%d/c%03d.txt", rapid.IntRange(0, 2).Draw(t, "dir"), rapid.IntRange(0, 99).Draw(t, "name"))
				switch rapid.IntRange(0, 2).Draw(t, "change") {
				case 0:
					writeFile(t, dir, name, []byte(fmt.Sprintf("needle %d %d\n", page, i)))
				case 1:
					os.Remove(filepath.Join(dir, name))
				case 2:
					writeFile(t, dir, name, []byte("hay\n"))
				}
			}
		}
		for _, name := range stable {
			if _, ok := shown[name]; !ok {
				t.Fatalf("%s matched all along but is on no page (%d pages)", name, page+1)
			}
		}
		for end := range ends {
			hits.Hit(end)
		}
	})
}

// The walk reads a file in chunks: a match on a line across two chunks is
// found, a NUL byte past the chunk of the first match still makes the file
// binary, and a large file is searched to its end.
func TestGrepChunkBoundaries(t *testing.T) {
	lines := strings.Repeat("hay\n", chunkBytes/4)
	for _, c := range []struct {
		name    string
		text    string
		matched bool
		class   Class
	}{
		{"line across chunks", lines[:chunkBytes-8] + "hay needle\n", true, ClassSearched},
		{"line longer than a chunk", strings.Repeat("x", 3*chunkBytes) + "needle\n", true, ClassSearched},
		{"match after a long line", strings.Repeat("x", 3*chunkBytes) + "\n" + lines + "needle\n", true, ClassSearched},
		{"NUL after a long line", strings.Repeat("x", 3*chunkBytes) + "\n" + lines + "needle\x00\n", false, ClassBinary},
		{"byte order mark, no line end", "\uFEFFneedle", true, ClassSearched},
		{"NUL past the match", "needle\n" + lines + "\x00\n", false, ClassBinary},
		{"match past the size limit", strings.Repeat("hay\n", MaxFileBytes/4-1) + "hay needle\n", true, ClassLarge},
		{"large, one line", strings.Repeat("x", MaxFileBytes-10) + "needle" + strings.Repeat("x", 100), true, ClassLarge},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "f.txt", []byte(c.text))
			rep, err := GrepSearch(context.Background(), nil, []string{dir}, GrepRequest{Pattern: "needle"})
			if err != nil {
				t.Fatal(err)
			}
			if (rep.FilesMatched == 1) != c.matched || rep.Tally.Count[c.class] != 1 {
				t.Fatalf("matched %d files, classes %v; want matched %v, class %d", rep.FilesMatched, rep.Tally.Count, c.matched, c.class)
			}
			// A session of one call, which streams the page's file, shows the same.
			var shown []string
			for _, st := range []*Store{NewStoreForOneCall(), NewStore()} {
				out, err := Grep(context.Background(), st, nil, []string{dir}, GrepRequest{Pattern: "needle"})
				if err != nil {
					t.Fatal(err)
				}
				shown = append(shown, out)
			}
			if shown[0] != shown[1] {
				t.Fatalf("one call shows\n%s\na session shows\n%s", shown[0], shown[1])
			}
		})
	}
}

// A file whose NUL byte lies past its first match is skipped as binary
// also when it is not on the page: the walk does not count it (a count one
// too high made the next page start one file early and show a file again).
// Found on an installed VS Code server, whose ThirdPartyNotices.txt has a
// NUL at byte 1.6 M.
func TestGrepCountsNoBinaryFileOffThePage(t *testing.T) {
	dir := t.TempDir()
	for i := range filesPerPage {
		writeFile(t, dir, fmt.Sprintf("a%02d.txt", i), []byte("needle\n"))
	}
	writeFile(t, dir, "z.txt", []byte("needle\n"+strings.Repeat("hay\n", chunkBytes/2)+"\x00\n"))
	rep, err := GrepSearch(context.Background(), nil, []string{dir}, GrepRequest{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.FilesMatched != filesPerPage || rep.Tally.Count[ClassBinary] != 1 {
		t.Fatalf("%d files match, %d binary; want %d and 1 (z.txt is binary)", rep.FilesMatched, rep.Tally.Count[ClassBinary], filesPerPage)
	}
	out, err := Grep(context.Background(), NewStore(), nil, []string{dir}, GrepRequest{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "next page") {
		t.Fatalf("a next page is offered for no more files:\n%s", out)
	}
}

// drawFileText is a file of one matching line, or when wide of several long
// ones (up to a little past a file's match bound), so that pages end on the
// output's byte bound as well as on the file bound.
func drawFileText(t *rapid.T, wide bool) []byte {
	if !wide {
		return []byte("needle\n")
	}
	every := rapid.IntRange(1, 3).Draw(t, "every")
	return wideText(every*rapid.IntRange(1, matchesPerFile+2).Draw(t, "matches"), every, rapid.IntRange(0, 5000).Draw(t, "width"))
}

// drawStreamText is a file for the one-call law: lines with the needle in
// either case or none, and now and then a byte order mark, CRLF endings, a
// line longer than the walk's chunk, a byte that is not UTF-8, more matches
// than a page shows of one file, a NUL after the matches, no last line end.
func drawStreamText(t *rapid.T) []byte {
	var b bytes.Buffer
	if rapid.IntRange(0, 5).Draw(t, "bom") == 0 {
		b.WriteString("\uFEFF")
	}
	eol := "\n"
	if rapid.IntRange(0, 4).Draw(t, "crlf") == 0 {
		eol = "\r\n"
	}
	lines := rapid.IntRange(1, 3*matchesPerFile).Draw(t, "lines")
	for i := range lines {
		switch rapid.IntRange(0, 9).Draw(t, "line") {
		case 0, 1, 2:
			fmt.Fprintf(&b, "a needle %d", i)
		case 3:
			fmt.Fprintf(&b, "NEEDLE and Needle %d", i)
		case 4:
			b.WriteString(strings.Repeat("w", chunkBytes+rapid.IntRange(0, 100).Draw(t, "long")) + " needle")
		case 5:
			b.WriteString("not \xff UTF-8 needle")
		default:
			fmt.Fprintf(&b, "hay %d", i)
		}
		b.WriteString(eol)
	}
	if rapid.IntRange(0, 9).Draw(t, "nul") == 0 {
		b.WriteString("needle \x00\n")
	}
	if rapid.IntRange(0, 4).Draw(t, "no last end") == 0 {
		b.WriteString("last needle")
	}
	return b.Bytes()
}

// A session that serves one call (tandem tool) searches its page's files
// without holding them; what its grep shows is what a session's grep shows,
// byte for byte, page after page: rows, tags, counts, notices.
func TestLaw_one_call_grep_shows_what_a_session_shows(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"streamed": 50, "past a file's match bound": 20, "no tag": 20, "tagged": 20})
	rapid.Check(t, func(rt *rapid.T) {
		dir := tempDir(rt)
		defer os.RemoveAll(dir)
		for i := range rapid.IntRange(1, filesPerPage+5).Draw(rt, "files") {
			writeFile(t, dir, fmt.Sprintf("d%d/f%02d.txt", i%3, i), drawStreamText(rt))
		}
		req := GrepRequest{
			Pattern:    rapid.SampledFrom([]string{"needle", "NEEDLE", "a needle"}).Draw(rt, "pattern"),
			Literal:    true,
			IgnoreCase: rapid.Bool().Draw(rt, "ignore case"),
			Output:     rapid.SampledFrom([]string{"rows", "files", "count"}).Draw(rt, "output"),
		}
		one, session := NewStoreForOneCall(), NewStore()
		reached := map[string]bool{}
		defer func() {
			for branch, ok := range reached {
				if ok {
					hits.Hit(branch)
				}
			}
		}()
		for page := 0; ; page++ {
			a, errA := one.GrepPage(context.Background(), nil, []string{dir}, req)
			b, errB := session.GrepPage(context.Background(), nil, []string{dir}, req)
			if (errA == nil) != (errB == nil) {
				rt.Fatalf("page %d: one call %v, a session %v", page, errA, errB)
			}
			if errA != nil {
				return
			}
			textA := a.Record(one)
			textB := b.Record(session)
			if textA != textB {
				rt.Fatalf("page %d of %+v: one call shows\n%s\na session shows\n%s", page, req, textA, textB)
			}
			for _, f := range a.Page {
				reached["streamed"] = reached["streamed"] || f.lean
				reached["past a file's match bound"] = reached["past a file's match bound"] || f.Total > matchesPerFile
				reached["no tag"] = reached["no tag"] || f.Tag == ""
				reached["tagged"] = reached["tagged"] || f.Tag != ""
			}
			if a.Next == 0 {
				return
			}
			req.Skip = a.Next
		}
	})
}

// A notice names the same examples whatever worker met them first: the
// first by name.
func TestGrepNoticeExamplesAreTheFirstByName(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		writeFile(t, dir, fmt.Sprintf("d%d/b%02d.bin", i%4, i), []byte("needle\x00"))
	}
	want := []string{"d0/b00.bin", "d0/b04.bin", "d0/b08.bin"}
	for range 20 {
		rep, err := GrepSearch(context.Background(), nil, []string{dir}, GrepRequest{Pattern: "needle"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ex := range rep.Tally.Examples[ClassBinary] {
			got = append(got, Display([]string{dir}, ex))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("binary examples %v, want %v", got, want)
		}
	}
}

// A class repeated, then its literal, decided by decoding the runes before
// the literal backwards: bytes that are not UTF-8 count as one rune each,
// as the regexp package reads them forwards, and the match's column (shown
// for a long line) is where the regexp's leftmost match starts.
func TestTrailingClassReadsRunesAsTheRegexpDoes(t *testing.T) {
	lines := []string{"x\xffab", "\xff\xffab", "é\xa9ab", "\xe2\x82ab", "a\xc3ab", "€ab", "aab bab", " ab", "ab", "-ab xab"}
	for _, pattern := range []string{`[^ ]{2,}ab`, `\w+ab`, `.{3,}ab`, `[^a-z]{2,}ab`, `[\x{80}-\x{10FFFF}]+ab`} {
		m, err := Compile(pattern, false, false)
		if err != nil {
			t.Fatal(err)
		}
		if m.trail == nil {
			t.Fatalf("%q is not decided by the runes before its literal", pattern)
		}
		for _, line := range lines {
			want := m.re.FindIndex([]byte(line))
			got := m.trail.start([]byte(line), strings.Index(line, "ab"), m.lit)
			if want == nil && got != -1 || want != nil && got != want[0] {
				t.Errorf("%q on %q: match from %d, the regexp's %v", pattern, line, got, want)
			}
		}
	}
}

// lastLineEnd finds what bytes.LastIndexByte finds, line ends anywhere in
// stretches of any length.
func TestLastLineEndIsLastIndexByte(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := make([]byte, rapid.IntRange(0, 20_000).Draw(t, "len"))
		for range rapid.IntRange(0, 3).Draw(t, "ends") {
			if len(p) > 0 {
				p[rapid.IntRange(0, len(p)-1).Draw(t, "at")] = '\n'
			}
		}
		if got, want := lastLineEnd(p), bytes.LastIndexByte(p, '\n'); got != want {
			t.Fatalf("lastLineEnd = %d, want %d (len %d)", got, want, len(p))
		}
	})
}

// A buffer grown for a long line is handed back to the caller, so the next
// file's long line reads into it instead of a fresh one.
func TestEachChunkKeepsTheGrownBuffer(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "bundle.js", []byte(strings.Repeat("x", 3*chunkBytes)+"\n"))
	buf := make([]byte, 0, chunkBytes)
	if c := eachChunk(filepath.Join(dir, "bundle.js"), &buf, func([]byte, bool) chunkNext { return searchOn }); c != ClassSearched {
		t.Fatalf("class %v", c)
	}
	if cap(buf) <= 3*chunkBytes {
		t.Fatalf("the buffer handed back holds %d bytes, less than the line", cap(buf))
	}
}
