package documents

import (
	"bytes"
	"context"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// rgLines runs the real ripgrep on path and returns the numbers of the
// lines it matches.
func rgLines(t *testing.T, pattern, path string) []int {
	t.Helper()
	if _, err := exec.LookPath("rg"); err != nil {
		t.Fatal("rg is missing: scripts/setup installs ripgrep, which these tests compare grep with")
	}
	out, err := exec.Command("rg", "--no-config", "-n", "--no-heading", "--no-filename", pattern, path).Output()
	if err != nil && len(out) > 0 {
		t.Fatalf("rg: %v", err)
	}
	var ns []int
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if num, _, ok := strings.Cut(line, ":"); ok {
			n, err := strconv.Atoi(num)
			if err != nil {
				t.Fatalf("rg printed %q", line)
			}
			ns = append(ns, n)
		}
	}
	return ns
}

// hugeText is a text of size bytes or a little more: numbered lines, one
// in every 997 with a match, some with CRLF endings, a line of a megabyte
// whose match is at its end, and a last line without ending that matches.
func hugeText(size int) []byte {
	b := make([]byte, 0, size+2<<20)
	for n := 1; len(b) < size; n++ {
		b = strconv.AppendInt(b, int64(n), 10)
		switch {
		case n%997 == 0:
			b = append(b, " the needle is here, past every chunk boundary\n"...)
		case n == 500_000:
			b = append(append(b, bytes.Repeat([]byte("minified;"), 1<<20/9)...), "needle\n"...)
		case n%13 == 0:
			b = append(b, " hay with a windows ending\r\n"...)
		default:
			b = append(b, " hay, hay and more hay: nothing to see in this line at all\n"...)
		}
	}
	return append(b, "needle at the end, no line end"...)
}

// A file over the size limit is searched whole, as ripgrep searches it:
// the same matching lines, in one file's pages and in a directory search,
// without holding the file.
func TestLaw_grep_searches_a_huge_file_whole_as_ripgrep(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "huge.txt", hugeText(110<<20))
	want := rgLines(t, "needle", path)
	if len(want) < 1000 || want[len(want)-1] < 1_500_000 {
		t.Fatalf("the fixture has %d matches, the last at line %d: too few to test", len(want), want[len(want)-1])
	}
	ctx := context.Background()
	var got []int
	for skip := 0; ; {
		rep, err := GrepSearch(ctx, nil, []string{dir}, GrepRequest{Pattern: "needle", Path: "huge.txt", Skip: skip})
		if err != nil {
			t.Fatal(err)
		}
		if rep.LinesMatched != len(want) || rep.Tally.Count[ClassLarge] != 1 {
			t.Fatalf("skip %d: %d matching lines, classes %v; rg finds %d", skip, rep.LinesMatched, rep.Tally.Count, len(want))
		}
		for _, h := range rep.Page[0].Hits {
			got = append(got, h.N)
		}
		if skip = rep.Next; skip == 0 {
			break
		}
		// The pages in the middle are rg's too; the test needs only a few.
		if skip < len(want)-2*matchesPerPage {
			skip = len(want) - 2*matchesPerPage
			got = append(got, want[len(got):skip]...)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("grep's lines differ from rg's: %d vs %d lines", len(got), len(want))
	}
	rep, err := GrepSearch(ctx, nil, []string{dir}, GrepRequest{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Page) != 1 || rep.Page[0].Total != len(want) || rep.Page[0].Hits[0].N != want[0] {
		t.Fatalf("a directory search finds %+v; rg finds %d lines from %d", rep.Page, len(want), want[0])
	}
	out, err := Grep(ctx, NewStore(), nil, []string{dir}, GrepRequest{Pattern: "needle", Path: "huge.txt", Skip: len(want) - 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, strconv.Itoa(want[len(want)-1])+":needle at the end, no line end\n") {
		t.Fatalf("the last page does not show the last line:\n%s", out)
	}
}

// Searching a file costs the same memory whatever its size: a chunk and
// its longest line, not the file.
func TestGrepOfAHugeFileHoldsAChunkNotTheFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "huge.txt", hugeText(110<<20))
	ctx := context.Background()
	var allocated [2]uint64
	for i, req := range []GrepRequest{{Pattern: "needle", Path: "huge.txt"}, {Pattern: "needle"}} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := Grep(ctx, NewStore(), nil, []string{dir}, req); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		allocated[i] = after.TotalAlloc - before.TotalAlloc
	}
	t.Logf("bytes allocated by a grep of a 110 MB file: %d (one file), %d (a directory)", allocated[0], allocated[1])
	// The megabyte line gets a buffer of up to the size limit.
	for _, a := range allocated {
		if a > 3*MaxFileBytes {
			t.Fatalf("a grep of a 110 MB file allocated %d and %d bytes; a chunk and a line need under %d", allocated[0], allocated[1], 3*MaxFileBytes)
		}
	}
}

// A file over the limit shows context rows as a file within it does: the
// lines ripgrep's -C shows around the page's matches, read in a second
// pass, CRLF endings and long lines as rows show them.
func TestGrepContextOfAHugeFileIsRipgreps(t *testing.T) {
	dir := t.TempDir()
	var b []byte
	for n := 1; len(b) < MaxFileBytes+1<<20; n++ {
		b = strconv.AppendInt(b, int64(n), 10)
		switch {
		case n%50 == 0 || n%50 == 2:
			b = append(b, " needle\r\n"...)
		case n == 4:
			b = append(append(b, ' '), bytes.Repeat([]byte("é"), 3000)...)
			b = append(b, '\n')
		default:
			b = append(b, " hay\n"...)
		}
	}
	path := writeFile(t, dir, "big.txt", b)
	out, err := Grep(context.Background(), NewStore(), nil, []string{dir}, GrepRequest{Pattern: "needle", Path: "big.txt", Context: 2})
	if err != nil {
		t.Fatal(err)
	}
	rg, err := exec.Command("rg", "--no-config", "-n", "-C2", "--no-heading", "--no-filename", "needle", path).Output()
	if err != nil {
		t.Fatal(err)
	}
	// rg's rows "N:text" and "N-text", up to the page's last match.
	groups, _ := parseGrep(t, out)
	rows := groups[0].rows
	for rows[len(rows)-1].kind == "context" {
		rows = rows[:len(rows)-1]
	}
	last := rows[len(rows)-1].n
	var want []string
	for _, l := range strings.Split(string(rg), "\n") {
		i := strings.IndexAny(l, ":-")
		if i <= 0 {
			continue
		}
		n, _ := strconv.Atoi(l[:i])
		if n <= last {
			want = append(want, strings.TrimSuffix(l, "\r"))
		}
	}
	var got []string
	for i, r := range rows {
		sep := ":"
		if r.kind == "context" {
			sep = "-"
		}
		// A row cuts a long line, and says so: its head is rg's.
		text, _, cut := strings.Cut(r.text, " … [line cut: ")
		if cut && i < len(want) && strings.HasPrefix(want[i], strconv.Itoa(r.n)+sep+text) {
			text = strings.TrimPrefix(want[i], strconv.Itoa(r.n)+sep)
		}
		got = append(got, strconv.Itoa(r.n)+sep+text)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("grep shows\n%.2000s\nrg shows\n%.2000s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
