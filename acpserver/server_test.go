package acpserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/acpserver/acptest"
	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/config"
)

// puppet reaches the test model for any model name.
func puppet(_ *config.Settings, model string) (providers.Provider, agent.Endpoint, error) {
	if model == "" {
		model = "test/puppet"
	}
	name, m, _ := strings.Cut(model, "/")
	return acptest.Puppet{}, agent.Endpoint{Provider: name, Model: m}, nil
}

// peer is a client connected to Serve over pipes.
type peer struct {
	conn   *acp.ClientSideConnection
	client *acptest.Client
	in     io.Closer     // the server's input: closing it is the client leaving
	served chan struct{} // closed when Serve has returned
}

func serve(t *testing.T, connect agent.Connector, client *acptest.Client) *peer {
	t.Helper()
	return serveWith(t, Options{Version: "test", Connect: connect}, client)
}

func serveWith(t *testing.T, o Options, client *acptest.Client) *peer {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	p := &peer{client: client, in: fromClient, served: make(chan struct{})}
	go func() {
		defer close(p.served)
		Serve(context.Background(), toServer, fromServer, o)
	}()
	p.conn = acp.NewClientSideConnection(client, fromClient, toClient)
	p.conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		_ = fromClient.Close()
		<-p.served
		_ = fromServer.Close()
	})
	return p
}

// open initializes the connection and opens a session on ws.
func (p *peer) open(t *testing.T, ws string) acp.NewSessionResponse {
	t.Helper()
	return p.openFS(t, ws, acp.FileSystemCapabilities{})
}

// openFS is open for a client that offers fs.
func (p *peer) openFS(t *testing.T, ws string, fs acp.FileSystemCapabilities) acp.NewSessionResponse {
	t.Helper()
	ctx := context.Background()
	req := acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: acp.ClientCapabilities{Fs: fs}}
	if _, err := p.conn.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	s, err := p.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: ws, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (p *peer) prompt(id acp.SessionId, text string) (acp.StopReason, error) {
	r, err := p.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	return r.StopReason, err
}

func TestPromptRunsAToolAndAnswersInOrder(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := serve(t, puppet, &acptest.Client{})
	s := p.open(t, ws)
	stop, err := p.prompt(s.SessionId, `call read {"path":"a.txt"}`)
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	var kinds []string
	for _, u := range p.client.Updates() {
		switch {
		case u.ToolCall != nil:
			kinds = append(kinds, "tool_call "+string(u.ToolCall.Status))
		case u.ToolCallUpdate != nil:
			kinds = append(kinds, "update "+string(*u.ToolCallUpdate.Status))
		case u.UsageUpdate != nil:
			kinds = append(kinds, "usage")
		case u.AgentMessageChunk != nil:
			kinds = append(kinds, "text")
		}
	}
	want := "tool_call pending|usage|update in_progress|update completed|text|usage"
	if got := strings.Join(kinds, "|"); got != want {
		t.Errorf("updates:\n got %s\nwant %s", got, want)
	}
	if text := p.client.Text(); !strings.Contains(text, "[call-1-1]") || !strings.Contains(text, "alpha") {
		t.Errorf("the model did not get the read's result: %q", text)
	}
}

// A gated step is asked as session/request_permission in the model's tool
// call (its id, so the client asks in that call's card) with the question's
// text, its steps and the four options; a rejection reaches the model as
// the gate's refusal.
func TestGatedStepAsksAndARejectionReachesTheModel(t *testing.T) {
	t.Setenv("HOME", acptest.SecretHome(t))
	client := &acptest.Client{Answer: acptest.Select("reject_once")}
	p := serve(t, puppet, client)
	s := p.open(t, t.TempDir())
	stop, err := p.prompt(s.SessionId, `call bash {"command":"cat ~/.ssh/x"}`)
	if err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	asked := client.Asked()
	if len(asked) != 1 {
		t.Fatalf("%d permission requests, want 1", len(asked))
	}
	q := asked[0]
	if q.SessionId != s.SessionId || q.ToolCall.Title == nil || !strings.Contains(*q.ToolCall.Title, "cat ") ||
		q.ToolCall.Kind == nil || *q.ToolCall.Kind != acp.ToolKindExecute || q.ToolCall.ToolCallId != "call-1-1" {
		t.Errorf("request: %+v", q)
	}
	raw, _ := q.ToolCall.RawInput.(map[string]any)
	if steps, _ := raw["steps"].([]any); len(steps) != 1 {
		t.Errorf("rawInput: %v", q.ToolCall.RawInput)
	}
	var kinds []string
	for _, o := range q.Options {
		kinds = append(kinds, string(o.Kind))
	}
	if got := strings.Join(kinds, " "); got != "allow_once allow_always reject_once reject_always" {
		t.Errorf("options: %s", got)
	}
	if text := client.Text(); !strings.Contains(text, "denied") || strings.Contains(text, "secret\n") {
		t.Errorf("the model's answer does not show the denial: %q", text)
	}
}

