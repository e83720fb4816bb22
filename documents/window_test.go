package documents

import (
	"context"
	"encoding/json"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// windowRE takes a window row apart: its line, its text, its line's size,
// the columns shown, the match's column and the read it proposes.
var windowRE = regexp.MustCompile(`^(\d+):(…?)(.*?)(…?) \[line \d+ is (\d+) bytes; shown: columns (\d+)-(\d+)(?:, the match at column (\d+))?; read more with (\{.*\}); this line is not marked seen(?:; edit text inside columns \d+-\d+ with old/new)?\]$`)

type shownWindow struct {
	n, size, from, to, match int
	text                     string
	cutBefore, cutAfter      bool
	next                     struct{ Path, Lines, Columns string }
}

func parseWindow(t *testing.T, row string) shownWindow {
	t.Helper()
	m := windowRE.FindStringSubmatch(row)
	if m == nil {
		t.Fatalf("not a window row: %.300q", row)
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	w := shownWindow{n: atoi(m[1]), text: m[3], size: atoi(m[5]), from: atoi(m[6]), to: atoi(m[7]), match: atoi(m[8]),
		cutBefore: m[2] != "", cutAfter: m[4] != ""}
	if err := json.Unmarshal([]byte(m[9]), &w.next); err != nil {
		t.Fatalf("the read it proposes, %s: %v", m[9], err)
	}
	return w
}

// rgColumn runs the real ripgrep and returns the line and 1-based byte
// column of its first match.
func rgColumn(t *testing.T, pattern, path string) (int, int) {
	t.Helper()
	out, err := exec.Command("rg", "--no-config", "-n", "--column", "--no-heading", "--no-filename", "-m1", "-M", "100", pattern, path).Output()
	if err != nil {
		t.Fatalf("rg: %v", err)
	}
	f := strings.SplitN(string(out), ":", 3)
	n, _ := strconv.Atoi(f[0])
	c, _ := strconv.Atoi(f[1])
	return n, c
}

// A match on a line too long for a row is shown in a window around it,
// cut on rune boundaries and marked where the line goes on, with the
// column ripgrep gives; the read the row proposes shows those bytes; the
// line is not seen. So in a file within the limit and in one over it.
func TestGrepShowsAWindowAroundAMatchOnALongLine(t *testing.T) {
	long := strings.Repeat("é", 100_000) + "var ɵEngine=needle();" + strings.Repeat("ü", 200_000)
	for _, c := range []struct {
		name, text, pattern string
		n                   int
	}{
		{"within the limit", "first\n" + long + "\nlast\n", `needle\(\)`, 2},
		// A boundary is checked on the whole line, not near the literal.
		{"within the limit, a boundary", "first\n" + long + "\nlast\n", `\bneedle\(\)`, 2},
		{"over the limit", strings.Repeat("filler line\n", MaxFileBytes/12) + long + "\nlast\n", `needle\(\)`, MaxFileBytes/12 + 1},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, "min.js", []byte(c.text))
			store := NewStore()
			out, err := Grep(context.Background(), store, nil, []string{dir}, GrepRequest{Pattern: c.pattern, Path: "min.js", Context: 1})
			if err != nil {
				t.Fatal(err)
			}
			var row string
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, strconv.Itoa(c.n)+":") {
					row = l
				}
			}
			w := parseWindow(t, row)
			rgLine, rgCol := rgColumn(t, c.pattern, path)
			start := strings.Index(long, "needle")
			switch {
			case w.n != rgLine || w.match != rgCol || w.match != start+1:
				t.Fatalf("line %d, match at column %d; rg says line %d column %d", w.n, w.match, rgLine, rgCol)
			case w.size != len(long) || w.text != long[w.from-1:w.to] || !utf8.ValidString(w.text):
				t.Fatalf("the window (columns %d-%d) does not show those bytes of the line", w.from, w.to)
			case !strings.Contains(w.text, "needle()") || w.to-w.from+1 > windowBytes+utf8.UTFMax:
				t.Fatalf("the window shows %d bytes around the match: %q", w.to-w.from+1, w.text)
			case !w.cutBefore || !w.cutAfter:
				t.Fatalf("the window does not mark that the line goes on either side: %.200q", row)
			}
			if tag, ok := store.Latest(path); ok && store.Seen(path, tag, c.n) {
				t.Fatal("a line shown as a window was marked seen")
			}
			more, err := ReadPart(context.Background(), store, nil, []string{dir}, w.next.Path, w.next.Lines, w.next.Columns, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := parseWindow(t, strings.Split(more, "\n")[len(strings.Split(more, "\n"))-2])
			if got.text != long[got.from-1:got.to] || got.from > start+1 || got.to < start+len("needle()") || got.to-got.from+1 < columnsRead-utf8.UTFMax {
				t.Fatalf("the read the row proposes shows columns %d-%d:\n%.300s", got.from, got.to, more)
			}
		})
	}
}

// columns reads exactly the bytes asked, widened to whole runes, from a
// line of a file within the limit or over it; a range that covers the
// line shows it whole, and only then is it seen.
func TestReadColumnsOfALine(t *testing.T) {
	line := "abc" + strings.Repeat("€", 5000) + "xyz"
	for _, big := range []bool{false, true} {
		dir := t.TempDir()
		text := "short\n" + line + "\n"
		if big {
			text += strings.Repeat("z\n", MaxFileBytes/2)
		}
		path := writeFile(t, dir, "f.txt", []byte(text))
		store := NewStore()
		read := func(lines, cols string) string {
			out, err := ReadPart(context.Background(), store, nil, []string{dir}, "f.txt", lines, cols, nil)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		// Column 5 is inside the first "€" (bytes 4-6).
		w := parseWindow(t, strings.Split(read("2", "5-10"), "\n")[len(strings.Split(read("2", "5-10"), "\n"))-2])
		if w.from != 4 || w.to != 12 || w.text != "€€€" || w.cutBefore != true || w.cutAfter != true {
			t.Fatalf("columns 5-10 showed %d-%d %q", w.from, w.to, w.text)
		}
		w = parseWindow(t, strings.Split(read("2", "15001-"), "\n")[len(strings.Split(read("2", "15001-"), "\n"))-2])
		if w.text != line[15000:] || w.cutAfter || w.next.Columns != "11001-15000" {
			t.Fatalf("columns to the end showed %d-%d %q, next %q", w.from, w.to, w.text, w.next.Columns)
		}
		if out := read("1", "7-9"); !strings.Contains(out, "\n(line 1 is 5 bytes: columns from 7 are past its end)\n") {
			t.Fatalf("columns past the end of a line:\n%s", out)
		}
		if out := read("1", "1-"); !strings.Contains(out, "\n1:short\n") {
			t.Fatalf("columns covering a line do not show it whole:\n%s", out)
		}
		tag, ok := store.Latest(path)
		if ok == big || ok && (!store.Seen(path, tag, 1) || store.Seen(path, tag, 2)) {
			t.Fatalf("big %v: recorded %v; only a line shown whole is seen", big, ok)
		}
		for _, bad := range [][2]string{{"1-2", "1-5"}, {"", "1-5"}, {"2", "5-1"}, {"2", "x"}} {
			if _, err := ReadPart(context.Background(), store, nil, []string{dir}, "f.txt", bad[0], bad[1], nil); codeOf(err) != "invalid" {
				t.Fatalf("lines %q columns %q: %v", bad[0], bad[1], err)
			}
		}
	}
}
