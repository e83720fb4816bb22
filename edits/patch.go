package edits

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/sourcegraph/go-diff/diff"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

// stagePatch stages a multi-file unified diff. Each file's hunks apply to
// the latest version of it the session saw: their context and removed lines
// must be those lines exactly (a pasted "N:" row prefix is tolerated) and
// seen, like any anchor. A hunk whose header line number is off is found by
// its lines when they occur exactly once. Then the file goes through the
// same rebase and commit as line ops.
func stagePatch(env *Env, patch string) ([]*change, []*problem) {
	if err := strayLine(patch); err != nil {
		return nil, []*problem{problemf(refusal.Invalid, "%v. Fix the patch, then call edit again.", err)}
	}
	fds, err := diff.ParseMultiFileDiff([]byte(numberBareHunks(patch)))
	if err == nil && len(fds) == 0 {
		err = fmt.Errorf("it has no file header (--- a/PATH, +++ b/PATH)")
	}
	if err != nil {
		return nil, []*problem{problemf(refusal.Invalid, "The patch is not a unified diff: %v. Send a unified diff with ---/+++ headers and @@ hunks, or use files with ops.", err)}
	}
	var cs []*change
	var probs []*problem
	for _, fd := range fds {
		c, p := stageFileDiff(env, fd)
		if p != nil {
			probs = append(probs, p)
		} else {
			cs = append(cs, c)
		}
	}
	return cs, probs
}

// strayLine finds a line inside a hunk that starts with none of a hunk
// line's marks (a space, -, +, \) — most often a context line that lost
// its leading space. The parser would take it as the end of the file's
// diff and drop the rest of the hunk unsaid. A hunk ends where the parser
// ends it: at the next @@, at "diff ", or at a "---" line followed by
// "+++" and "@@". Lines with no mark after a hunk's last line (the ``` of
// a fenced patch, a word after it) drop nothing and pass.
func strayLine(patch string) error {
	lines := strings.Split(patch, "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	at := func(i int, prefix string) bool { return i < len(lines) && strings.HasPrefix(lines[i], prefix) }
	header := func(i int) bool { return at(i, "diff ") || at(i, "---") && at(i+1, "+++") && at(i+2, "@@") }
	marked := func(l string) bool { return l != "" && strings.ContainsRune(" -+\\", rune(l[0])) }
	inHunk := false
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case header(i):
			inHunk = false
		case !inHunk || l == "" || marked(l):
		default:
			for j := i + 1; j < len(lines) && !at(j, "@@") && !header(j); j++ {
				if marked(lines[j]) {
					return fmt.Errorf("line %d of the patch, inside a hunk, starts with none of a hunk line's marks (a space, -, +): %q; a line kept as context starts with one space before the file's text (%q)", i+1, clip(l, 200), clip(" "+l, 201))
				}
			}
			inHunk = false
		}
	}
	return nil
}

// diffNames returns the file a diff reads and the one it writes, "" for
// /dev/null. git prefixes both names with a/ and b/, but never /dev/null
// (the missing side of a created or deleted file), so the prefixes come off
// when each side has its own or is /dev/null.
func diffNames(fd *diff.FileDiff) (orig, next string) {
	orig, next = fd.OrigName, fd.NewName
	if (orig == "/dev/null" || strings.HasPrefix(orig, "a/")) && (next == "/dev/null" || strings.HasPrefix(next, "b/")) {
		orig, next = strings.TrimPrefix(orig, "a/"), strings.TrimPrefix(next, "b/")
	}
	if orig == "/dev/null" {
		return "", next
	}
	if next == "/dev/null" {
		return orig, ""
	}
	return orig, next
}

// hunkLine is one line of a hunk body.
type hunkLine struct {
	kind byte // ' ', '-', '+'
	text string
}

func hunkLines(h *diff.Hunk) []hunkLine {
	var out []hunkLine
	for _, l := range strings.Split(strings.TrimSuffix(string(h.Body), "\n"), "\n") {
		switch {
		case l == "":
			out = append(out, hunkLine{' ', ""}) // a context line whose space was stripped
		case l[0] == '\\':
			// "\ No newline at end of file": the file keeps its own last ending.
		default:
			out = append(out, hunkLine{l[0], l[1:]})
		}
	}
	return out
}

