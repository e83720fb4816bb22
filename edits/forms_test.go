package edits

import (
	"os"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// A unified diff of two files applies like line ops, with the same checks.
func TestPatchFormEditsTwoFiles(t *testing.T) {
	w := newWS(t, map[string]string{"a.go": "package a\r\n\r\nfunc A() {}\r\n", "b.go": "package b\n\nvar x = 1\nvar y = 2\n"})
	w.read("a.go", "")
	w.read("b.go", "")
	patch := "--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,4 @@\n package a\n \n+// A does nothing.\n func A() {}\n" +
		"--- a/b.go\n+++ b/b.go\n@@ -3,2 +3,2 @@\n-var x = 1\n+var x = 10\n var y = 2\n"
	out, err := w.edit(mustJSON(Args{Patch: patch}))
	if err != nil {
		t.Fatal(err)
	}
	if got := w.file("a.go"); got != "package a\r\n\r\n// A does nothing.\r\nfunc A() {}\r\n" {
		t.Errorf("a.go %q", got)
	}
	if got := w.file("b.go"); got != "package b\n\nvar x = 10\nvar y = 2\n" {
		t.Errorf("b.go %q", got)
	}
	if !strings.HasPrefix(out, "Applied to a.go, b.go.") {
		t.Errorf("reply:\n%s", out)
	}
}

func TestPatchContextMustMatchSeenVersion(t *testing.T) {
	w := newWS(t, map[string]string{"b.go": "var x = 1\nvar y = 2\n"})
	w.read("b.go", "")
	_, err := w.edit(mustJSON(Args{Patch: "--- a/b.go\n+++ b/b.go\n@@ -1,2 +1,2 @@\n-var x = 3\n+var x = 10\n var y = 2\n"}))
	if codeOf(err) != "invalid" || !strings.Contains(err.Error(), "are not in the file") {
		t.Fatalf("%v", err)
	}
	// A wrong header line number is forgiven when the lines occur once.
	_, err = w.edit(mustJSON(Args{Patch: "--- a/b.go\n+++ b/b.go\n@@ -7,1 +7,1 @@\n-var y = 2\n+var y = 20\n"}))
	if err != nil || w.file("b.go") != "var x = 1\nvar y = 20\n" {
		t.Fatalf("%v %q", err, w.file("b.go"))
	}
	// Unseen context lines are anchors too.
	w2 := newWS(t, map[string]string{"c.go": "a\nb\nc\n"})
	w2.read("c.go", "3")
	_, err = w2.edit(mustJSON(Args{Patch: "--- a/c.go\n+++ b/c.go\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n"}))
	if codeOf(err) != "not_seen" || !strings.Contains(err.Error(), "line 2,") {
		t.Fatalf("%v", err)
	}
}

// git's diff of a new file names it "+++ b/PATH" under "--- /dev/null", and
// of a deleted one "--- a/PATH": the prefix is git's, not a directory.
func TestPatchCreateAndDeleteNamesLoseGitPrefix(t *testing.T) {
	w := newWS(t, map[string]string{"old.txt": "x\n"})
	out, err := w.edit(mustJSON(Args{Patch: "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n"}))
	if err != nil || w.file("new.txt") != "fresh\n" || !strings.HasPrefix(out, "Applied to new.txt.") {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := os.Stat(w.abs("b")); !os.IsNotExist(err) {
		t.Errorf("the create made a directory b: %v", err)
	}
	_, err = w.edit(mustJSON(Args{Patch: "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n"}))
	if codeOf(err) != "invalid" || !strings.Contains(err.Error(), "deletes old.txt;") {
		t.Fatalf("%v", err)
	}
}

// The string form: old must occur exactly once in the tagged version; a
// string written with LF finds text in a CRLF file.
func TestStringReplaceForm(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "alpha\r\nbeta\r\ngamma\r\nbeta\r\n"})
	tag := w.read("a.txt", "")
	_, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + tag + `","old":"beta","new":"B"}]}`)
	if codeOf(err) != "invalid" || !strings.Contains(err.Error(), "occurs 2 times (at lines 2, 4)") {
		t.Fatalf("%v", err)
	}
	_, err = w.edit(`{"files":[{"path":"a.txt","tag":"` + tag + `","old":"delta","new":"D"}]}`)
	if codeOf(err) != "invalid" || !strings.Contains(err.Error(), "does not occur") {
		t.Fatalf("%v", err)
	}
	if _, err = w.edit(`{"files":[{"path":"a.txt","tag":"` + tag + `","old":"pha\nbeta\ngam","new":"pha and gam"}]}`); err != nil {
		t.Fatal(err)
	}
	if got := w.file("a.txt"); got != "alpha and gamma\r\nbeta\r\n" {
		t.Errorf("file %q", got)
	}
}

