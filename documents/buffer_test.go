package documents

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"pgregory.net/rapid"
)

// naiveOffset is the obvious model of an LSP position: walk the whole text
// line by line, then count UTF-16 units up to the line's ending.
func naiveOffset(text []byte, p Position) (int, bool) {
	off := 0
	for line := uint32(0); line < p.Line; line++ {
		i := bytes.IndexByte(text[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	units := uint32(0)
	for off < len(text) && units < p.Character {
		if text[off] == '\n' || (text[off] == '\r' && off+1 < len(text) && text[off+1] == '\n') {
			break
		}
		r, size := utf8.DecodeRune(text[off:])
		units += uint32(max(utf16.RuneLen(r), 1))
		off += size
	}
	return off, true
}

// naiveChange applies changes to a flat copy, all or nothing.
func naiveChange(text []byte, changes []Change) ([]byte, bool) {
	for _, c := range changes {
		if c.Range == nil {
			text = []byte(c.Text)
			continue
		}
		s, ok1 := naiveOffset(text, c.Range.Start)
		e, ok2 := naiveOffset(text, c.Range.End)
		if !ok1 || !ok2 || e < s {
			return nil, false
		}
		text = append(append(append([]byte(nil), text[:s]...), c.Text...), text[e:]...)
	}
	return text, true
}

// pieces are the texts the generators splice together: every line ending,
// a lone CR, multibyte, astral (surrogate pair) and invalid UTF-8.
var pieces = []string{"a", "xyz", "\n", "\r\n", "\r", "é", "€", "😀", "𝄞x", "\xff", " ", "\ufeff", "line\n"}

func genText(t *rapid.T, label string, maxPieces int) string {
	n := rapid.IntRange(0, maxPieces).Draw(t, label+"Len")
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(rapid.SampledFrom(pieces).Draw(t, label))
	}
	return b.String()
}

// genPosition draws a position that is usually inside the text, sometimes
// past a line's end (which clamps) and sometimes past the last line.
func genPosition(t *rapid.T, text []byte, label string) Position {
	lines := bytes.Split(text, []byte{'\n'})
	line := rapid.IntRange(0, len(lines)).Draw(t, label+"Line")
	width := 0
	if line < len(lines) {
		width = len(utf16.Encode([]rune(string(lines[line]))))
	}
	char := rapid.IntRange(0, width+2).Draw(t, label+"Char")
	return Position{Line: uint32(line), Character: uint32(char)}
}

// TestOverlayMatchesNaiveModel runs random incremental and full changes
// through the overlay and through the flat model and compares every text,
// every error and every version.
func TestOverlayMatchesNaiveModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		o := NewOverlay()
		// Large enough that the rope has many chunks, small enough to be quick.
		model := []byte(strings.Repeat(genText(t, "seed", 20), rapid.IntRange(1, 400).Draw(t, "repeat")))
		o.Open("/w/f.txt", 1, model)
		version := int32(1)
		for step := range rapid.IntRange(1, 30).Draw(t, "steps") {
			var changes []Change
			cur := model
			for range rapid.IntRange(1, 3).Draw(t, "batch") {
				if rapid.IntRange(0, 20).Draw(t, "full") == 0 {
					changes = append(changes, Change{Text: genText(t, "full", 10)})
					continue
				}
				a, b := genPosition(t, cur, "start"), genPosition(t, cur, "end")
				changes = append(changes, Change{Range: &Range{Start: a, End: b}, Text: genText(t, "ins", 4)})
				if next, ok := naiveChange(cur, changes[len(changes)-1:]); ok {
					cur = next
				}
			}
			want, ok := naiveChange(model, changes)
			err := o.Change("/w/f.txt", int32(step+2), changes)
			if ok != (err == nil) {
				t.Fatalf("step %d: model ok=%v, overlay error %v", step, ok, err)
			}
			if ok {
				model, version = want, int32(step+2)
			}
			got, _ := o.Get("/w/f.txt")
			if !bytes.Equal(got.Text, model) || got.Version != version {
				t.Fatalf("step %d: overlay has %q (v%d), model %q (v%d)", step, got.Text, got.Version, model, version)
			}
		}
	})
}