func stageFileDiff(env *Env, fd *diff.FileDiff) (*change, *problem) {
	orig, next := diffNames(fd)
	switch {
	case orig == "" && next == "":
		return nil, problemf(refusal.Invalid, "The patch has a file with no name. Give ---/+++ headers with paths, then call edit again.")
	case next == "":
		return nil, problemf(refusal.Invalid, "The patch deletes %s; edit does not delete files. Delete it with the shell, and send the rest of the patch again.", orig)
	case orig == "":
		var b strings.Builder
		for _, h := range fd.Hunks {
			for _, l := range hunkLines(h) {
				if l.kind == '+' {
					b.WriteString(l.text + "\n")
				}
			}
		}
		content := b.String()
		return stageFile(env, FileEdit{Path: next, Create: &content})
	}
	abs, err := documents.Resolve(env.Roots, orig)
	if err != nil {
		return nil, asProblem(err)
	}
	show := documents.Display(env.Roots, abs)
	if len(fd.Hunks) == 0 && next == orig {
		return nil, problemf(refusal.Invalid, "The patch names %s but has no @@ hunk for it, so it changes nothing. Add its hunks, or leave it out, then call edit again.", show)
	}
	tag, p := baseTag(env, abs, show, "")
	if p != nil {
		return nil, p
	}
	baseBytes, _ := env.Seen.Version(abs, tag)
	base := documents.Scan(baseBytes)
	var ps []planned
	var anchors []int
	for i, h := range fd.Hunks {
		hp, ha, err := planHunk(base, i+1, h)
		if err != nil {
			return nil, problemf(refusal.Invalid, "%s#%s: %v. Fix the patch against what you read, or use files with ops, then call edit again.", show, tag, err)
		}
		ps, anchors = append(ps, hp...), append(anchors, ha...)
	}
	fe := FileEdit{Path: orig, Tag: string(tag)}
	if next != orig {
		fe.MoveTo = next
	}
	return stagePlanned(env, fe, abs, show, tag, baseBytes, base, ps, anchors)
}

