package documents

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// textGen draws texts rich in the bytes the line model must get right:
// lone "\r", "\n", "\r\n", a BOM (also in the middle), multibyte runes.
func textGen() *rapid.Generator[[]byte] {
	return piecesText(40, "a", "b", " ", "\r", "\n", "\r\n", "é", "\xef\xbb\xbf", "\r\r", "\n\n")
}

// piecesText draws texts of up to most pieces, after a BOM or not.
func piecesText(most int, pieces ...string) *rapid.Generator[[]byte] {
	piece := rapid.SampledFrom(pieces)
	return rapid.Custom(func(t *rapid.T) []byte {
		var b []byte
		if rapid.Bool().Draw(t, "bom") {
			b = append(b, bom...)
		}
		for _, p := range rapid.SliceOfN(piece, 0, most).Draw(t, "pieces") {
			b = append(b, p...)
		}
		return b
	})
}

// roundtrip is the property of the line model: scanning text, showing every
// line as read's rows and putting the rows' texts back with each line's own
// ending (and the BOM) gives the original bytes; every line's text holds no
// "\n" and no CRLF's "\r"; only the last line may lack an ending.
func roundtrip(t interface {
	Fatalf(string, ...any)
}, text []byte) {
	ls := Scan(text)
	if got := ls.Bytes(); !bytes.Equal(got, text) {
		t.Fatalf("Scan(%.200q).Bytes() = %.200q", text, got)
	}
	var rebuilt []byte
	if ls.BOM {
		rebuilt = append(rebuilt, bom...)
	}
	if ls.Len() > 0 {
		v := ViewRows(ls.Text, []Span{{1, ls.Len()}})
		rows := strings.Split(strings.TrimSuffix(v.Text, "\n"), "\n")
		if len(rows) != ls.Len() {
			t.Fatalf("%.200q: %d rows for %d lines", text, len(rows), ls.Len())
		}
		for i, row := range rows {
			n, line, ok := strings.Cut(row, ":")
			if !ok || n != strconv.Itoa(i+1) {
				t.Fatalf("%.200q: row %d is %.200q", text, i+1, row)
			}
			if _, whole := Row(i+1, ls.Text(i+1)); !whole {
				// A row cut by the row bound shows a prefix of its line.
				shown, _, _ := strings.Cut(line, " … [line cut: ")
				if !bytes.HasPrefix(ls.Text(i+1), []byte(shown)) {
					t.Fatalf("line %d: cut row %.200q is not a prefix of the line", i+1, line)
				}
				line = string(ls.Text(i + 1))
			}
			rebuilt = append(append(rebuilt, line...), ls.Ending(i+1)...)
		}
	}
	if !bytes.Equal(rebuilt, text) {
		t.Fatalf("rows of %.200q rebuild %.200q", text, rebuilt)
	}
	for i := 1; i <= ls.Len(); i++ {
		line, end := ls.Text(i), string(ls.Ending(i))
		if bytes.IndexByte(line, '\n') >= 0 {
			t.Fatalf("%.200q: line %d holds a newline", text, i)
		}
		if end != "\n" && end != "\r\n" && (end != "" || i != ls.Len()) {
			t.Fatalf("%.200q: line %d has ending %q", text, i, end)
		}
		if end == "\n" && bytes.HasSuffix(line, []byte("\r")) {
			t.Fatalf("%.200q: line %d keeps its CRLF's \\r as text", text, i)
		}
	}
}

func TestLinesRoundtrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { roundtrip(t, textGen().Draw(t, "text")) })
}

func FuzzLinesRoundtrip(f *testing.F) {
	for _, s := range []string{"", "a", "a\n", "a\r\n", "\r", "a\rb\n", "\r\r\n", "\xef\xbb\xbf", "\xef\xbb\xbfx\r\ny", "\n\n\r\n\r", "a\xef\xbb\xbfb\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if len(text) > 1<<16 {
			return
		}
		roundtrip(t, text)
	})
}

func TestScanLineModel(t *testing.T) {
	ls := Scan([]byte("\xef\xbb\xbfa\r\nb\rc\n\nd"))
	want := []string{"a", "b\rc", "", "d"}
	ends := []string{"\r\n", "\n", "\n", ""}
	if !ls.BOM || ls.Len() != len(want) {
		t.Fatalf("BOM %v, %d lines", ls.BOM, ls.Len())
	}
	for i := range want {
		if string(ls.Text(i+1)) != want[i] || string(ls.Ending(i+1)) != ends[i] {
			t.Errorf("line %d = %q %q; want %q %q", i+1, ls.Text(i+1), ls.Ending(i+1), want[i], ends[i])
		}
	}
	if Scan([]byte("a\n")).Len() != 1 || Scan(nil).Len() != 0 {
		t.Error("a trailing ending must not start an empty last line")
	}
}
