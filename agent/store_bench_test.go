package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/tools"
)

// storeWith writes chats of turns turns each, every turn a prompt, a tool
// call with a 2 KiB result and an answer.
func storeWith(b *testing.B, chats, turns int) (*Store, string) {
	b.Helper()
	s, err := OpenStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	result := strings.Repeat("12:\tsome line of a file the agent read\n", 2048/40)
	var id string
	for c := range chats {
		id = fmt.Sprintf("%016x", c+1)
		j, err := s.journal(ChatInfo{ID: id, Title: "chat", Model: "test/m", Created: time.Now()}, 0)
		if err != nil {
			b.Fatal(err)
		}
		for t := range turns {
			for _, m := range []providers.Message{
				{Role: providers.User, Blocks: []providers.Block{{Kind: providers.Text, Text: fmt.Sprintf("prompt %d", t)}}},
				{Role: providers.Assistant, Blocks: []providers.Block{{Kind: providers.ToolUse, ToolID: "t", ToolName: "read", Input: []byte(`{"path":"a.go"}`)}}},
				{Role: providers.User, Blocks: []providers.Block{{Kind: providers.ToolResult, ToolID: "t", Text: result}}},
				{Role: providers.Assistant, Blocks: []providers.Block{{Kind: providers.Text, Text: "done"}}},
			} {
				if err := j.write(record{Message: &m}, false); err != nil {
					b.Fatal(err)
				}
			}
		}
		_ = j.close()
	}
	return s, id
}

// Loading a chat of 500 turns (the goal: under a second).
func BenchmarkLoad500Turns(b *testing.B) {
	s, id := storeWith(b, 1, 500)
	for b.Loop() {
		if _, msgs, err := s.Load(id); err != nil || len(msgs) != 2000 {
			b.Fatal(err)
		}
	}
}

// Listing 1,000 chats (the goal: under 200 ms).
func BenchmarkList1000Chats(b *testing.B) {
	s, _ := storeWith(b, 1000, 1)
	for b.Loop() {
		if list, err := s.List(); err != nil || len(list) != 1000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkEditTurnStored is a turn of 10 edits of a 300 KB file in a
// stored chat, whose before-bytes are synced to the chat's file before each
// edit, against the same turn in a chat kept in memory: the price of a turn
// that survives kill -9, as a ratio (x-unstored) and in time added per edit
// (ms-per-edit; goal under 20 ms, against a model call's seconds).
func BenchmarkEditTurnStored(b *testing.B) {
	turn := func(store *Store) time.Duration {
		ws := b.TempDir()
		var text strings.Builder
		for i := 1; i <= 20000; i++ {
			fmt.Fprintf(&text, "line %d of a.txt\n", i)
		}
		if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte(text.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		m := &fake.Model{}
		m.Responses = append(m.Responses, fake.Call(fake.Use("r", "read", map[string]any{"path": "a.txt", "lines": "1-20"})))
		for k := 1; k <= 10; k++ {
			m.Responses = append(m.Responses, func(req providers.Request) providers.Response {
				return fake.Call(fake.Use(fmt.Sprint("e", k), "edit", map[string]any{"files": []any{map[string]any{"path": "a.txt", "tag": tagOf(m.Requests[1], "r"),
					"ops": []any{map[string]any{"replace": fmt.Sprintf("%d:line %d of a.txt", k, k), "text": "changed"}}}}}))(req)
			})
		}
		m.Responses = append(m.Responses, fake.Say("done"))
		c := NewChat(Options{Session: tools.Open(tools.Options{Roots: []string{ws}}), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"}, Store: store})
		defer c.Close()
		start := time.Now()
		if _, err := c.Prompt(context.Background(), textPrompt("edit"), func(acp.SessionUpdate) {}); err != nil {
			b.Fatal(err)
		}
		if strings.Contains(fmt.Sprint(c.Messages()), "Not run") {
			b.Fatal("an edit was refused")
		}
		return time.Since(start)
	}
	var stored, memory time.Duration
	for b.Loop() {
		s, err := OpenStore(filepath.Join(b.TempDir(), "chats"))
		if err != nil {
			b.Fatal(err)
		}
		stored += turn(s)
		memory += turn(nil)
	}
	b.ReportMetric(float64(stored)/float64(memory), "x-unstored")
	b.ReportMetric(float64(stored-memory)/float64(b.N)/10/1e6, "ms-per-edit")
}
