package edits

import "testing"

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