// planHunk locates a hunk in base and turns each run of removed and added
// lines into an op. It returns the ops and every line the hunk relies on
// (context and removed lines).
func planHunk(base documents.Lines, index int, h *diff.Hunk) ([]planned, []int, error) {
	lines := hunkLines(h)
	var old []string
	for _, l := range lines {
		if l.kind != '+' {
			old = append(old, l.text)
		}
	}
	at := int(h.OrigStartLine)
	if len(old) == 0 {
		// Only additions: they go after line OrigStartLine (0 = the start).
		if h.NewStartLine == 0 { // a bare @@ (numberBareHunks): no line places it
			return nil, nil, fmt.Errorf("hunk %d (@@ without line numbers) has only added lines, so nothing places them; give its line number (@@ -N,0 +N+1,%d @@ adds after line N) or a context line before or after them", index, len(lines))
		}
		p := planned{index: index, shape: shapeAfter, from: at}
		if at == 0 {
			p.shape = shapeStart
		}
		if at > base.Len() {
			return nil, nil, fmt.Errorf("hunk %d adds after line %d, past the end (the file has %d lines)", index, at, base.Len())
		}
		if at > 0 {
			// As a bare line number: only the header places the lines.
			p.note = fmt.Sprintf("hunk %d has only added lines, so its line number alone placed them (@@ -%d,0: after line %d), which nothing checks: make sure the diff below added them where you meant; a context line, such as %q for line %d, is checked for you",
				index, at, at, clip(" "+string(base.Text(at)), 81), at)
		}
		for _, l := range lines {
			p.lines = append(p.lines, []byte(l.text))
		}
		return []planned{p}, []int{at}[:min(at, 1)], nil
	}
	if at == 0 { // a bare @@: the lines alone must place the hunk
		switch found := findBlock(base, old); len(found) {
		case 1:
			at = found[0]
		case 0:
			if ws := whitespaceOnly(base, old, 0); ws != "" {
				return nil, nil, fmt.Errorf("the lines of hunk %d (@@ without line numbers) %s", index, ws)
			}
			return nil, nil, fmt.Errorf("the context and removed lines of hunk %d (@@ without line numbers) are not in the file%s", index, nearestDiffer(base, old))
		default:
			return nil, nil, fmt.Errorf("the lines of hunk %d (@@ without line numbers) occur %d times, starting at lines %s; give its line numbers (@@ -N,M +N,M @@) or more context", index, len(found), startList(found))
		}
	}
	strip := false
	if !blockAt(base, old, at, false) {
		switch found := findBlock(base, old); {
		case blockAt(base, old, at, true):
			strip = true
		case len(found) == 1:
			at = found[0]
		case len(found) == 0:
			if ws := whitespaceOnly(base, old, at); ws != "" {
				return nil, nil, fmt.Errorf("the lines of hunk %d (@@ -%d) %s", index, h.OrigStartLine, ws)
			}
			return nil, nil, fmt.Errorf("the context and removed lines of hunk %d (@@ -%d) are not in the file%s", index, h.OrigStartLine, differAt(base, old, at))
		default:
			return nil, nil, fmt.Errorf("the lines of hunk %d (@@ -%d) are not at line %d and occur %d times elsewhere, starting at lines %s; give the right line number (@@ -N) or more context", index, h.OrigStartLine, h.OrigStartLine, len(found), startList(found))
		}
	}
	var ps []planned
	var anchors []int
	n := at // the base line the next old-side hunk line is
	var cur *planned
	flush := func() {
		if cur != nil {
			ps = append(ps, *cur)
			cur = nil
		}
	}
	for _, l := range lines {
		switch l.kind {
		case ' ':
			flush()
			anchors = append(anchors, n)
			n++
		case '-':
			if cur == nil || cur.shape != shapeRange {
				flush()
				cur = &planned{index: index, shape: shapeRange, from: n, to: n - 1}
			}
			anchors = append(anchors, n)
			cur.to = n
			n++
		case '+':
			text := l.text
			if strip {
				text = string(stripRow([]byte(text)))
			}
			if cur == nil {
				switch {
				case n == 1:
					cur = &planned{index: index, shape: shapeStart}
				default:
					cur = &planned{index: index, shape: shapeAfter, from: n - 1}
				}
			}
			cur.lines = append(cur.lines, []byte(text))
		default:
			return nil, nil, fmt.Errorf("hunk %d has a line starting with %q; each line starts with a space, - or +", index, string(l.kind))
		}
	}
	flush()
	return ps, anchors, nil
}

// blockAt reports whether lines at..at+len(old)-1 of base are old; with
// prefixed, each old line may carry its row prefix "N:".
func blockAt(base documents.Lines, old []string, at int, prefixed bool) bool {
	if at < 1 || at+len(old)-1 > base.Len() {
		return false
	}
	for i, o := range old {
		got := base.Text(at + i)
		if prefixed {
			want := fmt.Sprintf("%d:", at+i)
			if !strings.HasPrefix(o, want) {
				return false
			}
			o = o[len(want):]
		}
		if !bytes.Equal(got, []byte(o)) {
			return false
		}
	}
	return true
}

func findBlock(base documents.Lines, old []string) []int {
	var out []int
	for at := 1; at+len(old)-1 <= base.Len(); at++ {
		if blockAt(base, old, at, false) {
			out = append(out, at)
		}
	}
	return out
}

// startList names where a hunk's lines occur, the first ten of them.
func startList(found []int) string {
	parts := make([]string, 0, min(len(found), 10))
	for _, n := range found[:min(len(found), 10)] {
		parts = append(parts, strconv.Itoa(n))
	}
	more := ""
	if len(found) > 10 {
		more = fmt.Sprintf(" and %d more", len(found)-10)
	}
	return strings.Join(parts, ", ") + more
}

func stripRow(b []byte) []byte { return b[len(rowPrefixRE().Find(b)):] }

// differAt names the first line of old that base does not hold at line
// at: the line to fix, not merely where the hunk starts.
func differAt(base documents.Lines, old []string, at int) string {
	for k, o := range old {
		n := at + k
		if n < 1 || n > base.Len() {
			return fmt.Sprintf("; its line %d would be line %d, past the end of the file (%d lines)", k+1, n, base.Len())
		}
		if got := string(base.Text(n)); got != o {
			return fmt.Sprintf("; at line %d the file has %q where the hunk has %q", n, clip(got, 200), clip(o, 200))
		}
	}
	return ""
}

