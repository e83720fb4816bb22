package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
)

// TestLaw_restore_keeps_later_user_work: agent turns that write files, the
// user's own writes between them, then a restore of any turn. A file the
// user wrote after the agent's last write there (from that turn on) keeps
// the user's bytes; every other file the agent wrote from that turn on holds
// exactly what it held before the agent's first write there (or is gone, if
// the agent created it); files the agent did not touch are unchanged.
// Restoring the restore puts the restored files back as they were.
func TestLaw_restore_keeps_later_user_work(t *testing.T) {
	files := []string{"a.txt", "b.txt", "c.txt"}
	rapid.Check(t, func(rt *rapid.T) {
		ws := t.TempDir()
		path := func(f string) string { return filepath.Join(ws, f) }
		read := func(f string) (string, bool) {
			b, err := os.ReadFile(path(f))
			return string(b), err == nil
		}
		for _, f := range files {
			if rapid.Bool().Draw(rt, "exists "+f) {
				_ = os.WriteFile(path(f), []byte("initial "+f+"\n"), 0o644)
			}
		}
		type state struct {
			content string
			exists  bool
		}
		// Per turn, what each file held before the agent's first write and
		// whether the user wrote it after the agent's last write.
		type touch struct {
			before      state
			userAfter   bool
			agentWrites bool
		}
		turns := rapid.IntRange(1, 4).Draw(rt, "turns")
		history := make([]map[string]*touch, turns)
		m := &fake.Model{}
		c := NewChat(Options{Session: openSession(ws), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"}})
		defer c.Close()
		for turn := range turns {
			history[turn] = map[string]*touch{}
			writes := rapid.SliceOfDistinct(rapid.SampledFrom(files), func(s string) string { return s }).Draw(rt, fmt.Sprintf("agent writes %d", turn))
			var reads, puts []providers.Block
			for i, f := range writes {
				content, exists := read(f)
				history[turn][f] = &touch{before: state{content, exists}, agentWrites: true}
				if exists {
					reads = append(reads, fake.Use(fmt.Sprintf("r%d", i), "read", map[string]any{"path": f}))
				}
				puts = append(puts, fake.Use(fmt.Sprintf("w%d", i), "write", map[string]any{"path": f, "content": fmt.Sprintf("agent turn %d %s\n", turn, f)}))
			}
			m.Responses = nil
			if len(reads) > 0 {
				m.Responses = append(m.Responses, fake.Call(reads...))
			}
			if len(puts) > 0 {
				m.Responses = append(m.Responses, fake.Call(puts...))
			}
			m.Responses = append(m.Responses, fake.Say("done"))
			if _, err := c.Prompt(context.Background(), textPrompt("write"), func(acp.SessionUpdate) {}); err != nil {
				rt.Fatal(err)
			}
			for _, f := range writes {
				if got, _ := read(f); got != fmt.Sprintf("agent turn %d %s\n", turn, f) {
					rt.Fatalf("the agent's write of %s did not land: %q", f, got)
				}
			}
			for _, f := range rapid.SliceOfDistinct(rapid.SampledFrom(files), func(s string) string { return s }).Draw(rt, fmt.Sprintf("user writes %d", turn)) {
				_ = os.WriteFile(path(f), []byte(fmt.Sprintf("user after turn %d %s\n", turn, f)), 0o644)
				for t := 0; t <= turn; t++ {
					if h := history[t][f]; h != nil {
						h.userAfter = true
					}
				}
			}
		}
		k := rapid.IntRange(0, turns-1).Draw(rt, "restore turn")
		want := map[string]state{}
		for _, f := range files {
			content, exists := read(f)
			want[f] = state{content, exists}
			var first, last *touch
			for t := k; t < turns; t++ {
				if h := history[t][f]; h != nil && h.agentWrites {
					if first == nil {
						first = h
					}
					last = h
				}
			}
			if last != nil && !last.userAfter {
				want[f] = first.before
			}
		}
		beforeRestore := map[string]state{}
		for _, f := range files {
			content, exists := read(f)
			beforeRestore[f] = state{content, exists}
		}
		if _, err := c.Restore(context.Background(), k, false); err != nil {
			rt.Fatal(err)
		}
		for _, f := range files {
			content, exists := read(f)
			if got := (state{content, exists}); got != want[f] {
				rt.Fatalf("after restoring turn %d, %s is %+v, want %+v", k, f, got, want[f])
			}
		}
		cps := c.Checkpoints()
		if len(cps) > 0 && cps[len(cps)-1].Turn == turns {
			last := cps[len(cps)-1]
			if _, err := c.Restore(context.Background(), last.Turn, false); err != nil {
				rt.Fatal(err)
			}
			for _, f := range files {
				content, exists := read(f)
				if got := (state{content, exists}); got != beforeRestore[f] {
					rt.Fatalf("undoing the restore left %s as %+v, want %+v", f, got, beforeRestore[f])
				}
			}
		}
	})
}

// TestLaw_restore_around_later_changes: random agent turns that rewrite
// random runs of lines of up to three files (creating the missing ones), the
// user's own edits of random runs between turns, then a restore of a random
// turn, around later changes or not. Every line is distinct, so which lines
// the user changed after the agent is plain. Then:
//   - a file the user did not change after the agent's last write there
//     holds exactly what it held before the agent's first write (exact);
//   - without the flag, a file the user changed is untouched (kept);
//   - with it, every line the user wrote after the agent is there in order,
//     byte for byte, and no line the user removed comes back; and where the
//     user's changes and the agent's are apart by an unchanged line, the
//     file is the pre-agent text with the user's changes made to it
//     (merged); where they touch, it is untouched (kept-overlap);
//   - restoring the restore puts back every file as it was.
//
// Each of the four branches must be hit by at least 10 files in a run of
// rapid's 100 cases (typically 20 or more), or the law proves nothing there.
func TestLaw_restore_around_later_changes(t *testing.T) {
	files := []string{"a.txt", "b.txt", "c.txt"}
	var exact, merged, overlap, keptChanged int
	rapid.Check(t, func(rt *rapid.T) {
		ws := t.TempDir()
		path := func(f string) string { return filepath.Join(ws, f) }
		read := func(f string) []string {
			b, err := os.ReadFile(path(f))
			if err != nil {
				return nil
			}
			return strings.SplitAfter(string(b), "\n")[:strings.Count(string(b), "\n")]
		}
		fresh := 0
		// change replaces up to runs random runs of lines by up to two new
		// ones each, always changing something.
		change := func(label, f string, lines []string, runs int) []string {
			for k := rapid.IntRange(1, runs).Draw(rt, label+" runs"); k > 0; k-- {
				from := rapid.IntRange(0, len(lines)).Draw(rt, label+" from")
				to := rapid.IntRange(from, min(from+2, len(lines))).Draw(rt, label+" to")
				n := rapid.IntRange(0, 2).Draw(rt, label+" new")
				if from == to && n == 0 {
					n = 1
				}
				next := slices.Clone(lines[:from])
				for range n {
					fresh++
					next = append(next, fmt.Sprintf("%s %s %d\n", f, label, fresh))
				}
				lines = append(next, lines[to:]...)
			}
			return lines
		}
		for _, f := range files {
			if rapid.Bool().Draw(rt, "exists "+f) {
				var lines []string
				for i := range rapid.IntRange(1, 30).Draw(rt, "lines "+f) {
					lines = append(lines, fmt.Sprintf("%s initial %d\n", f, i))
				}
				_ = os.WriteFile(path(f), []byte(strings.Join(lines, "")), 0o644)
			}
		}
		// Per turn and file the agent wrote: what it held before, and what
		// the agent left.
		type write struct{ before, after []string }
		turns := rapid.IntRange(1, 3).Draw(rt, "turns")
		history := make([]map[string]write, turns)
		m := &fake.Model{}
		c := NewChat(Options{Session: openSession(ws), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"}})
		defer c.Close()
		distinct := func(label string) []string {
			return rapid.SliceOfDistinct(rapid.SampledFrom(files), func(s string) string { return s }).Draw(rt, label)
		}
		for turn := range turns {
			history[turn] = map[string]write{}
			var reads, puts []providers.Block
			for i, f := range distinct(fmt.Sprintf("agent writes %d", turn)) {
				before := read(f)
				after := change(fmt.Sprintf("agent %d", turn), f, before, 2)
				history[turn][f] = write{before, after}
				if before != nil {
					reads = append(reads, fake.Use(fmt.Sprintf("r%d", i), "read", map[string]any{"path": f}))
				}
				puts = append(puts, fake.Use(fmt.Sprintf("w%d", i), "write", map[string]any{"path": f, "content": strings.Join(after, "")}))
			}
			m.Responses = nil
			if len(reads) > 0 {
				m.Responses = append(m.Responses, fake.Call(reads...))
			}
			if len(puts) > 0 {
				m.Responses = append(m.Responses, fake.Call(puts...))
			}
			m.Responses = append(m.Responses, fake.Say("done"))
			if _, err := c.Prompt(context.Background(), textPrompt("edit"), func(acp.SessionUpdate) {}); err != nil {
				rt.Fatal(err)
			}
			for f, w := range history[turn] {
				if got := read(f); !same(got, w.after) {
					rt.Fatalf("the agent's write of %s did not land: %q", f, got)
				}
			}
			for _, f := range distinct(fmt.Sprintf("user edits %d", turn)) {
				if lines := read(f); lines != nil {
					_ = os.WriteFile(path(f), []byte(strings.Join(change(fmt.Sprintf("user %d", turn), f, lines, 1), "")), 0o644)
				}
			}
		}
		k := rapid.IntRange(0, turns-1).Draw(rt, "restore turn")
		around := rapid.IntRange(0, 3).Draw(rt, "around later changes (0: no)") > 0
		cur := map[string][]string{}
		for _, f := range files {
			cur[f] = read(f)
		}
		if _, err := c.Restore(context.Background(), k, around); err != nil {
			rt.Fatal(err)
		}
		for _, f := range files {
			var first, last *write
			for t := k; t < turns; t++ {
				if w, ok := history[t][f]; ok {
					if first == nil {
						first = &w
					}
					last = &w
				}
			}
			got, want := read(f), cur[f]
			switch {
			case last == nil:
			case same(cur[f], last.after):
				exact++
				want = first.before
			case !around:
				keptChanged++
			case first.before != nil:
				if mg, ok := merge3(last.after, cur[f], first.before); ok {
					merged++
					want = mg
				} else {
					overlap++
				}
			}
			if !same(got, want) {
				rt.Fatalf("after restoring turn %d (around later changes: %v), %s is\n%q\nwant\n%q", k, around, f, got, want)
			}
			if last != nil && around {
				userKept(rt, f, last.after, cur[f], got)
			}
		}
		cps := c.Checkpoints()
		if len(cps) > 0 && cps[len(cps)-1].Turn == turns {
			if _, err := c.Restore(context.Background(), turns, false); err != nil {
				rt.Fatal(err)
			}
			for _, f := range files {
				if got := read(f); !same(got, cur[f]) {
					rt.Fatalf("undoing the restore left %s as %q, want %q", f, got, cur[f])
				}
			}
		}
	})
	t.Logf("files restored exactly %d, merged around later changes %d, kept as overlapping %d, kept as changed without the flag %d", exact, merged, overlap, keptChanged)
	for name, n := range map[string]int{"restored exactly": exact, "merged": merged, "kept as overlapping": overlap, "kept as changed": keptChanged} {
		if n < 10 {
			t.Errorf("files %s: %d, fewer than 10: the law is not exercised there", name, n)
		}
	}
}

// same is whether two files, as lines (nil: no file), are the same.
func same(a, b []string) bool { return (a == nil) == (b == nil) && slices.Equal(a, b) }

// userKept checks the law's own words on a file restored around later
// changes: each line the user wrote after the agent left left is in got,
// in the user's order, and no line the user removed is.
func userKept(rt *rapid.T, f string, left, cur, got []string) {
	in := func(ls []string) map[string]bool {
		set := map[string]bool{}
		for _, l := range ls {
			set[l] = true
		}
		return set
	}
	inLeft, inCur, inGot := in(left), in(cur), in(got)
	var wrote []string
	for _, l := range cur {
		if !inLeft[l] {
			wrote = append(wrote, l)
		}
	}
	var order []string
	for _, l := range got {
		if !inLeft[l] && inCur[l] {
			order = append(order, l)
		}
	}
	if !slices.Equal(order, wrote) {
		rt.Fatalf("%s: the lines the user wrote after the agent are %q, the restore left %q", f, wrote, order)
	}
	for _, l := range left {
		if !inCur[l] && inGot[l] {
			rt.Fatalf("%s: the user removed %q after the agent, and the restore put it back", f, l)
		}
	}
}

// merge3 is the restore around later changes worked out on distinct lines,
// independently of the diff: the lines all three versions hold cut each of
// them into the same gaps. A gap only the user changed takes the user's
// lines, one only the agent changed the lines from before the agent; a gap
// both changed — their changes touch — is a conflict.
func merge3(left, cur, before []string) ([]string, bool) {
	count := map[string]int{}
	for _, v := range [][]string{left, cur, before} {
		for _, l := range v {
			count[l]++
		}
	}
	cut := func(ls []string) [][]string {
		gaps := [][]string{nil}
		for _, l := range ls {
			if count[l] == 3 {
				gaps = append(gaps, nil)
				continue
			}
			gaps[len(gaps)-1] = append(gaps[len(gaps)-1], l)
		}
		return gaps
	}
	gl, gc, gb := cut(left), cut(cur), cut(before)
	var stable []string
	for _, l := range left {
		if count[l] == 3 {
			stable = append(stable, l)
		}
	}
	var out []string
	for i := range gl {
		switch {
		case slices.Equal(gc[i], gl[i]):
			out = append(out, gb[i]...)
		case slices.Equal(gb[i], gl[i]):
			out = append(out, gc[i]...)
		default:
			return nil, false
		}
		if i < len(stable) {
			out = append(out, stable[i])
		}
	}
	return out, true
}

// Through _tandem/restore with aroundLaterChanges: of three files an agent
// turn changed, one the user left alone is restored exactly, one the user
// changed two lines away from the agent's change is restored around it, and
// one the user changed next to the agent's line is kept and named with
// where; the reply ends with how to undo the restore, which then works.
func TestRestoreAroundLaterChangesThroughTheExtension(t *testing.T) {
	m := &fake.Model{}
	svc, ws := testService(t, m, nil)
	const before = "one\ntwo\nthree\nfour\nfive\n"
	var reads, writes []providers.Block
	for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte(before), 0o644); err != nil {
			t.Fatal(err)
		}
		reads = append(reads, fake.Use("r"+f, "read", map[string]any{"path": f}))
		writes = append(writes, fake.Use("w"+f, "write", map[string]any{"path": f, "content": "one\nTWO\nthree\nfour\nfive\n"}))
	}
	m.Responses = []func(providers.Request) providers.Response{fake.Call(reads...), fake.Call(writes...), fake.Say("done")}
	s, err := svc.New(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Prompt(context.Background(), s.SessionId, textPrompt("capitalize two"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	user := map[string]string{"a.txt": "one\nTWO\nthree\nfour\n5\n", "b.txt": "one\nTWO\n3\nfour\nfive\n"}
	for f, text := range user {
		if err := os.WriteFile(filepath.Join(ws, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	restore := func(turn int, around bool) RestoreReply {
		t.Helper()
		params, _ := json.Marshal(map[string]any{"sessionId": s.SessionId, "turn": turn, "aroundLaterChanges": around})
		out, err := svc.Extension(context.Background(), MethodRestore, params)
		if err != nil {
			t.Fatal(err)
		}
		return out.(RestoreReply)
	}
	r := restore(0, true)
	want := "Restored c.txt.\n" +
		"Restored around your later changes, which stay: a.txt.\n" +
		"Kept as they are: b.txt (your later changes overlap the agent's at lines 2–3).\n" +
		"Undo by hand what is left of the agent's changes in the files kept.\n" +
		"Restore turn 1 to undo this restore.\n"
	if r.Text != want || r.IsError || !slices.Equal(r.Files, []string{filepath.Join(ws, "a.txt"), filepath.Join(ws, "c.txt")}) {
		t.Fatalf("reply %+v, want text\n%s", r, want)
	}
	for f, text := range map[string]string{"a.txt": "one\ntwo\nthree\nfour\n5\n", "b.txt": user["b.txt"], "c.txt": before} {
		if got, _ := os.ReadFile(filepath.Join(ws, f)); string(got) != text {
			t.Fatalf("%s after the restore: %q, want %q", f, got, text)
		}
	}
	if r := restore(1, false); r.IsError {
		t.Fatalf("undoing the restore: %+v", r)
	}
	for f, text := range map[string]string{"a.txt": user["a.txt"], "b.txt": user["b.txt"], "c.txt": "one\nTWO\nthree\nfour\nfive\n"} {
		if got, _ := os.ReadFile(filepath.Join(ws, f)); string(got) != text {
			t.Fatalf("%s after undoing the restore: %q, want %q", f, got, text)
		}
	}
}

// A file the agent deleted comes back when its turn is restored.
func TestRestoreBringsBackADeletedFile(t *testing.T) {
	ws := t.TempDir()
	file := filepath.Join(ws, "old.go")
	if err := os.WriteFile(file, []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("r1", "read", map[string]any{"path": "old.go"})),
		fake.Call(fake.Use("d1", "edit", map[string]any{"files": []any{map[string]any{"path": "old.go", "deleteFile": true}}})),
		fake.Say("Deleted."),
	}
	c := NewChat(Options{Session: openSession(ws), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"}})
	defer c.Close()
	if _, err := c.Prompt(context.Background(), textPrompt("delete old.go"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); err == nil {
		t.Fatalf("the file was not deleted: %s", lastResult(m.Requests[2], "d1"))
	}
	if res, err := c.Restore(context.Background(), 0, false); err != nil || res.IsError {
		t.Fatalf("restore: %+v %v", res, err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "package a\n" {
		t.Fatalf("after the restore: %q %v", b, err)
	}
}
