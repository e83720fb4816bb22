package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/acpserver/acptest"
	"github.com/tandemdev/tandem/agent"
)

// waitText waits until a client was sent text.
func waitText(t *testing.T, c *acptest.Client, text string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(allText(c), text); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the client was never sent %q; it has %q", text, allText(c))
		}
	}
}

// allText is every text a client was sent: messages and thoughts.
func allText(c *acptest.Client) string {
	var b strings.Builder
	for _, u := range c.Updates() {
		switch {
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		case u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil:
			b.WriteString(u.AgentThoughtChunk.Content.Text.Text)
		case u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil:
			b.WriteString(u.UserMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// Two `tandem acp` processes on one chat, as avante runs them: the second
// loads the chat the first holds. A prompt there while the first runs a
// turn is refused with what to do; once that turn is stopped it runs, from
// the first's cut turn; the first's next turn goes on from the second's.
// The chat file holds one conversation the model accepts.
func TestACPTwoProcessesShareAChat(t *testing.T) {
	bin, ws, state := puppetBinary(t), t.TempDir(), t.TempDir()
	first, second := &acptest.Client{}, &acptest.Client{}
	a := startACP(t, bin, ws, first, "XDG_STATE_HOME="+state)
	b := startACP(t, bin, ws, second, "XDG_STATE_HOME="+state)
	id := a.open(t, ws)
	if _, err := a.prompt(id, "hello"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.conn.LoadSession(context.Background(), acp.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatalf("the second process cannot load the chat: %v", err)
	}

	stopped := make(chan acp.StopReason)
	go func() {
		stop, _ := a.prompt(id, "wait")
		stopped <- stop
	}()
	waitText(t, first, "waiting")
	_, err := b.prompt(id, "from the second editor")
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32053 || !strings.HasSuffix(re.Message, "wait for that turn to end (or stop it there), then send the prompt again") {
		t.Fatalf("a prompt while the other process runs a turn: %v", err)
	}
	if err := a.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	if stop := <-stopped; stop != acp.StopReasonCancelled {
		t.Fatalf("the stopped turn ended %q", stop)
	}
	if _, err := b.prompt(id, "from the second editor"); err != nil {
		t.Fatalf("the second process's prompt after the first's turn ended: %v", err)
	}
	waitText(t, second, "this chat went on in another tandem since it was opened here")
	if _, err := a.prompt(id, "back in the first"); err != nil {
		t.Fatal(err)
	}
	waitText(t, first, "from the second editor")

	store, err := agent.OpenStore(filepath.Join(state, "tandem", "chats"))
	if err != nil {
		t.Fatal(err)
	}
	_, msgs, err := store.Load(string(id))
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for i, m := range msgs {
		if i > 0 && m.Role == msgs[i-1].Role {
			t.Fatalf("messages %d and %d are both the %s's: %+v", i-1, i, m.Role, msgs)
		}
		said = append(said, string(m.Role)+":"+m.Blocks[len(m.Blocks)-1].Text)
	}
	want := []string{"user:hello", "assistant:you said: hello", "user:wait", "assistant:[cut: the user stopped the turn here]",
		"user:from the second editor", "assistant:you said: from the second editor", "user:back in the first", "assistant:you said: back in the first"}
	if strings.Join(said, "|") != strings.Join(want, "|") {
		t.Fatalf("the chat file holds\n%q\nwant\n%q", said, want)
	}
	if msgs[3].Blocks[0].Text != "waiting" {
		t.Fatalf("the cut turn did not keep what streamed: %+v", msgs[3])
	}
}
