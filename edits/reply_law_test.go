package edits

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/internal/lawhit"
)

// The law: whatever form an edit takes — line ops with rows or bare numbers
// (text with row-like prefixes or without), old/new, a patch, write, create
// — the file it writes is exactly the file before with the reply's diff
// applied: a row's text is the line written, and no line is written, kept
// or dropped that the diff does not show so. A text cut silently (a prefix
// taken for a pasted row) shows as a difference here.
func TestLaw_edit_writes_only_what_its_reply_shows(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"ops": 60, "old/new": 3, "patch": 5, "write": 3, "create": 3, "prefix kept": 2, "prefix dropped": 5})
	pool := []string{"a", "b", "", "  x", "3:00 x", "2: two", "1:1", "+4:y", "9:", " 5:z", "\tc"}
	// Two runs of rapid's default count: a kept prefix is a rare case.
	for range 2 {
		checkReplyShowsWrite(t, hits, pool)
	}
}

func checkReplyShowsWrite(t *testing.T, hits *lawhit.Counter, pool []string) {
	rapid.Check(t, func(rt *rapid.T) {
		root, err := os.MkdirTemp("", "tandem-replylaw-")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(root)
		lines := rapid.SliceOfN(rapid.SampledFrom(pool), 1, 7).Draw(rt, "lines")
		ending := rapid.SampledFrom([]string{"\n", "\r\n"}).Draw(rt, "ending")
		before := strings.Join(lines, ending)
		if rapid.Bool().Draw(rt, "final ending") {
			before += ending
		}
		w := newWSIn(rt, root, map[string]string{"f.txt": before})
		original := before
		tag := w.read("f.txt", "")
		n := len(lines)
		// newText draws replacement lines, often carrying row prefixes
		// numbered from the first line they replace.
		sent := "" // the text of the last op drawn
		newText := func(from int) string {
			ls := rapid.SliceOfN(rapid.SampledFrom(pool), 0, 3).Draw(rt, "text")
			if rapid.Bool().Draw(rt, "prefixed") {
				for i := range ls {
					ls[i] = strconv.Itoa(from+i) + ":" + ls[i]
				}
			}
			sent = strings.Join(ls, "\n")
			return sent
		}
		anchor := func(a, b int) string {
			s := strconv.Itoa(a)
			if b != a {
				s += "-" + strconv.Itoa(b)
			}
			if rapid.Bool().Draw(rt, "row") {
				s += ":" + lines[a-1]
			}
			return s
		}
		form := rapid.SampledFrom([]string{"ops", "ops", "ops", "ops", "old/new", "patch", "write", "create"}).Draw(rt, "form")
		name := "f.txt"
		var out string
		var op map[string]any
		switch form {
		case "ops":
			a := rapid.IntRange(1, n).Draw(rt, "from")
			b := rapid.IntRange(a, n).Draw(rt, "to")
			switch rapid.IntRange(-2, 5).Draw(rt, "op") {
			case -2, -1, 0:
				op = map[string]any{"replace": anchor(a, b), "text": newText(a)}
			case 1:
				op = map[string]any{"delete": anchor(a, b)}
			case 2:
				op = map[string]any{"insertAfter": anchor(a, a), "text": newText(a + 1)}
			case 3:
				op = map[string]any{"insertBefore": anchor(a, a), "text": newText(a)}
			case 4:
				op = map[string]any{"prepend": newText(1)}
			default:
				op = map[string]any{"append": newText(n + 1)}
			}
			out, err = w.edit(mustJSON(map[string]any{"files": []any{map[string]any{"path": name, "tag": tag, "ops": []any{op}}}}))
		case "old/new":
			old := lines[rapid.IntRange(0, n-1).Draw(rt, "old line")]
			out, err = w.edit(mustJSON(map[string]any{"files": []any{map[string]any{"path": name, "tag": tag, "old": old, "new": newText(1)}}}))
		case "patch":
			a := rapid.IntRange(1, n).Draw(rt, "from")
			var p strings.Builder
			fmt.Fprintf(&p, "--- a/f.txt\n+++ b/f.txt\n@@ -%d,1 +%d,1 @@\n-%s\n", a, a, lines[a-1])
			for _, l := range strings.Split(newText(a), "\n") {
				p.WriteString("+" + l + "\n")
			}
			out, err = w.edit(mustJSON(Args{Patch: p.String()}))
		case "write":
			out, err = Write(context.Background(), w.env, name, newText(1))
		case "create":
			name, before = "new.txt", ""
			out, err = w.edit(mustJSON(map[string]any{"files": []any{map[string]any{"path": name, "create": newText(1)}}}))
		}
		if err != nil {
			if w.file("f.txt") != original {
				rt.Fatalf("a refused edit changed the file: %v", err)
			}
			return
		}
		hits.Hit(form)
		if strings.Contains(out, "prefixes were dropped") {
			hits.Hit("prefix dropped")
		}
		if strings.Contains(out, "the text was written as given") {
			hits.Hit("prefix kept")
		}
		if form == "ops" {
			// The lines written are the text sent, unless the reply says
			// it dropped their row prefixes.
			var want []string
			for _, l := range splitText(sent) {
				want = append(want, string(l))
			}
			if _, del := op["delete"]; del {
				want = nil
			}
			if strings.Contains(out, "prefixes were dropped") {
				for i, l := range want {
					want[i] = rowPrefixRE().ReplaceAllString(l, "")
				}
			}
			var wrote []string
			for _, r := range strings.Split(out, "\n") {
				if m := diffRowRE.FindStringSubmatch(r); m != nil && m[1] == "+" {
					wrote = append(wrote, m[3])
				}
			}
			if strings.Join(wrote, "\n") != strings.Join(want, "\n") || len(wrote) != len(want) {
				rt.Fatalf("the op sent %q and its reply shows %q written, saying nothing of a change to the text\nreply:\n%s", sent, wrote, out)
			}
		}
		got := documents.Scan([]byte(w.file(name)))
		want, problem := applyReplyDiff(documents.Scan([]byte(before)), out)
		if problem != "" {
			rt.Fatalf("%s: %s\nreply:\n%s", form, problem, out)
		}
		if got.Len() != len(want) {
			rt.Fatalf("%s: the file has %d lines, the reply's diff makes %d\nreply:\n%s\nfile: %q", form, got.Len(), len(want), out, w.file(name))
		}
		for i, l := range want {
			if string(got.Text(i+1)) != l {
				rt.Fatalf("%s: line %d is %q, the reply's diff shows %q\nreply:\n%s", form, i+1, got.Text(i+1), l, out)
			}
		}
	})
}

