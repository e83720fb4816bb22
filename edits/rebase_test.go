package edits

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/documents"
)

// lcsLen is the textbook dynamic program.
func lcsLen(a, b []int) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				d[i][j] = d[i+1][j+1] + 1
			} else {
				d[i][j] = max(d[i+1][j], d[i][j+1])
			}
		}
	}
	return d[0][0]
}

// The line diff pairs only equal lines, in order, and as many as a longest
// common subsequence has: it is exact and minimal.
func TestLineMatchIsExactAndMinimal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SliceOfN(rapid.IntRange(0, 4), 0, 40).Draw(t, "a")
		b := rapid.SliceOfN(rapid.IntRange(0, 4), 0, 40).Draw(t, "b")
		m, err := matchIDs(a, b)
		if err != nil {
			t.Fatal(err)
		}
		last, n := -1, 0
		for i, j := range m {
			if j < 0 {
				continue
			}
			if j <= last || a[i] != b[j] {
				t.Fatalf("bad pair %d→%d in %v", i, j, m)
			}
			last = j
			n++
		}
		if want := lcsLen(a, b); n != want {
			t.Fatalf("%d pairs, longest common subsequence %d", n, want)
		}
	})
}

// bigFile is n distinct lines.
func bigFile(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d of the original text", i+1)
	}
	return lines
}

// churn changes k random lines of lines (edits, deletions, insertions),
// never touching the protected ones.
func churn(r *rand.Rand, lines []string, k int, protected map[string]bool) []string {
	out := append([]string(nil), lines...)
	for done := 0; done < k; {
		i := r.IntN(len(out))
		if protected[out[i]] {
			continue
		}
		switch r.IntN(3) {
		case 0:
			out[i] = fmt.Sprintf("changed %d by someone else", done)
		case 1:
			out = append(out[:i], out[i+1:]...)
		case 2:
			out = append(out[:i], append([]string{fmt.Sprintf("inserted %d by someone else", done)}, out[i:]...)...)
		}
		done++
	}
	return out
}

func join(lines []string) string { return strings.Join(lines, "\n") + "\n" }

// A stale edit on a 50,000-line file after 1,000 changed lines elsewhere
// lands exactly where its anchors are now.
func TestRebase50kLinesExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	orig := bigFile(50_000)
	w := newWS(t, map[string]string{"big.txt": join(orig)})
	abs := w.abs("big.txt")
	tag := w.env.Seen.Saw(abs, []byte(join(orig)))
	var ops []Op
	protected := map[string]bool{}
	for k := 0; k < 25; k++ {
		n := 1 + k*2000 + r.IntN(1500)
		w.env.Seen.MarkSeenRange(abs, tag, n, n+1)
		protected[orig[n-1]], protected[orig[n]] = true, true
		a, text := Anchor(fmt.Sprintf("%d-%d", n, n+1)), fmt.Sprintf("agent %d", k)
		ops = append(ops, Op{Replace: &a, Text: &text})
	}
	now := churn(r, orig, 1000, protected)
	w.put("big.txt", join(now))
	out, err := w.edit(mustJSON(Args{Files: []FileEdit{{Path: "big.txt", Tag: string(tag), Ops: ops}}}))
	if err != nil {
		t.Fatal(err)
	}
	// The reference: find each anchored pair by its (unique) text.
	want := append([]string(nil), now...)
	for k := len(ops) - 1; k >= 0; k-- {
		var from int
		fmt.Sscanf(string(*ops[k].Replace), "%d-", &from)
		for i := range want {
			if want[i] == orig[from-1] {
				if want[i+1] != orig[from] {
					t.Fatalf("the churn split an anchored pair")
				}
				want = append(want[:i], append([]string{*ops[k].Text}, want[i+2:]...)...)
				break
			}
		}
	}
	if got := w.file("big.txt"); got != join(want) {
		t.Fatalf("rebased result differs from the reference")
	}
	if !strings.Contains(out, "your edit was carried over") {
		t.Errorf("reply does not say it rebased:\n%.300s", out)
	}
}

// An anchored line that changed since the tag: refused with its current
// text, marked seen, and the redo with the new tag applies.
func TestStaleAnchorChangedShowsCurrentText(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	tag := w.read("a.txt", "")
	w.put("a.txt", "zero\none\nTWO!\nthree\n")
	_, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + tag + `","ops":[{"replace":"2","text":"2"}]}]}`)
	if codeOf(err) != "conflict" || !strings.Contains(err.Error(), "3:TWO!") {
		t.Fatalf("want a conflict showing 3:TWO!, got %v", err)
	}
	m := headerRE.FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("no new tag in %v", err)
	}
	if _, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + m[2] + `","ops":[{"replace":"3","text":"2"}]}]}`); err != nil {
		t.Fatalf("redo on the shown lines: %v", err)
	}
	if got := w.file("a.txt"); got != "zero\none\n2\nthree\n" {
		t.Errorf("file %q", got)
	}
}

