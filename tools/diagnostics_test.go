package tools

import (
	"testing"

	"github.com/tandemdev/tandem/documents"
)

func diag(line, sev int, msg string) Diagnostic {
	return Diagnostic{Range: Range{Start: Position{Line: line}}, Severity: sev, Message: msg, Source: "compiler"}
}

// A problem that only moved is not new; a second copy of one is; fixed ones
// are counted per file; information and hints are never reported.
func TestDiffProblems(t *testing.T) {
	before := map[string][]Diagnostic{
		"/w/a.go": {diag(3, 1, "undefined: x"), diag(9, 2, "unused y"), diag(1, 3, "info")},
		"/w/b.go": {diag(2, 1, "gone soon")},
	}
	after := map[string][]Diagnostic{
		"/w/a.go": {diag(5, 1, "undefined: x"), diag(7, 1, "undefined: x"), diag(0, 4, "a hint"), diag(1, 0, "unset severity")},
		"/w/b.go": {},
		"/w/c.go": {diag(0, 2, "caller broken")},
	}
	c := diffProblems(before, after)
	got := c.render([]string{"/w"})
	want := "The editor's language servers report 3 new problem(s) after this change:\n" +
		"a.go:2: error: unset severity\n" +
		"a.go:8: error: undefined: x\n" +
		"c.go:1: warning: caller broken\n" +
		"2 problem(s) the editor reported before are fixed.\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if none := diffProblems(before, map[string][]Diagnostic{"/w/a.go": before["/w/a.go"]}).render(nil); none != "" {
		t.Fatalf("an unchanged file reports %q", none)
	}
}

// A symbol's position is found as a whole word and counted in UTF-16 units,
// as LSP counts: an astral character before it is two.
func TestSymbolPosition(t *testing.T) {
	line := []byte("\ts := \"𝄞\" + xs + x")
	i := wordIndex(line, "x")
	if i < 0 || string(line[i:]) != "x" {
		t.Fatalf("wordIndex found %d (%q)", i, line[max(i, 0):])
	}
	if got := documents.UTF16Units(line[:i]); got != 18 { // 17 characters before x, one of them astral
		t.Fatalf("utf16Column = %d", got)
	}
	if wordIndex([]byte("xs := 1"), "x") != -1 {
		t.Fatal("a prefix of a longer word was taken")
	}
	if got := runeOffset([]byte("é x"), 2); got != 3 {
		t.Fatalf("runeOffset = %d, want 3", got)
	}
}
