package edits

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/documents"
)

// genText draws file bytes mixing LF, CRLF, lone CR, multibyte text, a BOM
// and a missing last ending.
func genText(t *rapid.T, label string) []byte {
	var b []byte
	if rapid.Bool().Draw(t, label+"bom") {
		b = append(b, 0xEF, 0xBB, 0xBF)
	}
	n := rapid.IntRange(0, 20).Draw(t, label+"n")
	for i := 0; i < n; i++ {
		b = append(b, rapid.SampledFrom([]string{"", "a", "bc", "\r", "x\ry", "é😀", "  "}).Draw(t, label+"text")...)
		if i < n-1 || rapid.Bool().Draw(t, label+"last") {
			b = append(b, rapid.SampledFrom([]string{"\n", "\r\n"}).Draw(t, label+"end")...)
		}
	}
	return b
}

// genOps draws line ops against a file of n lines; they may overlap (plan
// refuses those).
func genOps(t *rapid.T, n int) []Op {
	k := rapid.IntRange(1, 6).Draw(t, "ops")
	var ops []Op
	text := func() *string {
		s := strings.Join(rapid.SliceOfN(rapid.SampledFrom([]string{"new", "", "N\rM", "ü"}), 0, 3).Draw(t, "newlines"), "\n")
		return &s
	}
	anchor := func(a, b int) *Anchor {
		s := Anchor(fmt.Sprintf("%d", a))
		if b != a {
			s = Anchor(fmt.Sprintf("%d-%d", a, b))
		}
		return &s
	}
	for i := 0; i < k; i++ {
		kind := rapid.IntRange(0, 5).Draw(t, "kind")
		if n == 0 {
			kind = 4 + kind%2
		}
		var op Op
		switch kind {
		case 0, 1:
			a := rapid.IntRange(1, n).Draw(t, "from")
			b := rapid.IntRange(a, n).Draw(t, "to")
			if kind == 0 {
				op.Replace, op.Text = anchor(a, b), text()
			} else {
				op.Delete = anchor(a, b)
			}
		case 2:
			op.InsertAfter, op.Text = anchor(rapid.IntRange(1, n).Draw(t, "at"), 0), text()
			*op.InsertAfter = Anchor(strings.Split(string(*op.InsertAfter), "-")[0])
		case 3:
			op.InsertBefore, op.Text = anchor(rapid.IntRange(1, n).Draw(t, "at"), 0), text()
			*op.InsertBefore = Anchor(strings.Split(string(*op.InsertBefore), "-")[0])
		case 4:
			op.Prepend = text()
		case 5:
			op.Append = text()
		}
		ops = append(ops, op)
	}
	return ops
}

// refLine is a line of the reference model: its text and, for a kept line,
// its 1-based number in the old file.
type refLine struct {
	text string
	old  int
}

// refApply is the reference model of ops: a list of lines changed one op at
// a time, from the last position in the file to the first.
func refApply(base documents.Lines, ops []Op) []refLine {
	var lines []refLine
	for i := 1; i <= base.Len(); i++ {
		lines = append(lines, refLine{string(base.Text(i)), i})
	}
	type edit struct {
		at, del, order int
		text           *string
	}
	var es []edit
	num := func(a *Anchor) (int, int) {
		var x, y int
		if n, _ := fmt.Sscanf(string(*a), "%d-%d", &x, &y); n < 2 {
			y = x
		}
		return x, y
	}
	for i, op := range ops {
		switch {
		case op.Replace != nil:
			a, b := num(op.Replace)
			es = append(es, edit{a - 1, b - a + 1, i, op.Text})
		case op.Delete != nil:
			a, b := num(op.Delete)
			es = append(es, edit{a - 1, b - a + 1, i, nil})
		case op.InsertAfter != nil:
			a, _ := num(op.InsertAfter)
			es = append(es, edit{a, 0, i, op.Text})
		case op.InsertBefore != nil:
			a, _ := num(op.InsertBefore)
			es = append(es, edit{a - 1, 0, i, op.Text})
		case op.Prepend != nil:
			es = append(es, edit{0, 0, i, op.Prepend})
		case op.Append != nil:
			es = append(es, edit{base.Len(), 0, i, op.Append})
		}
	}
	// Last position first; at one position, a replacement before the
	// insertions, and insertions in reverse order, so they end up in order.
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].at != es[j].at {
			return es[i].at > es[j].at
		}
		if (es[i].del > 0) != (es[j].del > 0) {
			return es[i].del > 0
		}
		return es[i].order > es[j].order
	})
	for _, e := range es {
		var add []refLine
		if e.text != nil && *e.text != "" {
			for _, s := range strings.Split(strings.TrimSuffix(*e.text, "\n"), "\n") {
				add = append(add, refLine{s, 0})
			}
		}
		lines = append(lines[:e.at], append(add, lines[e.at+e.del:]...)...)
	}
	return lines
}

