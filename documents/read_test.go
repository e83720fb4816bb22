package documents

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/refusal"
)

// parsedRead is a read's output taken apart the way a model reads it.
type parsedRead struct {
	header  string
	notices []string
	items   []readItem // rows, gap markers and cut markers, in order
}

type readItem struct {
	kind string // "row", "gap", "cut"
	n    int
	text string
}

func parseRead(t testing.TB, out string) parsedRead {
	t.Helper()
	var p parsedRead
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case i == 0:
			p.header = line
		case line == GapMarker:
			p.items = append(p.items, readItem{kind: "gap"})
		case strings.HasPrefix(line, "... "):
			p.items = append(p.items, readItem{kind: "cut", text: line})
		case strings.HasPrefix(line, "("):
			p.notices = append(p.notices, line)
		default:
			num, text, ok := strings.Cut(line, ":")
			n, err := strconv.Atoi(num)
			if !ok || err != nil {
				t.Fatalf("line %q of the output is neither a row, a marker nor a notice:\n%s", line, out)
			}
			p.items = append(p.items, readItem{kind: "row", n: n, text: text})
		}
	}
	return p
}

func (p parsedRead) rows() []readItem {
	var rows []readItem
	for _, it := range p.items {
		if it.kind == "row" {
			rows = append(rows, it)
		}
	}
	return rows
}

func writeFile(t fataler, dir, name string, content []byte) string {
	p := filepath.Join(dir, filepath.FromSlash(name))
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, content, 0o644))
	return p
}

func numbered(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.Bytes()
}

// The first span has no gap marker; every later span has one iff it does not
// start right after the span before it. Selectors come in any order and may
// overlap; the rows shown are exactly the selected lines, in order.
func TestLaw_rows_gap_marks_every_jump(t *testing.T) {
	dir := t.TempDir()
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 60).Draw(rt, "lines")
		writeFile(t, dir, "f.txt", numbered(n))
		k := rapid.IntRange(1, 5).Draw(rt, "ranges")
		var parts []string
		want := map[int]bool{}
		for i := 0; i < k; i++ {
			a := rapid.IntRange(1, n+3).Draw(rt, "from")
			b := rapid.IntRange(a, a+rapid.IntRange(0, 10).Draw(rt, "len")).Draw(rt, "to")
			parts = append(parts, fmt.Sprintf("%d-%d", a, b))
			for x := a; x <= b && x <= n; x++ {
				want[x] = true
			}
		}
		sel := strings.Join(parts, ",")
		out, err := Read(context.Background(), NewStore(), NewOverlay(), []string{dir}, "f.txt", sel)
		if err != nil {
			rt.Fatalf("read %s: %v", sel, err)
		}
		p := parseRead(t, out)
		prev := 0
		gapPending := false
		seenRows := 0
		for i, it := range p.items {
			switch it.kind {
			case "gap":
				if i == 0 || p.items[i-1].kind != "row" || gapPending {
					rt.Fatalf("selector %s: gap marker not between two rows:\n%s", sel, out)
				}
				gapPending = true
			case "row":
				jump := prev != 0 && it.n != prev+1
				if jump != gapPending {
					rt.Fatalf("selector %s: row %d after row %d: gap marker %v, want %v:\n%s", sel, it.n, prev, gapPending, jump, out)
				}
				if it.n <= prev || !want[it.n] {
					rt.Fatalf("selector %s: row %d shown out of order or not selected:\n%s", sel, it.n, out)
				}
				if it.text != fmt.Sprintf("line %d", it.n) {
					rt.Fatalf("row %d shows %q", it.n, it.text)
				}
				prev, gapPending = it.n, false
				seenRows++
			case "cut":
				rt.Fatalf("a small read was cut:\n%s", out)
			}
		}
		if seenRows != len(want) {
			rt.Fatalf("selector %s: %d rows shown, want %d:\n%s", sel, seenRows, len(want), out)
		}
	})
}