var diffRowRE = regexp.MustCompile(`^([+ ])(\d+):(.*)$`)

// applyReplyDiff rebuilds the new file's lines from the old one and a
// reply's compact diff, as a model reading it would: "+N:" rows are lines
// written at N, "-" rows lines removed, " N:" rows unchanged lines, and the
// lines between rows unchanged.
func applyReplyDiff(old documents.Lines, reply string) ([]string, string) {
	var out []string
	o := 0 // next old line, 0-based
	keepTo := func(n int) string {
		for len(out)+1 < n {
			if o >= old.Len() {
				return fmt.Sprintf("row %d lies past the old file's lines", n)
			}
			out = append(out, string(old.Text(o+1)))
			o++
		}
		return ""
	}
	for _, r := range strings.Split(reply, "\n")[1:] {
		switch {
		case r == "" || r == documents.GapMarker || strings.HasPrefix(r, "(") || strings.HasPrefix(r, "["):
		case diffRowRE.MatchString(r):
			m := diffRowRE.FindStringSubmatch(r)
			n, _ := strconv.Atoi(m[2])
			if p := keepTo(n); p != "" {
				return nil, p
			}
			if m[1] == " " {
				if o >= old.Len() || string(old.Text(o+1)) != m[3] {
					return nil, fmt.Sprintf("context row %q is not the next old line", r)
				}
				o++
			}
			out = append(out, m[3])
		case strings.HasPrefix(r, "-"):
			if o >= old.Len() || string(old.Text(o+1)) != r[1:] {
				return nil, fmt.Sprintf("removed row %q is not the next old line", r)
			}
			o++
		default:
			return nil, fmt.Sprintf("row %q is not a diff row", r)
		}
	}
	for ; o < old.Len(); o++ {
		out = append(out, string(old.Text(o+1)))
	}
	return out, ""
}
