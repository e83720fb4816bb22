package edits

import (
	"context"
	"testing"
)

// restoreAround takes every line whole from the version it comes from, its
// ending included, and names where later changes meet the agent's.
func TestRestoreAroundKeepsBytesAndNamesOverlaps(t *testing.T) {
	const bom = "\xEF\xBB\xBF"
	for _, tc := range []struct{ name, left, cur, want, out, why string }{
		{name: "CRLF lines", left: "a\r\nB\r\nc\r\nd\r\ne\r\n", cur: "a\r\nB\r\nc\r\nd\r\nE\r\n", want: "a\r\nb\r\nc\r\nd\r\ne\r\n", out: "a\r\nb\r\nc\r\nd\r\nE\r\n"},
		{name: "no final ending", left: "x\nY\nz\nw", cur: "x\nY\nz\nW", want: "x\ny\nz\nw", out: "x\ny\nz\nW"},
		{name: "the agent's last line had no ending", left: "x\ny\nz\nW\n", cur: "X\ny\nz\nW\n", want: "x\ny\nz\nw", out: "X\ny\nz\nw"},
		{name: "a BOM the user added stays", left: "a\nB\nc\nd\n", cur: bom + "a\nB\nc\nD\n", want: "a\nb\nc\nd\n", out: bom + "a\nb\nc\nD\n"},
		{name: "a BOM the agent added goes", left: bom + "a\nB\nc\nd\n", cur: bom + "a\nB\nc\nD\n", want: "a\nb\nc\nd\n", out: "a\nb\nc\nD\n"},
		{name: "adjacent lines", left: "1\nB\n3\n4\n", cur: "1\nB\nC\n4\n", want: "1\nb\n3\n4\n", why: "your later changes overlap the agent's at lines 2–3"},
		{name: "one place", left: "a\nb\n", cur: "a\nU\nb\n", want: "a\nX\nb\n", why: "your later changes overlap the agent's at line 2"},
		{name: "nothing in the place now", left: "a\nB\nc\nd\n", cur: "a\nd\n", want: "a\nb\nc\nd\n", why: "your later changes overlap the agent's at lines 1–2"},
		{name: "all gone", left: "a\n", cur: "", want: "", why: "your later changes overlap the agent's"},
	} {
		out, why := restoreAround([]byte(tc.left), []byte(tc.cur), []byte(tc.want))
		if string(out) != tc.out || why != tc.why {
			t.Errorf("%s: got %q, %q; want %q, %q", tc.name, out, why, tc.out, tc.why)
		}
	}
}

// A file open in the editor with the user's unsaved change is restored
// around it through the editor, in one commit with a file restored exactly;
// Landed gets what each held and now holds. When the editor refuses,
// neither file changes.
func TestRestoreAroundThroughTheEditorAllOrNothing(t *testing.T) {
	const left, before, user = "one\nTWO\nthree\nfour\nfive\n", "one\ntwo\nthree\nfour\nfive\n", "one\nTWO\nthree\nfour\nFIVE\n"
	for _, refuse := range []bool{false, true} {
		w := newWS(t, map[string]string{"a.txt": left, "b.txt": "x\nY\n"})
		ed := &fakeEditor{o: w.env.Buffers, transactional: true, refuse: map[string]bool{w.abs("a.txt"): refuse}}
		w.env.Editor = ed
		openBuffer(w, "a.txt", user, true)
		var landed []FileChange
		w.env.Landed = func(fc FileChange) { landed = append(landed, fc) }
		reverts := []Revert{
			{Path: w.abs("a.txt"), Expect: []byte(left), Want: []byte(before)},
			{Path: w.abs("b.txt"), Expect: []byte("x\nY\n"), Want: []byte("x\ny\n")},
		}
		out, err := Restore(context.Background(), w.env, reverts, true)
		buf, _ := w.env.Buffers.Get(w.abs("a.txt"))
		if refuse {
			if err == nil || string(buf.Text) != user || w.file("b.txt") != "x\nY\n" || len(landed) != 0 {
				t.Fatalf("refused by the editor: %q %v; buffer %q, b.txt %q, landed %d", out, err, buf.Text, w.file("b.txt"), len(landed))
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if string(buf.Text) != "one\ntwo\nthree\nfour\nFIVE\n" || w.file("a.txt") != left || w.file("b.txt") != "x\ny\n" {
			t.Fatalf("buffer %q, a.txt %q, b.txt %q", buf.Text, w.file("a.txt"), w.file("b.txt"))
		}
		if want := "Restored b.txt.\nRestored around your later changes, which stay: a.txt.\n"; out != want {
			t.Fatalf("reply %q, want %q", out, want)
		}
		if len(landed) != 2 || string(landed[0].Before) != user || string(landed[0].After) != string(buf.Text) {
			t.Fatalf("landed %+v", landed)
		}
	}
}
