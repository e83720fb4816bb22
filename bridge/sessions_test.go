package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// fakeTools records the session operations an owner's host is asked.
type fakeTools struct {
	mu  sync.Mutex
	ops []string
}

func (f *fakeTools) record(op string) {
	f.mu.Lock()
	f.ops = append(f.ops, op)
	f.mu.Unlock()
}

func (f *fakeTools) Open(context.Context) ([]byte, error) {
	f.record("open")
	return json.Marshal(OpenReply{Session: "s-1"})
}

func (f *fakeTools) Call(_ context.Context, session, tool string, args json.RawMessage) ([]byte, error) {
	f.record("tool " + session + " " + tool + " " + string(args))
	if session != "s-1" {
		return nil, errors.New("there is no open tools session")
	}
	return []byte(`{"content":[{"type":"text","text":"hi"}]}`), nil
}

func (f *fakeTools) Close(session string) error {
	f.record("close " + session)
	return nil
}

// The tools-session operations reach the owner's host with what the
// request named, nothing is asked for them, and a request the host cannot
// serve gets a typed status, never a crash.
func TestBridge_tools_session_operations(t *testing.T) {
	f := newFixture(t, Settings{})
	host := &fakeTools{}
	reg, err := f.b.AddOwner(Owner{Session: "terminal", Asker: nil, Tools: host})
	if err != nil {
		t.Fatal(err)
	}
	env, _ := EnvFromList(reg.Env())
	_, plain := f.owner(t, nil) // an owner without tools sessions

	send := func(env Env, req Request) (Header, string) {
		t.Helper()
		h, body, err := Send(context.Background(), env, req)
		if err != nil {
			t.Fatal(err)
		}
		return h, string(body)
	}
	h, body := send(env, Request{Op: OpOpen})
	if h.Status != StatusOK || body != `{"session":"s-1","tools":null}` {
		t.Fatalf("open: %+v %s", h, body)
	}
	h, body = send(env, Request{Op: OpTool, Session: "s-1", Tool: "read", Args: json.RawMessage(`{"path":"a"}`)})
	if h.Status != StatusOK || body != `{"content":[{"type":"text","text":"hi"}]}` {
		t.Fatalf("tool: %+v %s", h, body)
	}
	if h, _ = send(env, Request{Op: OpTool, Session: "other", Tool: "read"}); h.Status != StatusFailed || h.Reason == "" {
		t.Fatalf("an unknown session: %+v", h)
	}
	for _, c := range []struct {
		env Env
		req Request
	}{
		{env, Request{Op: OpTool, Tool: "read"}},
		{env, Request{Op: OpTool, Session: "s-1"}},
		{env, Request{Op: OpTool, Session: "s-1", Tool: "read", Args: json.RawMessage(`[1]`)}},
		{env, Request{Op: OpClose}},
		{plain, Request{Op: OpOpen}},
	} {
		if h, _ := send(c.env, c.req); h.Status != StatusInvalid || h.Reason == "" {
			t.Errorf("%+v: %+v, want invalid with a reason", c.req, h)
		}
	}
	if h, _ = send(env, Request{Op: OpClose, Session: "s-1"}); h.Status != StatusOK {
		t.Fatalf("close: %+v", h)
	}
	want := []string{"open", `tool s-1 read {"path":"a"}`, "tool other read ", "close s-1"}
	host.mu.Lock()
	defer host.mu.Unlock()
	if len(host.ops) != len(want) {
		t.Fatalf("host ops %q, want %q", host.ops, want)
	}
	for i := range want {
		if host.ops[i] != want[i] {
			t.Fatalf("host ops %q, want %q", host.ops, want)
		}
	}
}

// A discovery entry is private, holds no token, is found from the root and
// below it, and is gone once withdrawn or once its socket is dead.
func TestDiscovery_entries(t *testing.T) {
	f := newFixture(t, Settings{})
	reg, env := f.owner(t, nil)
	root := t.TempDir()
	withdraw, err := Announce(root, reg.Socket())
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := discoveryDir()
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the directory: %v %v", fi.Mode(), err)
	}
	entry := filepath.Join(dir, entryName(root))
	if fi, err := os.Stat(entry); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the entry: %v", err)
	}
	if data, _ := os.ReadFile(entry); strings.Contains(string(data), env.Token) || strings.Contains(string(data), "token") {
		t.Fatalf("the entry holds a token: %s", data)
	}
	for _, from := range []string{root, filepath.Join(root, "a", "b")} {
		found, got, err := Discover(from)
		if err != nil || found != (Env{Socket: env.Socket}) || got != root {
			t.Fatalf("from %s: %v %q %v", from, found, got, err)
		}
	}
	withdraw()
	if _, _, err := Discover(root); !errors.Is(err, ErrNoBridge) {
		t.Fatalf("after withdraw: %v", err)
	}
	// A killed tandem leaves its entry; the socket refuses, the entry goes.
	if _, err := Announce(root, reg.Socket()); err != nil {
		t.Fatal(err)
	}
	reg.Revoke() // the last owner: the socket is removed
	if _, _, err := Discover(root); !errors.Is(err, ErrNoBridge) {
		t.Fatalf("a dead socket: %v", err)
	}
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("the dead entry stays: %v", err)
	}
}