// refEndings is the reference rule for the ending written after each line.
func refEndings(base documents.Lines, lines []refLine) []string {
	carry := "\n"
	for i := 1; i <= base.Len(); i++ {
		if e := base.Ending(i); len(e) > 0 {
			carry = string(e)
			break
		}
	}
	finalEnding := base.Len() == 0 || len(base.Ending(base.Len())) > 0
	out := make([]string, len(lines))
	for i, l := range lines {
		own := ""
		if l.old > 0 {
			own = string(base.Ending(l.old))
		}
		last := i == len(lines)-1
		switch {
		case !last && own != "":
			out[i] = own
			carry = own
		case l.old > 0 && last:
			out[i] = own
		case !last || finalEnding || l.text == "":
			out[i] = carry
			if strings.HasSuffix(l.text, "\r") && carry == "\n" {
				out[i] = "\r\n" // else the text's "\r" would join the ending
			}
		}
	}
	return out
}

// drawEdit draws a file and ops that plan accepts, and applies them.
func drawEdit(t *rapid.T) (documents.Lines, []Op, []byte) {
	base := documents.Scan(genText(t, "file"))
	ops := genOps(t, base.Len())
	ps, err := plan(base, ops)
	if err != nil {
		t.Skip("overlapping ops")
	}
	return base, ops, weave(base, spliceLines(base, splices(base.Len(), ps)))
}

// load + write, no edit: the same bytes.
func TestLaw_load_persist_roundtrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		b := genText(t, "file")
		ls := documents.Scan(b)
		if got := weave(ls, keptLines(ls)); !bytes.Equal(got, b) {
			t.Fatalf("persist of %q gave %q", b, got)
		}
	})
}

// Every byte outside the edited lines is kept: the BOM, and each kept line's
// text and (unless it was the last line without one) its ending.
func TestLaw_edit_keeps_untouched_bytes(t *testing.T) {
	// The boundary the generator reaches only now and then, always: a kept
	// line alone between edited ones, its LF among CRLF lines.
	text := func(s string) *string { return &s }
	one, three := Anchor("1"), Anchor("3")
	base := documents.Scan([]byte("a\r\nb\nc\r\n"))
	ops := []Op{{Replace: &one, Text: text("A")}, {Replace: &three, Text: text("C")}}
	ps, err := plan(base, ops)
	if err != nil {
		t.Fatal(err)
	}
	keepsUntouchedBytes(t, base, ops, weave(base, spliceLines(base, splices(base.Len(), ps))))
	rapid.Check(t, func(t *rapid.T) {
		base, ops, out := drawEdit(t)
		keepsUntouchedBytes(t, base, ops, out)
	})
}

func keepsUntouchedBytes(t interface{ Fatalf(string, ...any) }, base documents.Lines, ops []Op, out []byte) {
	got := documents.Scan(out)
	if got.BOM != base.BOM {
		t.Fatalf("BOM %v became %v", base.BOM, got.BOM)
	}
	ref := refApply(base, ops)
	if got.Len() != len(ref) {
		t.Fatalf("%d lines, reference %d: %q", got.Len(), len(ref), out)
	}
	for i, l := range ref {
		if l.old == 0 {
			continue
		}
		if !bytes.Equal(got.Text(i+1), base.Text(l.old)) {
			t.Fatalf("kept line %d changed text", l.old)
		}
		if e := base.Ending(l.old); len(e) > 0 && !bytes.Equal(got.Ending(i+1), e) {
			t.Fatalf("kept line %d changed its ending %q to %q", l.old, e, got.Ending(i+1))
		}
	}
}