// The tag names the text the rows come from: the disk bytes, or the open
// buffer's bytes when the editor has the file open; the store keeps exactly
// those bytes under the tag, and each row is that version's line.
func TestLaw_tag_names_shown_text(t *testing.T) {
	dir := t.TempDir()
	o := NewOverlay()
	rapid.Check(t, func(rt *rapid.T) {
		disk := textGen().Draw(rt, "disk")
		path := writeFile(t, dir, "t.txt", disk)
		o.Close(path)
		shown := disk
		if rapid.Bool().Draw(rt, "open") {
			shown = textGen().Draw(rt, "buffer")
			o.Open(path, 1, disk)
			must(t, o.Change(path, 2, []Change{{Text: string(shown)}}))
		}
		store := NewStore()
		out, err := Read(context.Background(), store, o, []string{dir}, "t.txt", "")
		if err != nil {
			rt.Fatalf("read: %v", err)
		}
		p := parseRead(t, out)
		tag := TagOf(shown)
		if p.header != "[t.txt#"+string(tag)+"]" {
			rt.Fatalf("header %q, want the tag of the shown bytes %s", p.header, tag)
		}
		kept, ok := store.Version(path, tag)
		if !ok || !bytes.Equal(kept, shown) {
			rt.Fatalf("the store does not hold the shown bytes under %s", tag)
		}
		ls := Scan(shown)
		for _, r := range p.rows() {
			if r.text != string(ls.Text(r.n)) {
				rt.Fatalf("row %d = %q, line %d of the tagged text = %q", r.n, r.text, r.n, ls.Text(r.n))
			}
		}
	})
}

func TestReadDirtyBufferIsShownAndSaid(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "a.go", []byte("package a\n"))
	o := NewOverlay()
	o.Open(path, 1, []byte("package a\n"))
	must(t, o.Change(path, 2, []Change{{Text: "package a // edited\n"}}))
	out, err := Read(context.Background(), NewStore(), o, []string{dir}, "a.go", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "1:package a // edited") || !strings.Contains(out, "(unsaved editor buffer, version 2") {
		t.Fatalf("the read does not show the unsaved buffer and say so:\n%s", out)
	}
	o.Saved(path)
	out, _ = Read(context.Background(), NewStore(), o, []string{dir}, "a.go", "")
	if strings.Contains(out, "unsaved") {
		t.Fatalf("a saved buffer is not unsaved:\n%s", out)
	}
}