// Anchors may carry the read's row prefix; a prefix that quotes another
// line is caught. Replacement text pasted with row prefixes is stripped.
func TestAnchorsWithRowPrefix(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	tag := w.read("a.txt", "")
	_, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + tag + `","ops":[{"replace":"2:three","text":"x"}]}]}`)
	if codeOf(err) != "invalid" || !strings.Contains(err.Error(), `that line reads "two"`) {
		t.Fatalf("%v", err)
	}
	if _, err := w.edit(`{"files":[{"path":"a.txt","tag":"[a.txt#` + tag + `]","ops":[{"replace":"2:two","text":"x"},{"delete":"2"}]}]}`); err == nil {
		t.Fatal("overlapping ops were accepted")
	}
	if _, err := w.edit(`{"files":[{"path":"a.txt","tag":"[a.txt#` + tag + `]","ops":[{"replace":"2-3","text":"2:TWO\n3:THREE"}]}]}`); err != nil {
		t.Fatal(err)
	}
	if got := w.file("a.txt"); got != "one\nTWO\nTHREE\n" {
		t.Errorf("file %q", got)
	}
}

func TestCreateNeverReplaces(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "mine\n"})
	_, err := w.edit(`{"files":[{"path":"a.txt","create":"agent\n"}]}`)
	if codeOf(err) != "conflict" || w.file("a.txt") != "mine\n" {
		t.Fatalf("%v", err)
	}
	if _, err := w.edit(`{"files":[{"path":"d/new.txt","create":"fresh"}]}`); err != nil || w.file("d/new.txt") != "fresh" {
		t.Fatalf("%v", err)
	}
}