// whitespaceOnly says where a hunk's old lines are in base apart from
// whitespace — the place nearest to line at (0: unknown), its first line
// that differs, and the others — so the fix is one call; "" when they are
// not there that way either. Blaming the line the header names instead
// would send the model to fix a line that is right.
func whitespaceOnly(base documents.Lines, old []string, at int) string {
	loose := make([]string, len(old))
	for i, o := range old {
		loose[i] = squash(o)
	}
	place := 0
	for n := 1; n+len(old)-1 <= base.Len(); n++ {
		if place > 0 && distance(n, at) >= distance(place, at) {
			break
		}
		if blockAtApart(base, loose, n) {
			place = n
		}
	}
	if place == 0 {
		return ""
	}
	var differ []int
	for k, o := range old {
		if string(base.Text(place+k)) != o {
			differ = append(differ, place+k)
		}
	}
	first := differ[0]
	where := fmt.Sprintf("are lines %d-%d of the file apart from whitespace", place, place+len(old)-1)
	if len(old) == 1 {
		where = fmt.Sprintf("are line %d of the file apart from whitespace", place)
	}
	if at > 0 && place != at {
		where += fmt.Sprintf(" (not at line %d: start the hunk at @@ -%d)", at, place)
	}
	also := ""
	switch rest := differ[1:]; {
	case len(rest) == 1:
		also = fmt.Sprintf("; line %d differs in whitespace too", rest[0])
	case len(rest) > 1:
		also = fmt.Sprintf("; lines %s differ in whitespace too", startList(rest))
	}
	return fmt.Sprintf("%s: line %d has %q where the hunk has %q, which differs in whitespace only%s", where, first, clip(string(base.Text(first)), 200), clip(old[first-place], 200), also)
}

func distance(a, b int) int { return max(a-b, b-a) }

// blockAtApart reports whether lines at.. of base are the squashed lines
// loose apart from their whitespace.
func blockAtApart(base documents.Lines, loose []string, at int) bool {
	for k, l := range loose {
		if squash(string(base.Text(at+k))) != l {
			return false
		}
	}
	return true
}

// nearestDiffer is differAt for a hunk whose position is unknown: it looks
// where the hunk's first line occurs, if it occurs exactly once in base,
// and returns "" otherwise.
func nearestDiffer(base documents.Lines, old []string) string {
	var at []int
	for n := 1; n <= base.Len() && len(at) < 2; n++ {
		if string(base.Text(n)) == old[0] {
			at = append(at, n)
		}
	}
	if len(at) != 1 {
		return ""
	}
	return differAt(base, old, at[0])
}

// bareHunkRE is a hunk header without line numbers ("@@", "@@ @@", "@@ func f() {").
var bareHunkRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^@@(?:\s*|\s+[^-\s].*|[^-\s].*)$`) })

// numberBareHunks gives each hunk header without line numbers the counts
// of its body and start 0 on both sides, which planHunk reads as "place it
// by its lines" (no real hunk that adds lines starts its new side at 0):
// models often write "@@" alone, and the parser would drop it.
func numberBareHunks(patch string) string {
	lines := strings.SplitAfter(patch, "\n")
	for i, l := range lines {
		if !bareHunkRE().MatchString(strings.TrimRight(l, "\r\n")) {
			continue
		}
		orig, next := 0, 0
		for _, b := range lines[i+1:] {
			if strings.HasPrefix(b, "@@") || strings.HasPrefix(b, "--- ") || strings.HasPrefix(b, "diff ") {
				break
			}
			switch {
			case strings.HasPrefix(b, "-"):
				orig++
			case strings.HasPrefix(b, "+"):
				next++
			case strings.HasPrefix(b, " ") || b == "\n":
				orig++
				next++
			}
		}
		lines[i] = fmt.Sprintf("@@ -0,%d +0,%d @@\n", orig, next)
	}
	return strings.Join(lines, "")
}