func TestOverlayChangeExamples(t *testing.T) {
	cases := []struct {
		name, text string
		r          Range
		insert     string
		want       string
	}{
		{"astral pair counts two units", "a😀b\n", Range{Position{0, 3}, Position{0, 4}}, "B", "a😀B\n"},
		{"after astral on second line", "x\n😀😀z\n", Range{Position{1, 4}, Position{1, 5}}, "Z", "x\n😀😀Z\n"},
		{"CRLF is one ending: past the end clamps before it", "ab\r\ncd", Range{Position{0, 9}, Position{0, 9}}, "!", "ab!\r\ncd"},
		{"delete a CRLF ending joins lines", "ab\r\ncd", Range{Position{0, 2}, Position{1, 0}}, "", "abcd"},
		{"lone CR is text", "a\rb\nc", Range{Position{0, 2}, Position{0, 3}}, "B", "a\rB\nc"},
		{"multibyte BMP is one unit", "é€x", Range{Position{0, 2}, Position{0, 3}}, "X", "é€X"},
		{"insert at end of last line", "ab", Range{Position{0, 2}, Position{0, 2}}, "\ncd", "ab\ncd"},
		{"position on the empty last line", "ab\n", Range{Position{1, 0}, Position{1, 0}}, "z", "ab\nz"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := NewOverlay()
			o.Open("/f", 1, []byte(c.text))
			if err := o.Change("/f", 2, []Change{{Range: &c.r, Text: c.insert}}); err != nil {
				t.Fatal(err)
			}
			if b, _ := o.Get("/f"); string(b.Text) != c.want || !b.Dirty || b.Version != 2 {
				t.Fatalf("got %q dirty=%v v%d, want %q dirty v2", b.Text, b.Dirty, b.Version, c.want)
			}
		})
	}
}

// A change that fails part-way leaves the document exactly as it was.
func TestOverlayChangeIsAllOrNothing(t *testing.T) {
	o := NewOverlay()
	o.Open("/f", 1, []byte("one\ntwo\n"))
	err := o.Change("/f", 2, []Change{
		{Range: &Range{Position{0, 0}, Position{0, 3}}, Text: "ONE"},
		{Range: &Range{Position{7, 0}, Position{7, 0}}, Text: "x"},
	})
	if err == nil || !strings.Contains(err.Error(), "past the end") {
		t.Fatalf("want a past-the-end error, got %v", err)
	}
	if b, _ := o.Get("/f"); string(b.Text) != "one\ntwo\n" || b.Version != 1 || b.Dirty {
		t.Fatalf("document changed by a failed change: %q v%d dirty=%v", b.Text, b.Version, b.Dirty)
	}
	if err := o.Change("/f", 3, []Change{{Range: &Range{Position{0, 2}, Position{0, 1}}, Text: ""}}); err == nil {
		t.Fatal("a range ending before its start was accepted")
	}
}