// Rows pasted from an edit reply ("+N:text", " N:text") work as anchors and
// their prefixes are dropped from replacement text.
func TestAnchorsFromEditReplyRows(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	tag := w.read("a.txt", "")
	out, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + tag + `","ops":[{"replace":"2","text":"TWO"}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.edit(`{"files":[{"path":"a.txt","ops":[{"replace":"+2:TWO","text":"+2:2"},{"delete":" 3:three"}]}]}`); err != nil {
		t.Fatalf("%v\nafter reply:\n%s", err, out)
	}
	if got := w.file("a.txt"); got != "one\n2\n" {
		t.Errorf("file %q", got)
	}
}

// Random, mostly malformed ops: never a panic; a refusal is typed and
// changes nothing.
func TestMalformedOpsAreTypedRefusals(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		root, err := os.MkdirTemp("", "tandem-bad-")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(root)
		w := newWSIn(rt, root, map[string]string{"a.txt": "one\ntwo\nthree\n"})
		tag := w.read("a.txt", "")
		anchor := rapid.SampledFrom([]string{"0", "-1", "5-2", "abc", "99999", "3:wrong", "", "2:two", "1-3", "4", " 2 ", "L2", "+2:two"})
		text := rapid.SampledFrom([]string{"", "x", "\r\n", "a\nb"})
		var ops []map[string]string
		for i := 0; i < rapid.IntRange(0, 3).Draw(rt, "n"); i++ {
			op := map[string]string{}
			for _, k := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"replace", "delete", "insertAfter", "insertBefore", "prepend", "append", "text", "old", "new"}), 1, 3, func(s string) string { return s }).Draw(rt, "keys") {
				if k == "old" || k == "new" || k == "text" || k == "prepend" || k == "append" {
					op[k] = text.Draw(rt, k)
				} else {
					op[k] = anchor.Draw(rt, k)
				}
			}
			ops = append(ops, op)
		}
		args := mustJSON(map[string]any{"files": []any{map[string]any{"path": "a.txt", "tag": tag, "ops": ops}}})
		_, err = w.edit(args)
		if err != nil {
			switch codeOf(err) {
			case "invalid", "not_seen":
			default:
				rt.Fatalf("untyped refusal %v", err)
			}
			if w.file("a.txt") != "one\ntwo\nthree\n" {
				rt.Fatalf("a refused edit changed the file")
			}
		}
	})
}

// Random patches built from diff-like lines: never a panic; a refusal is
// typed and changes nothing.
func TestMalformedPatchesAreTypedRefusals(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		root, err := os.MkdirTemp("", "tandem-badpatch-")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(root)
		w := newWSIn(rt, root, map[string]string{"a.txt": "one\ntwo\nthree\n"})
		w.read("a.txt", "")
		lines := rapid.SliceOfN(rapid.SampledFrom([]string{"--- a/a.txt", "+++ b/a.txt", "--- /dev/null", "+++ b/new.txt",
			"@@ -1,2 +1,2 @@", "@@ -2 +2 @@", "@@ -0,0 +1 @@", "@@ bad @@", " one", " two", "-two", "+TWO", "-zzz", "x", "",
			`\ No newline at end of file`, "diff --git a/a.txt b/a.txt"}), 0, 12).Draw(rt, "lines")
		patch := strings.Join(lines, "\n") + "\n"
		_, err = w.edit(mustJSON(Args{Patch: patch}))
		if err != nil {
			switch codeOf(err) {
			case "invalid", "not_seen", "stale_tag", "conflict":
			default:
				rt.Fatalf("untyped refusal %v for\n%s", err, patch)
			}
			if w.file("a.txt") != "one\ntwo\nthree\n" {
				rt.Fatalf("a refused patch changed a.txt")
			}
		}
	})
}

// A call that names one file twice is refused and writes nothing: by the
// same path, as another entry's move destination, or through a symbolic
// link — where both writes would land and the second would undo the first.
func TestOneFileNamedTwiceIsRefused(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "b\n"})
	if err := os.Symlink("a.txt", w.abs("link.txt")); err != nil {
		t.Fatal(err)
	}
	w.read("a.txt", "")
	w.read("b.txt", "")
	w.read("link.txt", "")
	for _, tc := range []struct{ args, want string }{
		{`{"files":[{"path":"a.txt","ops":[{"replace":"1","text":"ONE"}]},{"path":"a.txt","ops":[{"replace":"2","text":"TWO"}]}]}`, "a.txt appears twice"},
		{`{"files":[{"path":"b.txt","moveTo":"c.txt"},{"path":"c.txt","create":"c\n"}]}`, "c.txt appears twice"},
		{`{"files":[{"path":"a.txt","ops":[{"replace":"1","text":"ONE"}]},{"path":"link.txt","ops":[{"replace":"2","text":"TWO"}]}]}`, "a.txt and link.txt are the same file"},
		{`{"files":[{"path":"link.txt","ops":[{"replace":"2","text":"TWO"}]},{"path":"a.txt","ops":[{"replace":"1","text":"ONE"}]}]}`, "link.txt and a.txt are the same file"},
	} {
		_, err := w.edit(tc.args)
		if codeOf(err) != "invalid" || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "call edit again") {
			t.Errorf("%s: %v, want invalid saying %q", tc.args, err, tc.want)
		}
		if w.file("a.txt") != "one\ntwo\n" || w.file("b.txt") != "b\n" {
			t.Fatalf("%s changed a file: a.txt %q, b.txt %q", tc.args, w.file("a.txt"), w.file("b.txt"))
		}
	}
}

// A move onto the file itself is a mistake in the call, said as such, not a
// conflict with an existing file; nothing moves.
func TestMoveOntoItselfIsInvalid(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\n"})
	w.read("a.txt", "")
	for _, to := range []string{"a.txt", "./a.txt"} {
		_, err := w.edit(`{"files":[{"path":"a.txt","moveTo":"` + to + `"}]}`)
		if codeOf(err) != "invalid" || !strings.Contains(err.Error(), "moveTo names the file itself") {
			t.Errorf("moveTo %s: %v, want invalid naming the file itself", to, err)
		}
		if w.file("a.txt") != "one\n" {
			t.Fatalf("moveTo %s changed a.txt", to)
		}
	}
}

// A file in a patch with headers and no hunk changes nothing: it is refused
// like an entry with no ops, not reported as written.
func TestPatchFileWithoutHunksIsRefused(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\n"})
	w.read("a.txt", "")
	_, err := w.edit(mustJSON(Args{Patch: "--- a/a.txt\n+++ b/a.txt\n"}))
	if codeOf(err) != "invalid" || !strings.Contains(err.Error(), "no @@ hunk") {
		t.Fatalf("%v, want invalid saying the patch has no hunk", err)
	}
}

// A range may quote its last row too; a replacement that would leave the
// line before or after its range twice is refused unless the last row was
// quoted, and a first row holding "|" still reads whole.
func TestRangeEndQuotedAndRepeatsRefused(t *testing.T) {
	w := newWS(t, map[string]string{"a.go": "func f() {\n\tif a || b {\n\t\tx()\n\t}\n}\n"})
	tag := w.read("a.go", "")
	edit := func(anchor, text string) (string, error) {
		return w.edit(mustJSON(map[string]any{"files": []any{map[string]any{"path": "a.go", "tag": tag, "ops": []any{map[string]any{"replace": anchor, "text": text}}}}}))
	}
	// The first line of the text is line 1, right before the range.
	_, err := edit("2-3:\tif a || b {", "func f() {\n\tif a {")
	if codeOf(err) != "invalid" || !strings.Contains(err.Error(), `the first line of its text, "func f() {", is line 1, right before the range`) ||
		!strings.Contains(err.Error(), `"1-3:func f() {|\t\tx()"`) {
		t.Fatalf("%v", err)
	}
	// A nested block's closing brace is no repeat.
	if _, err := edit("3:\t\tx()", "\t\tif c {\n\t\t\tx()\n\t\t}"); err != nil {
		t.Fatal(err)
	}
	tag = w.read("a.go", "")
	// The last row quoted: a wrong end is refused, the right one applies,
	// and a repeat it allows is written.
	if _, err := edit("2-4:\tif a || b {|\t}", "x"); codeOf(err) != "invalid" || !strings.Contains(err.Error(), `quotes a last row that is not line 4; that line reads "\t\t\tx()"`) {
		t.Fatalf("%v", err)
	}
	if _, err := edit("5:\t\t}", "\t}\n\t}"); codeOf(err) != "invalid" || !strings.Contains(err.Error(), "is line 6, right after the range") {
		t.Fatalf("%v", err)
	}
	if _, err := edit("5-5:\t\t}|\t\t}", "\t}\n\t}"); err != nil {
		t.Fatal(err)
	}
	if got := w.file("a.go"); got != "func f() {\n\tif a || b {\n\t\tif c {\n\t\t\tx()\n\t}\n\t}\n\t}\n}\n" {
		t.Errorf("file %q", got)
	}
}
