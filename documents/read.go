package documents

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tandemdev/tandem/refusal"
)

// maxEntries bounds a directory listing.
const maxEntries = 1000

// Read shows the file or directory at path p as the model sees it: the header
// "[path#TAG]", notices in parentheses, then numbered rows. lines is an
// optional selector. The rows that reached the model whole are recorded as
// seen in store, under the version whose whole content the tag names: a
// partial read's rows are rows of that version.
func Read(ctx context.Context, store *Store, buffers *Overlay, roots []string, p, lines string) (string, error) {
	return ReadPart(ctx, store, buffers, roots, p, lines, "", nil)
}

// Room is what a call that reads several parts may still show: its parts
// together are bounded as one read is, so the call costs no more context.
type Room struct{ rows, bytes int }

// NewRoom is the room of one read.
func NewRoom() *Room { return &Room{rows: maxRows, bytes: maxBytes} }

// Take reports whether text fits in what is left, and takes its share. The
// first text always fits: a read bounds itself. A nil room holds anything.
func (r *Room) Take(text string) bool {
	if r == nil {
		return true
	}
	rows := strings.Count(text, "\n")
	if (r.rows < maxRows || r.bytes < maxBytes) && (rows > r.rows || len(text) > r.bytes) {
		return false
	}
	r.rows, r.bytes = r.rows-rows, r.bytes-len(text)
	return true
}

// ErrNoRoom is why ReadPart showed nothing of a part: it does not fit in
// the room the parts before it left. Nothing of it is recorded as seen.
var ErrNoRoom = errors.New("the part does not fit in what is left of the call's output bound")

// fit returns text when it fits in room, else ErrNoRoom.
func (r *Room) fit(text string, err error) (string, error) {
	if err == nil && !r.Take(text) {
		return "", ErrNoRoom
	}
	return text, err
}

// ReadPart is Read of one part of a call of several, within room: a part
// that does not fit is ErrNoRoom, and nothing of it is recorded. columns,
// when not "", selects bytes of the one line that lines names (see
// parseColumns).
func ReadPart(ctx context.Context, store *Store, buffers *Overlay, roots []string, p, lines, columns string, room *Room) (string, error) {
	abs, err := Resolve(roots, p)
	if err != nil {
		return "", err
	}
	show := Display(roots, abs)
	var spans []Span
	if lines != "" {
		if spans, err = ParseSelector(lines); err != nil {
			return "", err
		}
	}
	var cols Span
	if columns != "" {
		if cols, err = parseColumns(lines, columns); err != nil {
			return "", err
		}
	}
	snap, open, err := loadBuffer(buffers, abs)
	if !open {
		info, serr := os.Stat(abs)
		switch {
		case serr != nil:
			return "", statRefusal(show, serr)
		case info.IsDir() && columns != "":
			return "", refusal.New(refusal.Invalid, fmt.Sprintf("%s is a directory, and columns selects bytes of a line of a file. Call read again without columns.", show))
		case info.IsDir():
			return room.fit(listDir(abs, show, p, spans))
		}
		snap, err = loadFile(abs, info)
		snap.Lost = lostReason(buffers, abs)
	}
	var r *refusal.Error
	if errors.As(err, &r) && r.Code == refusal.TooLarge && spans != nil {
		var text io.Reader = bytes.NewReader(snap.Content)
		if !open {
			f, err := os.Open(abs)
			if err != nil {
				return "", statRefusal(show, err)
			}
			defer f.Close()
			text = f
		}
		if columns != "" {
			return room.fit(readLargeColumns(ctx, text, abs, show, p, spans[0].From, cols))
		}
		return room.fit(readLarge(ctx, text, abs, show, spans))
	}
	if err != nil {
		return "", NamedAs(err, abs, show)
	}
	ls := Scan(snap.Content)
	tag := TagOf(snap.Content)
	var out strings.Builder
	fmt.Fprintf(&out, "[%s#%s]\n", show, tag)
	if snap.Dirty {
		fmt.Fprintf(&out, "(unsaved editor buffer, version %d: this text is not on disk yet)\n", snap.Version)
	}
	if snap.Lost != "" {
		fmt.Fprintf(&out, "(the file on disk: the editor has it open, but tandem lost track of its unsaved text (%s), so it may differ from what the user sees, and it cannot be edited until the user closes and reopens it in the editor)\n", snap.Lost)
	}
	if ls.BOM {
		out.WriteString("(the file starts with a UTF-8 byte order mark; it is kept and not shown)\n")
	}
	var shown []int
	var window Span // the columns of windowLine a window row showed
	windowLine := 0
	switch {
	case columns != "" && spans[0].From > ls.Len():
		fmt.Fprintf(&out, "(line %d is past the end: the file has %d lines)\n", spans[0].From, ls.Len())
	case columns != "":
		text, n := ls.Text(spans[0].From), spans[0].From
		var whole bool
		var row string
		row, whole, window = columnRow(n, text, 0, len(text), cols, p, true)
		out.WriteString(row + "\n")
		if whole {
			shown = []int{n}
		} else {
			windowLine = n
		}
	case ls.Len() == 0:
		out.WriteString("(empty file)\n")
	default:
		shown = WriteRows(&out, ls, spans, lines != "", FilePager)
	}
	if !room.Take(out.String()) {
		return "", ErrNoRoom
	}
	store.Saw(abs, snap.Content)
	store.MarkSeen(abs, tag, shown...)
	if windowLine > 0 {
		store.MarkWindow(abs, tag, windowLine, window.From, window.To)
	}
	return out.String(), nil
}

