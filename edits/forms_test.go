package edits

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/internal/lawhit"
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

// A hunk whose lines differ from the file in whitespace only is refused
// naming the first line that differs, with both texts quoted, every other
// line that differs, and the line the hunk starts at when its header is
// off: never the line the header points at, which may be right. Nothing is
// written.
func TestLaw_patch_whitespace_names_the_line(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"header right": 10, "header off": 10, "bare": 10, "several lines": 10})
	rapid.Check(t, func(rt *rapid.T) {
		root, err := os.MkdirTemp("", "tandem-wspatch-")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(root)
		n := rapid.IntRange(3, 30).Draw(rt, "lines")
		file := make([]string, n)
		for i := range file {
			file[i] = strings.Repeat("\t", rapid.IntRange(0, 2).Draw(rt, "indent")) + fmt.Sprintf("x%d := %d", i+1, i)
		}
		content := strings.Join(file, "\n") + "\n"
		w := newWSIn(rt, root, map[string]string{"a.go": content})
		w.read("a.go", "")
		from := rapid.IntRange(1, n).Draw(rt, "from")
		size := rapid.IntRange(1, min(4, n-from+1)).Draw(rt, "size")
		old := append([]string(nil), file[from-1:from-1+size]...)
		var differ []int // the lines whose whitespace the hunk changes
		for k := range old {
			if k == 0 && len(differ) == 0 || rapid.Bool().Draw(rt, "change whitespace") {
				old[k] = rapid.SampledFrom([]string{"  ", "    ", " \t"}).Draw(rt, "indent") + strings.TrimLeft(old[k], "\t") +
					rapid.SampledFrom([]string{"", " ", "\t"}).Draw(rt, "trail")
				old[k] = strings.Replace(old[k], " := ", rapid.SampledFrom([]string{" := ", "  := ", " :=\t"}).Draw(rt, "inside"), 1)
				if old[k] != file[from-1+k] {
					differ = append(differ, from+k)
				}
			}
		}
		if len(differ) == 0 {
			return
		}
		header, branch := fmt.Sprintf("@@ -%d,%d +%d,%d @@", from, size, from, size), "header right"
		switch rapid.IntRange(0, 2).Draw(rt, "header") {
		case 1:
			off := rapid.SampledFrom([]int{-3, -1, 1, 2, 5}).Draw(rt, "off")
			if from+off < 1 {
				off = 1
			}
			header, branch = fmt.Sprintf("@@ -%d,%d +%d,%d @@", from+off, size, from+off, size), "header off"
		case 2:
			header, branch = "@@", "bare"
		}
		var body strings.Builder
		for k, o := range old {
			body.WriteString("-" + o + "\n+" + file[from-1+k] + " // changed\n")
		}
		_, err = w.edit(mustJSON(Args{Patch: "--- a/a.go\n+++ b/a.go\n" + header + "\n" + body.String()}))
		first := differ[0]
		want := fmt.Sprintf("line %d has %q where the hunk has %q, which differs in whitespace only", first, file[first-1], old[first-from])
		if codeOf(err) != "invalid" || !strings.Contains(err.Error(), want) {
			rt.Fatalf("%s, lines %d-%d with whitespace changed on %v: %v\nwant it to say %s", header, from, from+size-1, differ, err, want)
		}
		var others []string
		for _, d := range differ[1:] {
			others = append(others, strconv.Itoa(d))
		}
		switch len(others) {
		case 0:
			want = "whitespace only. "
		case 1:
			want = "; line " + others[0] + " differs in whitespace too. "
		default:
			want = "; lines " + strings.Join(others, ", ") + " differ in whitespace too. "
		}
		if !strings.Contains(err.Error(), want) {
			rt.Fatalf("the other lines that differ are %v: %v", others, err)
		}
		if branch == "header off" && !strings.Contains(err.Error(), fmt.Sprintf("start the hunk at @@ -%d)", from)) {
			rt.Fatalf("%s for lines starting at %d: %v", header, from, err)
		}
		if w.file("a.go") != content {
			rt.Fatalf("a refused patch changed a.go")
		}
		hits.Hit(branch)
		if len(differ) > 1 {
			hits.Hit("several lines")
		}
	})
}

