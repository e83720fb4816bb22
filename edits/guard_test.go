package edits

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/internal/lawhit"
)

// revealCase is one random rejection scenario: a file whose lines have
// lengths around the 512-character cut, some lines read, and a replace op
// over a random range.
type revealCase struct {
	w        *ws
	lines    []string
	tag      string
	from, to int
	unseen   []int        // the anchors not read, ascending
	wasSeen  map[int]bool // the lines seen before the edit
	args     string
	text     string // the first reply (rejection or not)
	rejected bool
	before   string
}

func genReveal(rt *rapid.T) *revealCase {
	n := rapid.IntRange(1, 100).Draw(rt, "lines")
	c := &revealCase{}
	var file strings.Builder
	for i := 0; i < n; i++ {
		l := rapid.SampledFrom([]int{0, 3, 200, 511, 512, 513, 1500}).Draw(rt, "len")
		ch := rapid.SampledFrom([]string{"x", "é", "😀"}).Draw(rt, "char")
		c.lines = append(c.lines, strings.Repeat(ch, l))
		file.WriteString(c.lines[i] + "\n")
	}
	root, err := os.MkdirTemp("", "tandem-reveal-")
	if err != nil {
		rt.Fatal(err)
	}
	rt.Cleanup(func() { os.RemoveAll(root) })
	c.w = newWSIn(rt, root, map[string]string{"f.txt": file.String()})
	c.before = file.String()
	read := map[int]bool{}
	var sel []string
	density := rapid.SampledFrom([]int{0, 1, 5, 9}).Draw(rt, "read per 10 lines")
	for i := 1; i <= n; i++ {
		if rapid.IntRange(0, 9).Draw(rt, "read") < density {
			read[i] = true
			sel = append(sel, strconv.Itoa(i))
		}
	}
	if len(sel) > 0 {
		c.tag = c.w.read("f.txt", strings.Join(sel, ","))
	} else {
		c.tag = string(c.w.env.Seen.Saw(c.w.abs("f.txt"), []byte(c.before)))
	}
	c.from, c.to = 1, n // the whole file: many anchors at once
	if !rapid.Bool().Draw(rt, "whole file") {
		c.from = rapid.IntRange(1, n).Draw(rt, "from")
		c.to = rapid.IntRange(c.from, n).Draw(rt, "to")
	}
	c.wasSeen = map[int]bool{}
	for k := 1; k <= n; k++ {
		c.wasSeen[k] = c.seen(k)
	}
	for k := c.from; k <= c.to; k++ {
		if !c.seen(k) { // read does not mark a row it had to cut
			c.unseen = append(c.unseen, k)
		}
	}
	c.args = fmt.Sprintf(`{"files":[{"path":"f.txt","tag":%q,"ops":[{"replace":"%d-%d","text":"R"}]}]}`, c.tag, c.from, c.to)
	out, err := c.w.edit(c.args)
	c.rejected = err != nil
	c.text = replyText(out, err)
	if c.rejected && codeOf(err) != "not_seen" {
		rt.Fatalf("rejected with %v", err)
	}
	return c
}

// whole reports whether the rejection can show every unseen anchor whole.
func (c *revealCase) whole() bool {
	if len(c.unseen) > revealLines {
		return false
	}
	for _, k := range c.unseen {
		if utf8.RuneCountInString(c.lines[k-1]) > revealChars {
			return false
		}
	}
	return true
}

func (c *revealCase) seen(k int) bool {
	return c.w.env.Seen.Seen(c.w.abs("f.txt"), documents.Tag(c.tag), k)
}

// An edit applies only if every anchor is seen; a rejected one changes nothing.
func TestLaw_edit_only_seen_lines(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"rejected": 50, "applied": 5})
	rapid.Check(t, func(rt *rapid.T) {
		c := genReveal(rt)
		hits.Hit(map[bool]string{true: "rejected", false: "applied"}[c.rejected])
		if c.rejected != (len(c.unseen) > 0) {
			rt.Fatalf("unseen anchors %v, rejected %v:\n%s", c.unseen, c.rejected, c.text)
		}
		if c.rejected && c.w.file("f.txt") != c.before {
			rt.Fatalf("a rejected edit changed the file")
		}
	})
}