// A start or end insert retried with the old tag after it landed does
// not insert again.
func TestRetryOfStartAndEndInsertsIsIdempotent(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "body\n"})
	tag := w.read("a.txt", "")
	args := `{"files":[{"path":"a.txt","tag":"` + tag + `","ops":[{"prepend":"top"},{"append":"bottom"}]}]}`
	if _, err := w.edit(args); err != nil {
		t.Fatal(err)
	}
	out, err := w.edit(args)
	if err != nil || !strings.Contains(out, "already in the file") {
		t.Fatalf("retry: %q %v", out, err)
	}
	if got := w.file("a.txt"); got != "top\nbody\nbottom\n" {
		t.Errorf("file %q", got)
	}
}

// Two sessions change the same line: one wins, the other gets a conflict
// with the current text; nothing is lost.
func TestTwoSessionsOneWins(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	other := &ws{t: t, root: w.root, env: &Env{Roots: w.env.Roots, Seen: documents.NewStore(), Buffers: w.env.Buffers}}
	ta, tb := w.read("a.txt", ""), other.read("a.txt", "")
	if _, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + ta + `","ops":[{"replace":"2","text":"A"}]}]}`); err != nil {
		t.Fatal(err)
	}
	_, err := other.edit(`{"files":[{"path":"a.txt","tag":"` + tb + `","ops":[{"replace":"2","text":"B"}]}]}`)
	if codeOf(err) != "conflict" || !strings.Contains(err.Error(), "2:A") {
		t.Fatalf("second session: %v", err)
	}
	if got := w.file("a.txt"); got != "one\nA\nthree\n" {
		t.Errorf("file %q", got)
	}

	// Racing commits staged on the same bytes: exactly one lands.
	w.put("a.txt", "x\n")
	for round := 0; round < 20; round++ {
		base := fmt.Sprintf("round %d\n", round)
		w.put("a.txt", base)
		var staged [2][]*change
		for i, s := range []*ws{w, other} {
			tag := s.read("a.txt", "")
			staged[i] = stageAll(t, s, fmt.Sprintf(`{"files":[{"path":"a.txt","tag":%q,"ops":[{"replace":"1","text":"session %d"}]}]}`, tag, i))
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, s := range []*ws{w, other} {
			wg.Add(1)
			go func() { defer wg.Done(); _, errs[i] = run(context.Background(), s.env, staged[i]) }()
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("round %d: both or neither landed: %v / %v", round, errs[0], errs[1])
		}
		winner := 0
		if errs[0] != nil {
			winner = 1
		}
		if got := w.file("a.txt"); got != fmt.Sprintf("session %d\n", winner) {
			t.Fatalf("round %d: file %q, winner %d", round, got, winner)
		}
	}
}

// Another process rewrites the file between the read and the edit: always
// a conflict, never a lost update.
func TestExternalWriterProcessNeverLosesUpdate(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	for round := 0; round < 10; round++ {
		w.put("a.txt", "one\ntwo\nthree\n")
		tag := w.read("a.txt", "")
		theirs := fmt.Sprintf("one\nexternal %d\nthree\n", round)
		if round%3 == 2 {
			theirs = fmt.Sprintf("rewritten %d\n", round) // the whole file
		}
		cmd := exec.Command("sh", "-c", `printf '%s' "$0" > "$1"`, theirs, w.abs("a.txt"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("writer: %v %s", err, out)
		}
		_, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + tag + `","ops":[{"replace":"2","text":"agent"}]}]}`)
		if codeOf(err) != "conflict" {
			t.Fatalf("round %d: want a conflict, got %v", round, err)
		}
		if got := w.file("a.txt"); got != theirs {
			t.Fatalf("round %d: the external write was lost: %q", round, got)
		}
	}
}

// After an edit lands, the lines seen before and the lines it wrote stay
// seen in the new version; lines never shown stay unseen.
func TestSeenCarriesOverAnEdit(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	w := newWS(t, map[string]string{"a.txt": b.String()})
	tag := w.read("a.txt", "1-3,9")
	out, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + tag + `","ops":[{"replace":"2","text":"a\nb"}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	now := documents.Tag(headerRE.FindStringSubmatch(out)[2])
	for n, want := range map[int]bool{1: true, 2: true, 3: true, 4: true, 5: false, 6: false, 10: true, 11: false} {
		if got := w.env.Seen.Seen(w.abs("a.txt"), now, n); got != want {
			t.Errorf("line %d of the new version seen %v, want %v", n, got, want)
		}
	}
}