// allow_always is the session's: the same step runs unasked afterwards.
func TestAllowAlwaysHoldsForTheSession(t *testing.T) {
	t.Setenv("HOME", acptest.SecretHome(t))
	client := &acptest.Client{Answer: acptest.Select("allow_always")}
	p := serve(t, puppet, client)
	s := p.open(t, t.TempDir())
	for range 2 {
		if _, err := p.prompt(s.SessionId, `call bash {"command":"cat ~/.ssh/x"}`); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(client.Asked()); n != 1 {
		t.Errorf("asked %d times, want once", n)
	}
	if text := client.Text(); strings.Count(text, "secret") != 2 {
		t.Errorf("the step did not run twice: %q", text)
	}
}

// The cancellation law: after session/cancel the prompt answers cancelled
// without waiting for the client to settle its pending permission request
// (tandem withdraws it), the running bash step's processes end, and no
// tool starts afterwards.
func TestCancelSettlesEverything(t *testing.T) {
	t.Setenv("HOME", acptest.SecretHome(t))
	ws := t.TempDir()
	law := acptest.NewLaw()
	p := serve(t, puppet, law.Client)
	s := p.open(t, ws)
	law.Check(t, p.conn, s.SessionId, ws, "31.4159")
}

// One prompt at a time: a second one is refused and the first goes on
// until it is cancelled.
func TestASecondPromptIsRefused(t *testing.T) {
	client := &acptest.Client{}
	p := serve(t, puppet, client)
	s := p.open(t, t.TempDir())
	done := make(chan acp.StopReason, 1)
	go func() {
		stop, _ := p.prompt(s.SessionId, "wait")
		done <- stop
	}()
	acptest.Eventually(t, "the first turn", func() bool { return client.Text() == "waiting" })
	if _, err := p.prompt(s.SessionId, "hello"); err == nil || !strings.Contains(err.Error(), "a turn of this session is running") {
		t.Fatalf("second prompt: %v", err)
	}
	select {
	case stop := <-done:
		t.Fatalf("the first prompt ended with %q when the second came", stop)
	case <-time.After(100 * time.Millisecond):
	}
	_ = p.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: s.SessionId})
	if stop := <-done; stop != acp.StopReasonCancelled {
		t.Fatalf("first prompt: %q", stop)
	}
	if stop, err := p.prompt(s.SessionId, "hello"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("a prompt after the turn: %q, %v", stop, err)
	}
}

// A model that cannot be reached does not fail session/new; each prompt
// answers the reason, which says what to set.
func TestNoModelIsThePromptsError(t *testing.T) {
	unset := func(*config.Settings, string) (providers.Provider, agent.Endpoint, error) {
		return nil, agent.Endpoint{}, errors.New("no model is set: set agent.model")
	}
	p := serve(t, unset, &acptest.Client{})
	s := p.open(t, t.TempDir())
	if got := s.ConfigOptions[0].Select.CurrentValue; got != "none" {
		t.Errorf("the model option with no model: %q", got)
	}
	_, err := p.prompt(s.SessionId, "hello")
	var re *acp.RequestError
	if !errors.As(err, &re) || re.Code != -32053 || re.Message != "no model is set: set agent.model" {
		t.Fatalf("prompt: %v", err)
	}
}

// The model option switches the model the next prompts use; a model that
// cannot be reached is refused and the one in use stays.
func TestSetModel(t *testing.T) {
	var asked []string
	provider := func(st *config.Settings, model string) (providers.Provider, agent.Endpoint, error) {
		asked = append(asked, model)
		if model == "nowhere/x" {
			return nil, agent.Endpoint{}, errors.New(`there is no provider "nowhere"`)
		}
		return puppet(st, model)
	}
	p := serve(t, provider, &acptest.Client{})
	s := p.open(t, t.TempDir())
	set := func(v string) (acp.SetSessionConfigOptionResponse, error) {
		return p.conn.SetSessionConfigOption(context.Background(), acp.SetSessionConfigOptionRequest{ValueId: &acp.SetSessionConfigOptionValueId{
			SessionId: s.SessionId, ConfigId: "model", Value: acp.SessionConfigValueId(v)}})
	}
	r, err := set("test/other")
	if err != nil || r.ConfigOptions[0].Select.CurrentValue != "test/other" {
		t.Fatalf("set model: %+v, %v", r, err)
	}
	var re *acp.RequestError
	if _, err := set("nowhere/x"); !errors.As(err, &re) || re.Message != `there is no provider "nowhere"` {
		t.Fatalf("set an unreachable model: %v", err)
	}
	if stop, err := p.prompt(s.SessionId, "hello"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt after a refused model: %q, %v", stop, err)
	}
	if got := strings.Join(asked, ","); got != ",test/other,nowhere/x" {
		t.Errorf("models built: %s", got)
	}
}

