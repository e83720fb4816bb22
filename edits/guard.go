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
	var rows strings.Builder
	for _, n := range unseen[:min(len(unseen), revealLines)] {
		row, whole := cutRow(n, base.Text(n))
		rows.WriteString(row)
		rows.WriteByte('\n')
		if whole {
			r.marked = append(r.marked, n)
		} else {
			r.whole = false
		}
	}
	store.MarkSeen(path, tag, r.marked...)
	var b strings.Builder
	fmt.Fprintf(&b, "[%s#%s] you have not seen line%s %s, which the edit anchors on. ", show, tag, plural(len(unseen)), lineList(unseen))
	one := len(unseen) == 1
	switch {
	case len(unseen) > revealLines:
		fmt.Fprintf(&b, "Here are the first %d of them:\n", revealLines)
	case one:
		b.WriteString("Here it is:\n")
	default:
		b.WriteString("Here they are:\n")
	}
	b.WriteString(rows.String())
	switch {
	case r.whole && one:
		b.WriteString("This line was shown whole and is now seen: if it is what you meant, call edit again with the same arguments.\n")
	case r.whole:
		b.WriteString("These lines were shown whole and are now seen: if they are what you meant, call edit again with the same arguments.\n")
	default:
		fmt.Fprintf(&b, "Only rows shown whole are now seen (a rejection shows at most %d lines, each cut to %d characters). Read the lines %s, then call edit again.\n",
			revealLines, revealChars, lineList(unseen))
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