// A long read keeps its head and tail, marks the cut with its count and the
// selector that reads it, and only rows that reached the model are seen.
func TestReadCutMiddleOnlyShownRowsSeen(t *testing.T) {
	dir := t.TempDir()
	n := maxRows + 500
	path := writeFile(t, dir, "long.txt", numbered(n))
	store := NewStore()
	out, err := Read(context.Background(), store, NewOverlay(), []string{dir}, "long.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	p := parseRead(t, out)
	var cut *readItem
	for i := range p.items {
		if p.items[i].kind == "cut" {
			cut = &p.items[i]
		}
	}
	if cut == nil {
		t.Fatalf("no cut marker in a %d-line read", n)
	}
	rows := p.rows()
	if rows[0].n != 1 || rows[len(rows)-1].n != n || len(rows) > maxRows {
		t.Fatalf("rows %d..%d (%d rows): want the head and the tail within %d rows", rows[0].n, rows[len(rows)-1].n, len(rows), maxRows)
	}
	shown := map[int]bool{}
	for _, r := range rows {
		shown[r.n] = true
	}
	missing := n - len(rows)
	if !strings.Contains(cut.text, fmt.Sprintf("%d lines cut", missing)) {
		t.Fatalf("cut marker %q does not count %d lines", cut.text, missing)
	}
	tag := TagOf(numbered(n))
	for i := 1; i <= n; i++ {
		if store.Seen(path, tag, i) != shown[i] {
			t.Fatalf("line %d: seen %v, shown %v", i, store.Seen(path, tag, i), shown[i])
		}
	}
	// The selector in the marker reads exactly the cut lines.
	sel := cut.text[strings.LastIndex(cut.text, "lines ")+len("lines "):]
	sel, _ = strconv.Unquote(sel)
	out2, err := Read(context.Background(), store, NewOverlay(), []string{dir}, "long.txt", sel)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range parseRead(t, out2).rows() {
		if shown[r.n] {
			t.Fatalf("the cut selector %s reads row %d again", sel, r.n)
		}
		shown[r.n] = true
	}
	if len(shown) != n {
		t.Fatalf("head, tail and the cut selector show %d of %d lines", len(shown), n)
	}
}

// A cut too long for one read names its first page: reading that page
// shows, uncut, the cut's first lines in order, across the selector's gaps,
// and following the pages shows every cut line once.
func TestReadCutTooLongForOneReadPagesThrough(t *testing.T) {
	dir := t.TempDir()
	n := 4*maxRows + 300
	writeFile(t, dir, "long.txt", numbered(n))
	for _, sel := range []string{"", fmt.Sprintf("1-40,100-%d,%d-%d", 2*maxRows, 2*maxRows+7, n)} {
		out, err := Read(context.Background(), NewStore(), NewOverlay(), []string{dir}, "long.txt", sel)
		if err != nil {
			t.Fatal(err)
		}
		var marker string
		shown := map[int]bool{}
		for _, it := range parseRead(t, out).items {
			switch it.kind {
			case "cut":
				marker = it.text
			case "row":
				shown[it.n] = true
			}
		}
		_, rest, ok := strings.Cut(marker, "a page at a time, starting with lines ")
		if !ok {
			t.Fatalf("read %q: the cut marker %q names no first page", sel, marker)
		}
		cutSel := marker[strings.Index(marker, "(")+1 : strings.Index(marker, ")")]
		cutSpans, err := ParseSelector(cutSel)
		if err != nil {
			t.Fatal(err)
		}
		var cut []int
		forwardRows(cutSpans, func(_, n int) bool { cut = append(cut, n); return true })
		page, _ := strconv.Unquote(rest)
		for len(cut) > 0 {
			out, err := Read(context.Background(), NewStore(), NewOverlay(), []string{dir}, "long.txt", page)
			if err != nil {
				t.Fatal(err)
			}
			p := parseRead(t, out)
			rows := p.rows()
			if len(rows) == 0 || len(rows) > maxRows || len(rows) > len(cut) {
				t.Fatalf("read %q: the page %q shows %d rows of %d cut", sel, page, len(rows), len(cut))
			}
			for i, r := range rows {
				if r.n != cut[i] || shown[r.n] {
					t.Fatalf("read %q: row %d of the page %q is line %d, want %d, shown once", sel, i, page, r.n, cut[i])
				}
				shown[r.n] = true
			}
			for _, it := range p.items {
				if it.kind == "cut" {
					t.Fatalf("read %q: the page %q is cut again: %s", sel, page, it.text)
				}
			}
			cut = cut[len(rows):]
			page = FormatSpans(SpansOf(cut[:min(len(cut), maxRows)]))
		}
	}
}

func TestReadLongLineIsCutAndNotSeen(t *testing.T) {
	dir := t.TempDir()
	content := []byte("short\n" + strings.Repeat("é", maxRowBytes) + "\n")
	path := writeFile(t, dir, "wide.txt", content)
	store := NewStore()
	out, err := Read(context.Background(), store, NewOverlay(), []string{dir}, "wide.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "[line cut: ") || !store.Seen(path, TagOf(content), 1) || store.Seen(path, TagOf(content), 2) {
		t.Fatalf("a cut row must say so and stay unseen:\n%.300s", out)
	}
}

func TestReadDirectoryLargeFileAndRefusals(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "sub/x.txt", []byte("x\n"))
	must(t, os.Symlink("sub/x.txt", filepath.Join(dir, "link")))
	out, err := Read(context.Background(), NewStore(), NewOverlay(), []string{dir}, ".", "")
	if err != nil || !strings.Contains(out, "sub/\n") || !strings.Contains(out, "link -> sub/x.txt\n") {
		t.Fatalf("directory listing:\n%s %v", out, err)
	}
	big := bytes.Repeat([]byte("0123456789abcdef\n"), MaxFileBytes/17+10)
	path := writeFile(t, dir, "big.txt", append(big, []byte("last\r\n")...))
	store := NewStore()
	// Neither edit nor write changes such a file: the refusal and the
	// ranged read's notice name the shell, never write, which refuses it.
	if _, err := Read(context.Background(), store, NewOverlay(), []string{dir}, "big.txt", ""); codeOf(err) != refusal.TooLarge || !strings.Contains(err.Error(), "in ranges") ||
		!strings.Contains(err.Error(), "neither edit nor write changes a file this large, so change it with the shell") {
		t.Fatalf("a whole read over the limit: %v", err)
	}
	last := bytes.Count(big, []byte("\n")) + 1
	out, err = Read(context.Background(), store, NewOverlay(), []string{dir}, "big.txt", fmt.Sprintf("2-3,%d-", last))
	if err != nil {
		t.Fatal(err)
	}
	p := parseRead(t, out)
	if p.header != "[big.txt]" || len(p.rows()) != 3 || p.rows()[2].text != "last" || p.items[2].kind != "gap" ||
		!strings.Contains(out, "neither edit nor write changes such a file; change it with the shell") {
		t.Fatalf("ranged read of a large file:\n%s", out)
	}
	if _, ok := store.Latest(path); ok {
		t.Fatal("a file over the limit has no tag, so nothing is recorded")
	}
	out, err = Read(context.Background(), store, NewOverlay(), []string{dir}, "big.txt", "10-")
	if err != nil || !strings.Contains(out, fmt.Sprintf("(the selected lines from %d on are not shown", 10+maxRows)) {
		t.Fatalf("an open range over a large file must stop at the row bound and say where:\n%.300s %v", out[max(0, len(out)-300):], err)
	}
	for sel, code := range map[string]refusal.Code{"0-3": refusal.Invalid, "5-2": refusal.Invalid, "x": refusal.Invalid} {
		if _, err := Read(context.Background(), NewStore(), NewOverlay(), []string{dir}, "sub/x.txt", sel); codeOf(err) != code {
			t.Errorf("selector %q: %v, want %s", sel, err, code)
		}
	}
	if _, err := Read(context.Background(), NewStore(), NewOverlay(), []string{dir}, "repo://../etc/passwd", ""); codeOf(err) != refusal.Escapes {
		t.Errorf("repo:// above the root: %v", err)
	}
}

// A ranged read of an open buffer over the size limit shows the buffer's
// rows, not the disk's: the editor's text is what the model is told about.
func TestReadLargeOpenBufferShowsTheBuffer(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "big.txt", []byte("on disk\n"))
	o := NewOverlay()
	o.Open(path, 1, append([]byte("in the buffer\n"), bytes.Repeat([]byte("z\n"), MaxFileBytes/2)...))
	store := NewStore()
	out, err := Read(context.Background(), store, o, []string{dir}, "big.txt", "1")
	if err != nil {
		t.Fatal(err)
	}
	if p := parseRead(t, out); p.header != "[big.txt]" || len(p.rows()) != 1 || p.rows()[0].text != "in the buffer" {
		t.Fatalf("ranged read of a large open buffer:\n%s", out)
	}
	if _, ok := store.Latest(path); ok {
		t.Fatal("a buffer over the limit has no tag, so nothing is recorded")
	}
	if _, err := Read(context.Background(), store, o, []string{dir}, "big.txt", ""); codeOf(err) != refusal.TooLarge {
		t.Fatalf("a whole read of a large open buffer: %v", err)
	}
}

