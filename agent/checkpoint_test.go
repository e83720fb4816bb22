package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
		if _, err := c.Restore(context.Background(), k); err != nil {
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
			if _, err := c.Restore(context.Background(), last.Turn); err != nil {
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