// A line inside a hunk with none of a hunk line's marks is refused naming
// it when hunk lines follow it, never taken as the hunk's end: the changes
// after it would be dropped while the reply says the patch applied. After
// a hunk's last line (a context line that lost its space, the ``` of a
// fenced patch) it drops nothing, and the patch applies whole.
func TestLaw_patch_unmarked_line_refused(t *testing.T) {
	const content = "a\n\tb\nc\nd\ne\n"
	for _, header := range []string{"@@ -1,5 +1,5 @@", "@@"} {
		for i := range 6 {
			root := t.TempDir()
			w := newWSIn(t, root, map[string]string{"a.txt": content})
			w.read("a.txt", "")
			hunk := []string{" a", " \tb", " c", "-d", "+D", " e"}
			if hunk[i][0] != ' ' {
				continue
			}
			hunk[i] = hunk[i][1:]
			_, err := w.edit(mustJSON(Args{Patch: "```diff\n--- a/a.txt\n+++ b/a.txt\n" + header + "\n" + strings.Join(hunk, "\n") + "\n```\n"}))
			if i == len(hunk)-1 {
				if err != nil || w.file("a.txt") != "a\n\tb\nc\nD\ne\n" {
					t.Fatalf("%s, %q unmarked last: %v, a.txt %q", header, hunk[i], err, w.file("a.txt"))
				}
				continue
			}
			want := fmt.Sprintf("line %d of the patch, inside a hunk, starts with none of a hunk line's marks (a space, -, +): %q", i+5, hunk[i])
			if codeOf(err) != "invalid" || !strings.Contains(err.Error(), want) {
				t.Fatalf("%s, %q unmarked: %v, want it named: %s", header, hunk[i], err, want)
			}
			if w.file("a.txt") != content {
				t.Fatalf("a refused patch changed a.txt")
			}
		}
	}
}

// A hunk of added lines alone is placed by its header's number, which
// nothing checks, and the reply says so as it does for a bare line number;
// with no number either (a bare @@), nothing places it, and it is refused
// rather than put at the start of the file. A hunk with a context line is
// checked, so its reply has no such note.
func TestPatchOfAddedLinesAloneIsPlacedByItsNumber(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	w.read("a.txt", "")
	out, err := w.edit(mustJSON(Args{Patch: "--- a/a.txt\n+++ b/a.txt\n@@ -2,0 +3 @@\n+new\n"}))
	if err != nil || w.file("a.txt") != "one\ntwo\nnew\nthree\n" ||
		!strings.Contains(out, `hunk 1 has only added lines, so its line number alone placed them (@@ -2,0: after line 2), which nothing checks`) ||
		!strings.Contains(out, `a context line, such as " two" for line 2, is checked for you`) {
		t.Fatalf("%v %q\n%s", err, w.file("a.txt"), out)
	}
	_, err = w.edit(mustJSON(Args{Patch: "--- a/a.txt\n+++ b/a.txt\n@@\n+top?\n"}))
	if codeOf(err) != "invalid" || !strings.Contains(err.Error(), "has only added lines, so nothing places them") || w.file("a.txt") != "one\ntwo\nnew\nthree\n" {
		t.Fatalf("a bare hunk of added lines: %v, a.txt %q", err, w.file("a.txt"))
	}
	for _, patch := range []string{"@@ -0,0 +1 @@\n+top\n", "@@\n one\n+after one\n"} {
		out, err = w.edit(mustJSON(Args{Patch: "--- a/a.txt\n+++ b/a.txt\n" + patch}))
		if err != nil || strings.Contains(out, "nothing checks") {
			t.Fatalf("%q: %v\n%s", patch, err, out)
		}
	}
	if got := w.file("a.txt"); got != "top\none\nafter one\ntwo\nnew\nthree\n" {
		t.Fatalf("a.txt %q", got)
	}
}