// A listing over the bound says how many entries it left out and names the
// read that lists the next ones, in the listing's own order; that read works
// as written and shows exactly the rest.
func TestReadLongDirectoryPagesInItsOwnOrder(t *testing.T) {
	dir := t.TempDir()
	for i := range maxEntries + 2 {
		writeFile(t, dir, fmt.Sprintf("many/f%04d", i), []byte("x\n"))
	}
	out, err := Read(context.Background(), NewStore(), NewOverlay(), []string{dir}, "many", "")
	if err != nil {
		t.Fatal(err)
	}
	want := `(2 more entries not shown: read {"path":"many","lines":"1001-1002"} to list the next ones)`
	if !strings.HasSuffix(out, want+"\n") || strings.Count(out, "\n") != maxEntries+2 {
		t.Fatalf("a long listing ends with %q, want %q", out[strings.LastIndexByte(out[:len(out)-1], '\n')+1:], want)
	}
	if !strings.Contains(out, "\n1:f0000  2 B, 1 line\n") {
		t.Fatalf("an entry lacks its number, size or line count:\n%s", out[:200])
	}
	next, err := Read(context.Background(), NewStore(), NewOverlay(), []string{dir}, "many", "1001-1002")
	if err != nil {
		t.Fatal(err)
	}
	if next != "[many/] directory, 1002 entries\n1001:f1000  2 B, 1 line\n1002:f1001  2 B, 1 line\n" {
		t.Fatalf("the next page:\n%s", next)
	}
}