// Every anchor seen: the edit applies.
func TestLaw_edit_seen_applies(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"every anchor seen": 5})
	rapid.Check(t, func(rt *rapid.T) {
		c := genReveal(rt)
		if len(c.unseen) == 0 {
			hits.Hit("every anchor seen")
			want := strings.Join(c.lines[:c.from-1], "\n")
			if c.from > 1 {
				want += "\n"
			}
			want += "R\n"
			if c.to < len(c.lines) {
				want += strings.Join(c.lines[c.to:], "\n") + "\n"
			}
			if got := c.w.file("f.txt"); got != want {
				rt.Fatalf("file after the edit:\n%q\nwant\n%q", got, want)
			}
		}
	})
}

// A rejected edit applies on a straight retry iff the rejection could show
// every unseen anchor whole.
func TestLaw_reveal_then_retry(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"shown whole": 6, "not shown whole": 25})
	rapid.Check(t, func(rt *rapid.T) {
		c := genReveal(rt)
		if !c.rejected {
			return
		}
		hits.Hit(map[bool]string{true: "shown whole", false: "not shown whole"}[c.whole()])
		_, err := c.w.edit(c.args)
		if (err == nil) != c.whole() {
			rt.Fatalf("retry after revealing %d anchors (whole %v): %v", len(c.unseen), c.whole(), err)
		}
	})
}

// Unseen anchors become seen iff the rejection showed them all whole; each
// one shown whole is seen.
func TestLaw_edit_marks_whole_reveal(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"shown whole": 6, "not shown whole": 25})
	rapid.Check(t, func(rt *rapid.T) {
		c := genReveal(rt)
		if !c.rejected {
			return
		}
		hits.Hit(map[bool]string{true: "shown whole", false: "not shown whole"}[c.whole()])
		all := true
		for i, k := range c.unseen {
			shownWhole := i < revealLines && utf8.RuneCountInString(c.lines[k-1]) <= revealChars
			if c.seen(k) != shownWhole {
				rt.Fatalf("anchor %d (shown whole %v) seen %v", k, shownWhole, c.seen(k))
			}
			all = all && c.seen(k)
		}
		if all != c.whole() {
			rt.Fatalf("all anchors seen %v, but whole %v", all, c.whole())
		}
	})
}

var namesRE = regexp.MustCompile(`you have not seen lines? ([0-9, -]+), which`)

func expand(list string) []int {
	var out []int
	for _, part := range strings.Split(list, ", ") {
		a, b, isRange := strings.Cut(part, "-")
		from, _ := strconv.Atoi(a)
		to := from
		if isRange {
			to, _ = strconv.Atoi(b)
		}
		for k := from; k <= to; k++ {
			out = append(out, k)
		}
	}
	return out
}

// The rejection names exactly the unseen anchors, in order.
func TestLaw_reject_names_unseen(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"rejected": 50})
	rapid.Check(t, func(rt *rapid.T) {
		c := genReveal(rt)
		if !c.rejected {
			return
		}
		hits.Hit("rejected")
		m := namesRE.FindStringSubmatch(c.text)
		if m == nil {
			rt.Fatalf("the rejection names no lines:\n%s", c.text)
		}
		if got := fmt.Sprint(expand(m[1])); got != fmt.Sprint(c.unseen) {
			rt.Fatalf("named %s, want %v", got, c.unseen)
		}
	})
}

var rowRE = regexp.MustCompile(`(?m)^(\d+):(.*)$`)