// WriteRows writes the rows of ls that spans select (all of them when nil),
// and says which selected lines are past the end, or, when selected, how
// many lines there are; pager names the lines' unit and the call that
// shows others. It returns the lines whose whole rows it wrote.
func WriteRows(out *strings.Builder, ls Lines, spans []Span, selected bool, pager Pager) []int {
	n := ls.Len()
	var past []Span
	if spans == nil {
		spans = []Span{{1, n}}
	} else {
		var in []Span
		for _, s := range spans {
			switch {
			case s.From > n:
				past = append(past, s)
			case s.To > n:
				in = append(in, Span{s.From, n})
				if s.To != toEnd {
					past = append(past, Span{n + 1, s.To})
				}
			default:
				in = append(in, s)
			}
		}
		spans = in
	}
	v := viewRows(pager, func(n int) ([]byte, int) { t := ls.Text(n); return t, len(t) }, spans)
	out.WriteString(v.Text)
	if len(past) > 0 {
		fmt.Fprintf(out, "(lines %s are past the end: the %s has %d lines)\n", FormatSpans(past), pager.Unit, n)
	} else if selected {
		fmt.Fprintf(out, "(the %s has %d lines)\n", pager.Unit, n)
	}
	return v.Shown
}

// listDir lists a directory's entries by name, numbered so a long listing
// pages in its own order with a lines selector: directories end in "/",
// symlinks show their target, files their size and, for text, their line
// count — what a model would otherwise spend a shell call on.
func listDir(abs, show, asked string, spans []Span) (string, error) {
	entries, err := os.ReadDir(abs)
	if err != nil {
		return "", statRefusal(show, err)
	}
	var selected []int
	for n := 1; n <= len(entries); n++ {
		if spans == nil || inSpans(spans, n) {
			selected = append(selected, n)
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "[%s/] directory, %s\n", strings.TrimSuffix(show, "/"), count(len(entries), "entry"))
	budget := countBudget
	for _, n := range selected[:min(len(selected), maxEntries)] {
		e := entries[n-1]
		name := e.Name()
		full := abs + string(os.PathSeparator) + name
		switch {
		case e.Type()&os.ModeSymlink != 0:
			t, _ := os.Readlink(full)
			name += " -> " + t
		case e.IsDir():
			name += "/"
		case e.Type().IsRegular():
			name += "  " + fileFacts(full, &budget)
		}
		fmt.Fprintf(&out, "%d:%s\n", n, name)
	}
	if rest := selected[min(len(selected), maxEntries):]; len(rest) > 0 {
		from, to := rest[0], rest[min(len(rest), maxEntries)-1]
		fmt.Fprintf(&out, "(%s not shown: read {\"path\":%q,\"lines\":\"%d-%d\"} to list the next ones)\n", count(len(rest), "more entry"), asked, from, to)
	}
	return out.String(), nil
}

// countBudget bounds the bytes one listing reads to count lines: past it,
// files show their size only.
const countBudget = 32 << 20

// fileFacts returns a file's size and, when it is text and the listing's
// budget allows reading it, its line count.
func fileFacts(path string, budget *int) string {
	info, err := os.Stat(path)
	if err != nil {
		return "(cannot be read)"
	}
	size := ShortSize(info.Size())
	if info.Size() == 0 {
		return "empty"
	}
	if info.Size() > MaxFileBytes || int(info.Size()) > *budget {
		return size
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return size
	}
	*budget -= len(b)
	if bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0 {
		return size + ", binary"
	}
	return fmt.Sprintf("%s, %s", size, count(Scan(b).Len(), "line"))
}

// ShortSize formats a byte count for a person to read.
func ShortSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// readLarge shows selected rows of a text over the size limit by streaming
// it from r (the file, or the editor's buffer of it). There is no tag, so the
// rows are not edit anchors and nothing is marked seen.
func readLarge(ctx context.Context, r io.Reader, abs, show string, spans []Span) (string, error) {
	rows := map[int]largeLine{}
	more := 0 // the first selected line not shown, if the bound stopped the read
	last := spans[len(spans)-1].To
	var kept []Span
	br := bufio.NewReaderSize(ctxReader{ctx, r}, 64<<10)
	for n := 1; n <= last; n++ {
		in := inSpans(spans, n)
		keep := 0
		if in {
			keep = rowHead + len(bom)
		}
		line, ok, err := readLine(br, 0, keep)
		if ctx.Err() != nil {
			return "", cancelled("read")
		}
		if err != nil {
			return "", statRefusal(show, err)
		}
		if !ok {
			break
		}
		if !in {
			continue
		}
		if len(rows) == maxRows {
			// Only so many rows can be shown; the rest are not kept in memory.
			more = n
			break
		}
		if n == 1 && bytes.HasPrefix(line.head, bom) {
			line.head, line.size = line.head[len(bom):], line.size-len(bom)
		}
		if what := Encoding(wholeRunes(line)); what != "" {
			return "", refusal.New(refusal.Encoding, fmt.Sprintf(
				"%s is not UTF-8 text at line %d: %s. Inspect it with the shell (for example xxd or iconv) if you need it.", show, n, what))
		}
		rows[n] = line
		if k := len(kept); k > 0 && kept[k-1].To+1 == n {
			kept[k-1].To = n
		} else {
			kept = append(kept, Span{n, n})
		}
	}
	var out strings.Builder
	fmt.Fprintf(&out, "[%s]\n(over the 4 MiB limit: no tag, so these rows are not edit anchors, and neither edit nor write changes such a file; change it with the shell)\n", show)
	if len(kept) == 0 {
		out.WriteString("(the selected lines are past the end of the file)\n")
		return out.String(), nil
	}
	out.WriteString(viewRows(FilePager, func(n int) ([]byte, int) { return rows[n].head, rows[n].size }, kept).Text)
	if more > 0 {
		fmt.Fprintf(&out, "(the selected lines from %d on are not shown: at most %d rows a read; read them with lines \"%d-\")\n", more, maxRows, more)
	}
	return out.String(), nil
}

// ctxReader ends a read when ctx is done: a large read streams a file up to
// its selected lines, gigabytes when they are far in.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// cancelled returns the refusal for a call of the tool named what, when the
// call's context was done before the tool finished.
func cancelled(what string) error {
	return refusal.New(refusal.Cancelled, fmt.Sprintf("The %s was cancelled before it finished. Run it again if you still need it.", what))
}

// rowHead is how much of a line a large read keeps: what its row can show,
// and a rune more to cut on a rune boundary.
const rowHead = maxRowBytes + utf8.UTFMax

// largeLine is a line of a large read: its first bytes and its length
// without the ending, so a line of any length costs little memory.
type largeLine struct {
	head []byte
	size int
}

// readLine reads the next line of br, keeping its bytes from..to (its
// head when from is 0). ok is false at the end of the text. The ending
// ("\n" or "\r\n") is not part of the line; a lone "\r" at its end is text.
func readLine(br *bufio.Reader, from, to int) (line largeLine, ok bool, err error) {
	var tail [2]byte // the last two bytes read: an ending "\r\n"?
	for {
		chunk, err := br.ReadSlice('\n')
		at := line.size // where chunk starts in the line
		line.size += len(chunk)
		if a, z := max(from, at), min(to, line.size); a < z {
			line.head = append(line.head, chunk[a-at:z-at]...)
		}
		for _, c := range chunk[max(0, len(chunk)-2):] {
			tail[0], tail[1] = tail[1], c
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF && line.size == 0:
			return largeLine{}, false, nil
		case err != nil && err != io.EOF:
			return largeLine{}, false, err
		case err == nil: // ended by "\n"
			line.size--
			if line.size > 0 && tail[0] == '\r' {
				line.size--
			}
		}
		line.head = line.head[:max(0, min(len(line.head), line.size-from))]
		return line, true, nil
	}
}

// wholeRunes returns the head of a line without the rune its cut split, if
// any, so the encoding check judges only bytes that are there.
func wholeRunes(l largeLine) []byte {
	b := l.head
	if len(b) == l.size {
		return b
	}
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

func inSpans(spans []Span, n int) bool {
	for _, s := range spans {
		if n >= s.From && n <= s.To {
			return true
		}
	}
	return false
}

// maxColumns bounds the bytes of a line that one read with columns shows.
const maxColumns = 50_000

// parseColumns reads the columns selector of the one line that lines
// names: "A-B", "A-" (to the end of the line, as far as one read shows)
// or "A", counting bytes from 1 as rg --column does.
func parseColumns(lines, columns string) (Span, error) {
	if _, err := strconv.Atoi(strings.TrimSpace(lines)); err != nil {
		return Span{}, refusal.New(refusal.Invalid, fmt.Sprintf(
			"columns selects bytes of one line, and lines is %q. Call read again with one line number in lines, e.g. {\"lines\":\"12\",\"columns\":%q}.", lines, columns))
	}
	spans, err := ParseSelector(columns)
	if err != nil || len(spans) != 1 {
		return Span{}, refusal.New(refusal.Invalid, fmt.Sprintf(
			"The columns selector %q is not valid: use one 1-based byte range of the line, such as \"2800001-2804000\", \"4001-\" or \"17\". Fix it and read again.", columns))
	}
	return spans[0], nil
}

// columnRow renders the row of line n, size bytes long, that shows the
// columns cols (1-based bytes) of it, at most maxColumns of them and cut
// on rune boundaries: the whole row when they cover the line, else a
// window row (windowRow) naming the next read of path. part holds the
// line's bytes from base on, the columns and a rune either side.
func columnRow(n int, part []byte, base, size int, cols Span, path string, editable bool) (row string, whole bool, shown Span) {
	if cols.From > max(size, 1) {
		return fmt.Sprintf("(line %d is %d bytes: columns from %d are past its end)", n, size, cols.From), false, Span{1, 0}
	}
	from := cols.From - 1
	to := min(size, cols.To, from+maxColumns)
	if cols.To == toEnd {
		to = min(size, from+maxColumns)
	}
	i, j := from-base, to-base
	for i > 0 && !utf8.RuneStart(part[i]) {
		i--
	}
	for j < len(part) && !utf8.RuneStart(part[j]) {
		j++
	}
	if base+i == 0 && base+j == size {
		row, whole = Row(n, part[i:j])
		return row, whole, Span{1, size}
	}
	row = windowRow(n, part[i:j], base+i, size, path, -1)
	if editable {
		row = strings.TrimSuffix(row, "]") + fmt.Sprintf("; edit text inside columns %d-%d with old/new]", base+i+1, base+j)
	}
	return row, false, Span{base + i + 1, base + j}
}

// readLargeColumns shows columns cols of line n of a text over the size
// limit, streaming it from r: a line of any length costs the columns shown.
func readLargeColumns(ctx context.Context, r io.Reader, abs, show, path string, n int, cols Span) (string, error) {
	br := bufio.NewReaderSize(ctxReader{ctx, r}, 64<<10)
	if head, _ := br.Peek(len(bom)); bytes.Equal(head, bom) {
		_, _ = br.Discard(len(bom))
	}
	// The columns and a rune either side, to cut on rune boundaries.
	base := max(0, cols.From-1-utf8.UTFMax)
	var line largeLine
	for i := 1; i <= n; i++ {
		keep, ok, err := readLine(br, base, min(cols.To, cols.From-1+maxColumns)+utf8.UTFMax)
		if ctx.Err() != nil {
			return "", cancelled("read")
		}
		if err != nil {
			return "", statRefusal(show, err)
		}
		if !ok {
			return fmt.Sprintf("[%s]\n(line %d is past the end: the file has %d lines)\n", show, n, i-1), nil
		}
		line = keep
	}
	var out strings.Builder
	fmt.Fprintf(&out, "[%s]\n(over the 4 MiB limit: no tag, so these rows are not edit anchors, and neither edit nor write changes such a file; change it with the shell)\n", show)
	row, _, _ := columnRow(n, line.head, base, line.size, cols, path, false)
	if what := Encoding(wholeRunes(largeLine{head: []byte(row), size: len(row)})); what != "" {
		return "", refusal.New(refusal.Encoding, fmt.Sprintf(
			"%s is not UTF-8 text at line %d: %s. Inspect it with the shell (for example xxd or iconv) if you need it.", show, n, what))
	}
	out.WriteString(row + "\n")
	return out.String(), nil
}
