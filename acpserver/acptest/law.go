package acptest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// Law checks ACP's cancellation law: after session/cancel the prompt
// answers cancelled without the client settling its pending permission
// request (the agent withdraws it), the running bash step's processes end,
// and no tool starts afterwards. Its Client never answers a request: only
// the agent's withdrawal ends one.
type Law struct {
	Client           *Client
	asked, withdrawn chan struct{}
}

// NewLaw makes the client the law is checked with.
func NewLaw() *Law {
	l := &Law{asked: make(chan struct{}), withdrawn: make(chan struct{})}
	l.Client = &Client{Answer: func(ctx context.Context, _ acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		close(l.asked)
		<-ctx.Done()
		close(l.withdrawn)
		return Cancelled()
	}}
	return l
}

// Check prompts session id (on the test model, its HOME holding the secret
// ~/.ssh/x) to start `sleep SLEEP` in the background, read the secret, and
// then write later.txt in ws; it cancels while the question is pending and
// checks the law.
func (l *Law) Check(t testing.TB, conn *acp.ClientSideConnection, id acp.SessionId, ws, sleep string) {
	t.Helper()
	type result struct {
		stop acp.StopReason
		err  error
	}
	done := make(chan result, 1)
	go func() {
		r, err := conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock(
			"call bash {\"command\":\"sleep " + sleep + " & cat ~/.ssh/x; wait\"}\ncall write {\"path\":\"later.txt\",\"content\":\"x\"}")}})
		done <- result{r.StopReason, err}
	}()
	<-l.asked
	for end := time.Now().Add(10 * time.Second); !Running("sleep", sleep); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the background sleep never started")
		}
	}
	if err := conn.Cancel(context.Background(), acp.CancelNotification{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err != nil || r.stop != acp.StopReasonCancelled {
			t.Fatalf("prompt after cancel: %q, %v", r.stop, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the prompt did not end after session/cancel")
	}
	select {
	case <-l.withdrawn:
	case <-time.After(10 * time.Second):
		t.Fatal("the permission request was not withdrawn")
	}
	if Running("sleep", sleep) {
		t.Error("the bash step's sleep outlived the cancelled turn")
	}
	if got := l.Client.Statuses("call-1-2"); len(got) != 2 || got[1] != acp.ToolCallStatusFailed {
		t.Errorf("the call after the cancel: statuses %v, want pending then failed", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "later.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a tool ran after the cancel")
	}
}

// SecretHome is a HOME holding the secret ~/.ssh/x.
func SecretHome(t testing.TB) string {
	h := t.TempDir()
	if err := os.MkdirAll(filepath.Join(h, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h, ".ssh", "x"), []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return h
}

// Eventually waits up to 10 s for cond.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