// An edit keeps the lines before, then exactly the new lines, then the lines
// after.
func TestLaw_edit_writes_new_lines(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base, ops, out := drawEdit(t)
		got := documents.Scan(out)
		ref := refApply(base, ops)
		for i, l := range ref {
			if i >= got.Len() || string(got.Text(i+1)) != l.text {
				t.Fatalf("line %d: got %q, reference %v (file %q)", i+1, out, ref, base.Bytes())
			}
		}
		if got.Len() != len(ref) {
			t.Fatalf("%d lines, reference %d", got.Len(), len(ref))
		}
	})
}

// Written line by line: each line but the last followed by its own ending,
// else by the separator written before it (at the start the file's first
// ending, else LF).
func TestLaw_persist_weaves_carry(t *testing.T) {
	// Fixed cases first: a lone kept line between changes passes its own
	// ending on; a file without endings starts from LF.
	r := func(s string) *Anchor { a := Anchor(s); return &a }
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		base string
		ops  []Op
		want string
	}{
		{"a\r\nb\nc\r\n", []Op{{Replace: r("1"), Text: str("A")}, {Replace: r("3"), Text: str("C")}}, "A\r\nb\nC\n"},
		{"a\nb\r\nc\n", []Op{{Replace: r("1"), Text: str("A")}, {Replace: r("3"), Text: str("C\nD")}}, "A\nb\r\nC\r\nD\r\n"},
		{"a", []Op{{Append: str("b")}}, "a\nb"},
		{"", []Op{{Prepend: str("x\ny")}}, "x\ny\n"},
	} {
		base := documents.Scan([]byte(tc.base))
		ps, err := plan(base, tc.ops)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(weave(base, spliceLines(base, splices(base.Len(), ps)))); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.base, got, tc.want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		base, ops, out := drawEdit(t)
		got := documents.Scan(out)
		want := refEndings(base, refApply(base, ops))
		for i := range want {
			if string(got.Ending(i+1)) != want[i] {
				t.Fatalf("line %d ends %q, want %q (base %q, out %q)", i+1, got.Ending(i+1), want[i], base.Bytes(), out)
			}
		}
	})
}

// Random files and random sequences of edits through the tool, against the
// reference model of lines: the file always holds exactly the model's lines
// with the model's endings.
func TestProperty_edit_sequences_match_line_model(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		root, err := os.MkdirTemp("", "tandem-seq-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(root)
		start := genText(t, "file")
		w := newWSIn(t, root, map[string]string{"f.txt": string(start)})
		for step := 0; step < rapid.IntRange(1, 4).Draw(t, "steps"); step++ {
			cur := []byte(w.file("f.txt"))
			if documents.Encoding(cur) != "" {
				return
			}
			tag := w.read("f.txt", "")
			base := documents.Scan(cur)
			ops := genOps(t, base.Len())
			if ps, err := plan(base, ops); err != nil || slices.ContainsFunc(ps, func(p planned) bool { return p.repeats > 0 }) {
				continue // refused: overlapping, or leaving a neighbour twice
			}
			if _, err := w.edit(mustJSON(Args{Files: []FileEdit{{Path: "f.txt", Tag: tag, Ops: ops}}})); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			ref := refApply(base, ops)
			endings := refEndings(base, ref)
			var want []byte
			if base.BOM {
				want = append(want, 0xEF, 0xBB, 0xBF)
			}
			for i, l := range ref {
				want = append(append(want, l.text...), endings[i]...)
			}
			if got := w.file("f.txt"); got != string(want) {
				t.Fatalf("step %d: file %q, model %q", step, got, want)
			}
		}
	})
}