// A ranged read of a large file shows a long line as read shows any long
// line (cut on a rune boundary, with the count of bytes not shown) whatever
// its length, its ending and a BOM before it, and keeps only its head in
// memory.
func TestReadLargeFileLongLines(t *testing.T) {
	dir := t.TempDir()
	long := bytes.Repeat([]byte("é"), MaxFileBytes/2+10)
	for _, c := range []struct {
		name   string
		prefix string
		line   []byte
		ending string
	}{
		{"even", "", long, "\n"},
		{"odd", "", append([]byte("a"), long...), "\r\n"},
		{"bom", "\xef\xbb\xbf", append([]byte("a"), long...), "\r\n"},
		{"last", "", append([]byte("ab"), long...), "\r"},
	} {
		content := append(append([]byte(c.prefix), c.line...), c.ending...)
		content = append(content, "end\n"...)
		writeFile(t, dir, c.name, content)
		out, err := Read(context.Background(), NewStore(), NewOverlay(), []string{dir}, c.name, "1-2")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		line := c.line
		if c.ending == "\r" { // a lone CR is text: line 1 runs on to "end"
			line = append(append(line, '\r'), "end"...)
		}
		want, _ := Row(1, line)
		if rows := parseRead(t, out).rows(); "1:"+rows[0].text != want {
			t.Errorf("%s: row 1 is %.80q…%q, want %.80q…%q", c.name, rows[0].text, rows[0].text[max(0, len(rows[0].text)-80):], want, want[len(want)-80:])
		}
	}

	huge := writeFile(t, dir, "huge", append(bytes.Repeat([]byte("x"), 32<<20), "\nsecond\n"...))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := Read(context.Background(), NewStore(), NewOverlay(), []string{dir}, huge, "1-2")
	runtime.ReadMemStats(&after)
	if err != nil || !strings.Contains(out, "\n2:second\n") {
		t.Fatalf("read of a 32 MiB line: %v\n%.300s", err, out)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("reading past a 32 MiB line allocated %d bytes; a line should cost its head", alloc)
	}
}

// A ranged read that streams a huge file to lines far in ends at once when
// its context is done.
func TestReadLargeEndsWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "huge.txt", []byte("first\n"))
	must(t, os.Truncate(path, 16<<30)) // sparse: 16 GiB of NUL bytes without a line end
	cancelMidway(t, func(ctx context.Context) error {
		_, err := Read(ctx, NewStore(), NewOverlay(), []string{dir}, "huge.txt", "3")
		return err
	})
}
