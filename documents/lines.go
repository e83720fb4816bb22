package documents

import "bytes"

// bom is the UTF-8 byte order mark. A file's BOM is remembered, never shown
// as text, and written back unchanged by every edit.
var bom = []byte{0xEF, 0xBB, 0xBF}

// Line is one line of a file as byte offsets into the text after the BOM.
// Text is text[Start:End]; its ending is text[End:End+EndLen], which is "\n",
// "\r\n", or empty for a last line without ending. A lone "\r" is text.
type Line struct {
	// 32 bits: tandem shows files of at most 4 MiB, and a table half the
	// size is built and read faster.
	Start, End, EndLen int32
}

// Lines is the shared line model of read, grep and edit.
type Lines struct {
	BOM   bool
	Body  []byte // the text after the BOM
	Lines []Line
}

// Scan splits text into lines. A trailing ending does not start an empty
// last line: "a\n" is one line, "" is zero lines.
func Scan(text []byte) Lines {
	ls := Lines{Body: text}
	if bytes.HasPrefix(text, bom) {
		ls.BOM = true
		ls.Body = text[len(bom):]
	}
	body := ls.Body
	ls.Lines = make([]Line, 0, bytes.Count(body, []byte{'\n'})+1)
	for start := 0; start < len(body); {
		i := bytes.IndexByte(body[start:], '\n')
		if i < 0 {
			ls.Lines = append(ls.Lines, Line{Start: int32(start), End: int32(len(body))})
			break
		}
		end := start + i
		l := Line{Start: int32(start), End: int32(end), EndLen: 1}
		if end > start && body[end-1] == '\r' {
			l.End--
			l.EndLen = 2
		}
		ls.Lines = append(ls.Lines, l)
		start = end + 1
	}
	return ls
}

// Text returns line n (1-based) without its ending.
func (ls Lines) Text(n int) []byte {
	l := ls.Lines[n-1]
	return ls.Body[l.Start:l.End]
}

// Ending returns the ending of line n (1-based): "\n", "\r\n" or "".
func (ls Lines) Ending(n int) []byte {
	l := ls.Lines[n-1]
	return ls.Body[l.End : l.End+l.EndLen]
}

// Len is the number of lines.
func (ls Lines) Len() int { return len(ls.Lines) }

// Bytes reassembles the exact original bytes: BOM, then each line's text and
// its own ending. Scan followed by Bytes is the identity.
func (ls Lines) Bytes() []byte {
	var out bytes.Buffer
	out.Grow(len(ls.Body) + len(bom))
	if ls.BOM {
		out.Write(bom)
	}
	for i := range ls.Lines {
		out.Write(ls.Text(i + 1))
		out.Write(ls.Ending(i + 1))
	}
	return out.Bytes()
}
