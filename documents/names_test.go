package documents

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// A page at skip N ranks the first N names of every file with a match, in
// whatever order the walk meets them: kept compactly and bounded (as the
// walk's add keeps them), the list holds exactly the bound smallest names,
// through every compaction.
func TestFileNamesKeepTheBoundSmallest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := rapid.SliceOfNDistinct(rapid.StringMatching(`[a-z/._-]{1,40}`), 1, 3000, rapid.ID[string]).Draw(t, "names")
		bound := rapid.IntRange(1, len(names)+5).Draw(t, "bound")
		g := &grepRun{bound: bound}
		for _, n := range names {
			g.add(n)
		}
		l := &g.matched
		l.sort()
		var got []string
		for i := range l.Len() {
			got = append(got, l.name(i))
		}
		want := slices.Sorted(slices.Values(names))[:min(bound, len(names))]
		if !slices.Equal(got, want) {
			t.Fatalf("kept %d names %v, want the %d smallest %v", len(got), got, bound, want)
		}
	})
}

// Replacing the top again and again leaves dead text behind; the list is
// written again before the dead text passes half of it, so a first page of
// a search that matches every file holds a page's worth of names.
func TestFileNamesDropReplacedText(t *testing.T) {
	g := &grepRun{bound: 20}
	for i := 0; i < 20; i++ {
		g.add(fmt.Sprintf("z%03d/%s", i, strings.Repeat("x", 60)))
	}
	for i := 100000; i > 0; i-- {
		g.add(fmt.Sprintf("y%06d/%s", i, strings.Repeat("x", 60)))
	}
	l := &g.matched
	if l.size > 2*namesCompactAt+20*70 {
		t.Fatalf("20 names hold %d bytes of text after 100,000 replacements; want the dead text dropped", l.size)
	}
	l.sort()
	if first, last := l.name(0), l.name(19); !strings.HasPrefix(first, "y000001/") || !strings.HasPrefix(last, "y000020/") {
		t.Fatalf("kept %s … %s, want y000001 … y000020", first, last)
	}
}