// A snapshot taken before a change keeps its text.
func TestOverlaySnapshotIsStable(t *testing.T) {
	o := NewOverlay()
	o.Open("/f", 1, bytes.Repeat([]byte("0123456789\n"), 500))
	before, _ := o.Get("/f")
	keep := bytes.Clone(before.Text)
	for i := range 100 {
		r := Range{Position{uint32(i), 0}, Position{uint32(i), 1}}
		if err := o.Change("/f", int32(i+2), []Change{{Range: &r, Text: "X"}}); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(before.Text, keep) {
		t.Fatal("an earlier snapshot changed under a later edit")
	}
	o.Saved("/f")
	if b, _ := o.Get("/f"); b.Dirty || !bytes.HasPrefix(b.Text, []byte("X123")) {
		t.Fatalf("after save: dirty=%v text %q", b.Dirty, b.Text[:10])
	}
}

// typingSession is the didChange stream of a user typing 10,000 keystrokes:
// words and newlines at a cursor, a backspace every seventh keystroke, and a
// click elsewhere in the document every 500 keystrokes.
func typingSession(lines int) [][]Change {
	out := make([][]Change, 0, 10_000)
	line, char := uint32(lines/2), uint32(3)
	word := []rune("tandem 😀 é ")
	for i := range 10_000 {
		if i%500 == 0 {
			line, char = uint32(i*7919%lines), 3
		}
		p := Position{Line: line, Character: char}
		switch {
		case i%7 == 6 && char > 0:
			r := Range{Start: Position{line, char - 1}, End: p}
			out = append(out, []Change{{Range: &r, Text: ""}})
			char--
		case i%60 == 59:
			out = append(out, []Change{{Range: &Range{p, p}, Text: "\n"}})
			line, char = line+1, 0
		default:
			c := string(word[i%len(word)])
			out = append(out, []Change{{Range: &Range{p, p}, Text: c}})
			char += uint32(len(utf16.Encode([]rune(c))))
		}
	}
	return out
}

// spreadEdits types one character and deletes another at positions spread
// over the whole document: the worst case for locality.
func spreadEdits(lines int) [][]Change {
	out := make([][]Change, 0, 10_000)
	for i := range 10_000 {
		p := Position{Line: uint32(i*7919) % uint32(lines), Character: uint32(i % 40)}
		r := Range{Start: p, End: p}
		t := "x"
		if i%2 == 1 {
			r.End.Character++
			t = ""
		}
		out = append(out, []Change{{Range: &r, Text: t}})
	}
	return out
}

func benchEdits(b *testing.B, size int, edits func(lines int) [][]Change) {
	line := "the quick brown fox jumps over the lazy dog 0123456789 é😀\n"
	text := strings.Repeat(line, size/len(line)+1)[:size]
	session := edits(strings.Count(text, "\n"))
	for b.Loop() {
		b.StopTimer()
		o := NewOverlay()
		o.Open("/f", 1, []byte(text))
		b.StartTimer()
		for i, c := range session {
			if err := o.Change("/f", int32(i+2), c); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDidChange10k compares a typing session of 10,000 incremental
// edits on a 1 KiB and on a 1 MiB buffer; scripts/bench reports the ratio
// (it must stay ≤ 3×).
func BenchmarkDidChange10k(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) { benchEdits(b, size, typingSession) })
	}
}

// BenchmarkDidChange10kSpread is the same with every edit somewhere else in
// the document; in a large buffer the chunks it touches are no longer in the
// CPU caches, which the ratio shows.
func BenchmarkDidChange10kSpread(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) { benchEdits(b, size, spreadEdits) })
	}
}

// Readers running beside the editor's typing see whole versions: the text
// of each snapshot is exactly the text of its version.
func TestOverlayConcurrentReadsSeeWholeVersions(t *testing.T) {
	o := NewOverlay()
	base := strings.Repeat("0123456789\n", 300)
	o.Open("/f", 1, []byte(base))
	done := make(chan struct{})
	errs := make(chan string, 2)
	for range 2 {
		go func() {
			for {
				select {
				case <-done:
					errs <- ""
					return
				default:
				}
				b, _ := o.Get("/f")
				typed := int(b.Version) - 1
				if want := base[:1500] + strings.Repeat("é", typed) + base[1500:]; string(b.Text) != want {
					errs <- fmt.Sprintf("version %d has %d bytes, want %d", b.Version, len(b.Text), len(want))
					return
				}
			}
		}()
	}
	// Line 136 starts at byte 1496; character 4 is byte 1500.
	for i := range 2000 {
		p := Position{Line: 136, Character: uint32(4 + i)}
		if err := o.Change("/f", int32(i+2), []Change{{Range: &Range{p, p}, Text: "é"}}); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	for range 2 {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
}
