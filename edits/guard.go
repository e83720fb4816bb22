package edits

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tandemdev/tandem/documents"
)

// The reveal bounds: a rejection shows at most revealLines unseen
// anchors, each cut to revealChars characters.
const (
	revealLines = 40
	revealChars = 512
)

// reveal is the seen guard's verdict on one file's anchors.
type reveal struct {
	unseen []int  // every unseen anchor, ascending
	text   string // the rows shown and what they mean
	marked []int  // the anchors shown whole, now seen
	whole  bool   // every unseen anchor was shown whole
}

// guard checks that every anchor is a line of the tagged version the model
// was shown. When some are not, it shows the first revealLines of
// them, each cut to revealChars characters, and marks the ones it showed
// whole as seen, so a straight retry applies when it showed them all.
func guard(store *documents.Store, path, show string, tag documents.Tag, base documents.Lines, anchors []int) *reveal {
	if len(anchors) == 0 {
		return nil
	}
	seen := store.SeenLines(path, tag, base.Len())
	set := map[int]bool{}
	var unseen []int
	for _, n := range anchors {
		if !set[n] && !seen[n-1] {
			unseen = append(unseen, n)
		}
		set[n] = true
	}
	if len(unseen) == 0 {
		return nil
	}
	sort.Ints(unseen)
	r := &reveal{unseen: unseen, whole: len(unseen) <= revealLines}
	// Each anchor shown comes with the neighbours the model had not seen
	// either, so it can tell whether the line is the one it meant.
	shown := map[int]bool{}
	for _, n := range unseen[:min(len(unseen), revealLines)] {
		shown[n] = true
		for _, m := range []int{n - 1, n + 1} {
			if m >= 1 && m <= base.Len() && !seen[m-1] && !set[m] {
				shown[m] = true
			}
		}
	}
	rowsShown := make([]int, 0, len(shown))
	for m := range shown {
		rowsShown = append(rowsShown, m)
	}
	sort.Ints(rowsShown)
	var rows strings.Builder
	for _, m := range rowsShown {
		row, whole := cutRow(m, base.Text(m))
		rows.WriteString(row)
		rows.WriteByte('\n')
		switch {
		case whole:
			r.marked = append(r.marked, m)
		case set[m]:
			r.whole = false
		}
	}
	store.MarkSeen(path, tag, r.marked...)
	var b strings.Builder
	fmt.Fprintf(&b, "[%s#%s] you have not seen line%s %s, which the edit anchors on. ", show, tag, plural(len(unseen)), lineList(unseen))
	one := len(unseen) == 1
	around := ""
	if len(rowsShown) > min(len(unseen), revealLines) {
		around = ", with the unseen lines next to " + map[bool]string{true: "it", false: "them"}[one]
	}
	switch {
	case len(unseen) > revealLines:
		fmt.Fprintf(&b, "Here are the first %d of them%s:\n", revealLines, around)
	case one:
		fmt.Fprintf(&b, "Here it is%s:\n", around)
	default:
		fmt.Fprintf(&b, "Here they are%s:\n", around)
	}
	b.WriteString(rows.String())
	retry := `call edit again with the same arguments; if not, anchor on the line you meant as a row ("12:its text"), so a wrong line is refused instead of changed`
	switch {
	case r.whole && one:
		b.WriteString("This line is now seen. Check that it is the line you meant: if it is, " + retry + ".\n")
	case r.whole:
		b.WriteString("These lines are now seen. Check that each is the line you meant: if they are, " + retry + ".\n")
	default:
		fmt.Fprintf(&b, "Only rows shown whole are now seen (a rejection shows at most %d lines, each cut to %d characters). ", revealLines, revealChars)
		var long, short []int // no read shows long ones whole: reading them again would not help
		for _, n := range unseen {
			if documents.ShowsWhole(base.Text(n)) {
				short = append(short, n)
			} else {
				long = append(long, n)
			}
		}
		if len(short) > 0 {
			fmt.Fprintf(&b, "Read the lines %s, then call edit again.", lineList(short))
		}
		if len(long) > 0 {
			it := map[bool]string{true: "it", false: "them"}[len(long) == 1]
			fmt.Fprintf(&b, "%sLine%s %s %s too long for any row to show whole, so no read makes %s seen and no line op can change %s. Read the part you change with columns (read {\"path\":%q,\"lines\":\"%d\",\"columns\":\"1-4000\"}, then the columns the row names), then change it with {\"old\":\"exact text\",\"new\":\"…\"}, old lying inside the columns shown; or change %s with the shell.",
				map[bool]string{true: " ", false: ""}[len(short) > 0], plural(len(long)), lineList(long), map[bool]string{true: "is", false: "are"}[len(long) == 1], it, it, show, long[0], it)
		}
		b.WriteString("\n")
	}
	r.text = b.String()
	return r
}

// cutRow renders a row for a rejection, cut to revealChars characters.
func cutRow(n int, text []byte) (string, bool) {
	if utf8.RuneCount(text) <= revealChars {
		return strconv.Itoa(n) + ":" + string(text), true
	}
	cut, count := 0, 0
	for count < revealChars {
		_, size := utf8.DecodeRune(text[cut:])
		cut += size
		count++
	}
	return fmt.Sprintf("%d:%s … [cut at %d characters; this line stays unseen]", n, text[:cut], revealChars), false
}

// lineList writes 1-based lines compactly: "3, 7-9, 12".
func lineList(ns []int) string {
	var spans []documents.Span
	for _, n := range ns {
		if k := len(spans); k > 0 && spans[k-1].To+1 == n {
			spans[k-1].To = n
			continue
		}
		spans = append(spans, documents.Span{From: n, To: n})
	}
	return strings.ReplaceAll(documents.FormatSpans(spans), ",", ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