// The rejection shows, of its first 40 unseen anchors, each line, cut to 512
// characters when longer, and beside each the unseen lines next to it that
// are not anchors, so the model can tell whether it is the line it meant.
func TestLaw_reject_shows_lines(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"a line cut": 100, "an unseen neighbour shown": 12, "past the cap": 2})
	rapid.Check(t, func(rt *rapid.T) {
		c := genReveal(rt)
		if !c.rejected {
			return
		}
		if len(c.unseen) > revealLines {
			hits.Hit("past the cap")
		}
		rows := rowRE.FindAllStringSubmatch(c.text, -1)
		anchors := map[int]bool{}
		for _, n := range c.unseen {
			anchors[n] = true
		}
		shown := map[int]bool{}
		for _, n := range c.unseen[:min(len(c.unseen), revealLines)] {
			shown[n] = true
			for _, m := range []int{n - 1, n + 1} {
				if m >= 1 && m <= len(c.lines) && !c.wasSeen[m] && !anchors[m] {
					shown[m] = true
				}
			}
		}
		var want []int
		for n := range shown {
			want = append(want, n)
		}
		sort.Ints(want)
		if len(rows) != len(want) {
			rt.Fatalf("%d rows shown, want %d", len(rows), len(want))
		}
		for i, r := range rows {
			n, _ := strconv.Atoi(r[1])
			line := c.lines[n-1]
			shown := r[2]
			if !anchors[n] {
				hits.Hit("an unseen neighbour shown")
			}
			if utf8.RuneCountInString(line) > revealChars {
				hits.Hit("a line cut")
				cut := string([]rune(line)[:revealChars])
				if !strings.HasPrefix(shown, cut) || strings.HasPrefix(shown, cut+string([]rune(line)[revealChars])) {
					rt.Fatalf("line %d is not cut at %d characters", n, revealChars)
				}
			} else if shown != line {
				rt.Fatalf("line %d shown as %q", n, clip(shown, 40))
			}
			if n != want[i] {
				rt.Fatalf("row %d is line %d, want %d", i, n, want[i])
			}
		}
	})
}

// The rejection says it showed its anchors whole iff it did.
func TestLaw_reject_whole_exact(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"shown whole": 6, "not shown whole": 25})
	rapid.Check(t, func(rt *rapid.T) {
		c := genReveal(rt)
		if !c.rejected {
			return
		}
		hits.Hit(map[bool]string{true: "shown whole", false: "not shown whole"}[c.whole()])
		says := strings.Contains(c.text, "now seen. Check that")
		saysNot := strings.Contains(c.text, "Only rows shown whole are now seen")
		if says != c.whole() || saysNot == c.whole() {
			rt.Fatalf("whole %v, but the text says:\n%s", c.whole(), c.text)
		}
	})
}

// The reveal cap: 40 anchors, 512 characters.
func TestLaw_reveal_bounds(t *testing.T) {
	if revealLines != 40 || revealChars != 512 {
		t.Fatalf("bounds %d lines, %d characters", revealLines, revealChars)
	}
	for _, tc := range []struct {
		lines, width int
		whole        bool
	}{{40, 512, true}, {41, 10, false}, {1, 513, false}, {40, 1, true}} {
		var b strings.Builder
		for i := 0; i < tc.lines; i++ {
			b.WriteString(strings.Repeat("é", tc.width) + "\n")
		}
		w := newWS(t, map[string]string{"f.txt": b.String()})
		tag := w.env.Seen.Saw(w.abs("f.txt"), []byte(b.String()))
		args := fmt.Sprintf(`{"files":[{"path":"f.txt","tag":%q,"ops":[{"delete":"1-%d"}]}]}`, tag, tc.lines)
		_, err := w.edit(args)
		if codeOf(err) != "not_seen" {
			t.Fatalf("%+v: %v", tc, err)
		}
		if rows := rowRE.FindAllString(err.Error(), -1); len(rows) != min(tc.lines, 40) {
			t.Errorf("%+v: %d rows shown", tc, len(rows))
		}
		if _, err := w.edit(args); (err == nil) != tc.whole {
			t.Errorf("%+v: retry %v", tc, err)
		}
	}
}
