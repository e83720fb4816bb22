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
		if anchor == "2" && (codeOf(err) != refusal.NotSeen || !strings.Contains(err.Error(), "Line 2 is too long for any row to show whole, so no read makes it seen: change it with the shell")) {
			t.Fatalf("the refusal does not give the next action that works: %v", err)
		}
	}
	if _, err := w.edit(fmt.Sprintf(`{"files":[{"path":"min.js","tag":%q,"ops":[{"replace":"3","text":"end"}]}]}`, m[2])); err != nil {
		t.Fatalf("a context row shown whole is an anchor: %v", err)
	}
}