// session/close stops the session's turn and ends its processes; the
// session is gone afterwards.
func TestCloseSessionEndsItsTurn(t *testing.T) {
	client := &acptest.Client{}
	p := serve(t, puppet, client)
	s := p.open(t, t.TempDir())
	done := make(chan acp.StopReason, 1)
	go func() {
		stop, _ := p.prompt(s.SessionId, `call bash {"command":"sleep 16.1803"}`)
		done <- stop
	}()
	acptest.Eventually(t, "the sleep", func() bool { return acptest.Running("sleep", "16.1803") })
	if _, err := p.conn.CloseSession(context.Background(), acp.CloseSessionRequest{SessionId: s.SessionId}); err != nil {
		t.Fatal(err)
	}
	if acptest.Running("sleep", "16.1803") {
		t.Error("the sleep outlived session/close")
	}
	if stop := <-done; stop != acp.StopReasonCancelled {
		t.Errorf("the closed session's prompt: %q", stop)
	}
	if _, err := p.prompt(s.SessionId, "hello"); err == nil || !strings.Contains(err.Error(), "there is no open session") {
		t.Errorf("a prompt to the closed session: %v", err)
	}
}

// In plan mode only reading runs: a step that writes is refused without
// asking the client.
func TestPlanMode(t *testing.T) {
	ws := t.TempDir()
	client := &acptest.Client{Answer: acptest.Select("allow_once")}
	p := serve(t, puppet, client)
	s := p.open(t, ws)
	r, err := p.conn.SetSessionConfigOption(context.Background(), acp.SetSessionConfigOptionRequest{Boolean: &acp.SetSessionConfigOptionBoolean{
		SessionId: s.SessionId, ConfigId: "plan_mode", Type: "boolean", Value: true}})
	if err != nil || !r.ConfigOptions[1].Boolean.CurrentValue {
		t.Fatalf("set plan_mode: %+v, %v", r, err)
	}
	if _, err := p.prompt(s.SessionId, `call bash {"command":"touch made"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "made")); !errors.Is(err, os.ErrNotExist) || len(client.Asked()) != 0 {
		t.Errorf("plan mode let a write run or asked: %v, %d questions", err, len(client.Asked()))
	}
}

// With a store, a closed chat is listed and loads again, replayed to the
// client before session/load answers, and goes on.
func TestListAndLoad(t *testing.T) {
	store, err := agent.OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	client := &acptest.Client{}
	p := serveWith(t, Options{Connect: puppet, Store: store}, client)
	s := p.open(t, ws)
	if _, err := p.prompt(s.SessionId, "first words"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.conn.CloseSession(context.Background(), acp.CloseSessionRequest{SessionId: s.SessionId}); err != nil {
		t.Fatal(err)
	}
	list, err := p.conn.ListSessions(context.Background(), acp.ListSessionsRequest{})
	if err != nil || len(list.Sessions) != 1 || list.Sessions[0].SessionId != s.SessionId {
		t.Fatalf("session/list: %+v, %v", list, err)
	}
	before := len(client.Updates())
	if _, err := p.conn.LoadSession(context.Background(), acp.LoadSessionRequest{SessionId: s.SessionId, Cwd: ws, McpServers: []acp.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	replayed := client.Updates()[before:]
	if len(replayed) == 0 || replayed[0].UserMessageChunk == nil {
		t.Fatalf("replay: %+v", replayed)
	}
	if stop, err := p.prompt(s.SessionId, "more"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("a prompt after load: %q, %v", stop, err)
	}
}

// The client leaving ends Serve, and with it every session's processes.
func TestClientLeavingEndsEverything(t *testing.T) {
	client := &acptest.Client{}
	p := serve(t, puppet, client)
	s := p.open(t, t.TempDir())
	go func() { _, _ = p.prompt(s.SessionId, `call bash {"command":"sleep 27.1828"}`) }()
	acptest.Eventually(t, "the sleep", func() bool { return acptest.Running("sleep", "27.1828") })
	_ = p.in.Close()
	select {
	case <-p.served:
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its input closed")
	}
	if acptest.Running("sleep", "27.1828") {
		t.Error("the session's sleep outlived the connection")
	}
}

// tandem's extension methods are served on ACP's own transport as on the
// editor's connection: a turn's checkpoint is listed and restored, and an
// unknown `_` method is method-not-found.
func TestCheckpointsAndRestoreAsExtensions(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ws := t.TempDir()
	p := serve(t, puppet, &acptest.Client{})
	s := p.open(t, ws)
	if stop, err := p.prompt(s.SessionId, `call write {"path":"b.txt","content":"made\n"}`); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %q %v", stop, err)
	}
	raw, err := p.conn.CallExtension(context.Background(), agent.MethodCheckpoints, map[string]any{"sessionId": s.SessionId})
	if err != nil || !strings.Contains(string(raw), `"turn":0`) {
		t.Fatalf("checkpoints: %s %v", raw, err)
	}
	raw, err = p.conn.CallExtension(context.Background(), agent.MethodRestore, map[string]any{"sessionId": s.SessionId, "turn": 0})
	if err != nil || !strings.Contains(string(raw), "Restored b.txt") {
		t.Fatalf("restore: %s %v", raw, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); err == nil {
		t.Fatal("the restored file is still there")
	}
	var re *acp.RequestError
	if _, err := p.conn.CallExtension(context.Background(), "_tandem/nope", map[string]any{}); !errors.As(err, &re) || re.Code != -32601 {
		t.Fatalf("an unknown extension: %v", err)
	}
}
