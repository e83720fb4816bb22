package edits

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

// A line grep showed only as a window around its match is not a seen
// line: an edit anchoring on it is refused, the file is unchanged, and
// the refusal's next action is one that can work (no read shows the line
// whole), while the lines shown whole around it stay edit anchors.
func TestLaw_an_edit_on_a_line_shown_as_a_window_is_refused(t *testing.T) {
	long := strings.Repeat("x", 9000) + "needle" + strings.Repeat("y", 9000)
	before := "first\n" + long + "\nlast\n"
	w := newWS(t, map[string]string{"min.js": before})
	out, err := documents.Grep(context.Background(), w.env.Seen, w.env.Buffers, w.env.Roots, documents.GrepRequest{Pattern: "needle", Path: "min.js", Context: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := headerRE.FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "\n2:…"+strings.Repeat("x", 50)) {
		t.Fatalf("grep did not show line 2 as a window:\n%.600s", out)
	}
	for _, anchor := range []string{"2", "2:…" + strings.Repeat("x", 99)} {
		_, err = w.edit(fmt.Sprintf(`{"files":[{"path":"min.js","tag":%q,"ops":[{"replace":%q,"text":"short"}]}]}`, m[2], anchor))
		if codeOf(err) == "" || w.file("min.js") != before {
			t.Fatalf("anchor %.20q: an edit on a line shown only as a window was not refused: %v", anchor, err)
		}
		if anchor == "2" && (codeOf(err) != refusal.NotSeen || !strings.Contains(err.Error(), "Line 2 is too long for any row to show whole, so no read makes it seen and no line op can change it. Read the part you change with columns")) {
			t.Fatalf("the refusal does not give the next action that works: %v", err)
		}
	}
	if _, err := w.edit(fmt.Sprintf(`{"files":[{"path":"min.js","tag":%q,"ops":[{"replace":"3","text":"end"}]}]}`, m[2])); err != nil {
		t.Fatalf("a context row shown whole is an anchor: %v", err)
	}
}

// An old/new inside the columns of a long line that a read's window showed
// applies, keeping the rest of the line byte for byte; one reaching past
// what was shown is refused, and the line written is not seen whole after.
func TestLaw_old_new_inside_a_read_window_applies(t *testing.T) {
	long := "x" + strings.Repeat("a", 5000) + "NEEDLE" + strings.Repeat("b", 5000) + "TAIL"
	before := "first\n" + long + "\nlast\n"
	w := newWS(t, map[string]string{"min.js": before})
	w.read("min.js", "")
	out, err := documents.ReadPart(context.Background(), w.env.Seen, w.env.Buffers, w.env.Roots, "min.js", "2", "4901-5200", nil)
	if err != nil || !strings.Contains(out, "edit text inside columns 4901-5200 with old/new") {
		t.Fatalf("%v\n%.300s", err, out)
	}
	tag := headerRE.FindStringSubmatch(out)[2]
	edit := func(old, new string) error {
		_, err := w.edit(mustJSON(map[string]any{"files": []any{map[string]any{"path": "min.js", "tag": tag, "old": old, "new": new}}}))
		return err
	}
	// old starts inside the window and runs past it: the model never saw
	// its end.
	if err := edit("NEEDLE"+strings.Repeat("b", 300), "short"); codeOf(err) != refusal.NotSeen || w.file("min.js") != before {
		t.Fatalf("an old/new reaching past the window shown was not refused: %v", err)
	}
	if err := edit("aNEEDLEb", "aPINb"); err != nil {
		t.Fatalf("an old/new inside the window shown was refused: %v", err)
	}
	if got, want := w.file("min.js"), strings.Replace(before, "aNEEDLEb", "aPINb", 1); got != want {
		t.Fatalf("the file is not the old one with only the window's text changed")
	}
	if _, err := w.edit(`{"files":[{"path":"min.js","ops":[{"replace":"2","text":"short"}]}]}`); codeOf(err) != refusal.NotSeen {
		t.Fatalf("the line written by an old/new inside a window became seen whole: %v", err)
	}
}
