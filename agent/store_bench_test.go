package agent

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tandemdev/tandem/agent/providers"
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
