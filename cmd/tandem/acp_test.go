package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/acpserver/acptest"
	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/scripted"
	"github.com/tandemdev/tandem/config"
)

// puppetTandem is the name under which this test binary runs as tandem
// with acptest.Puppet for its model: a link to the test binary, so the
// hook needs no environment variable a real tandem would read.
const puppetTandem = "tandem-with-puppet-model"

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == puppetTandem {
		connectModel = func(*config.Settings, string) (providers.Provider, agent.Endpoint, error) {
			return acptest.Puppet{}, agent.Endpoint{Provider: "test", Model: "puppet"}, nil
		}
		os.Exit(run(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// puppetBinary links this test binary as puppetTandem.
func puppetBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), puppetTandem)
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// acpProcess is `tandem acp` running under a client.
type acpProcess struct {
	conn   *acp.ClientSideConnection
	client *acptest.Client
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *bytes.Buffer
	state  string // XDG_STATE_HOME
}

// startACP starts `bin acp` in dir with private XDG directories and env,
// and connects client to it.
func startACP(t *testing.T, bin, dir string, client *acptest.Client, env ...string) *acpProcess {
	t.Helper()
	xdg := t.TempDir()
	p := &acpProcess{client: client, stderr: &bytes.Buffer{}, state: filepath.Join(xdg, "state")}
	p.cmd = exec.Command(bin, "acp")
	p.cmd.Dir = dir
	p.cmd.Env = append(append(os.Environ(), "XDG_STATE_HOME="+p.state, "XDG_CONFIG_HOME="+filepath.Join(xdg, "config")), env...)
	p.cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.stdin.Close()
		_ = p.cmd.Wait()
	})
	p.conn = acp.NewClientSideConnection(client, p.stdin, stdout)
	p.conn.SetLogger(slog.New(slog.DiscardHandler))
	init := acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}
	if client.Files != nil { // the client serves its editor's files
		init.ClientCapabilities.Fs = acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}
	}
	if _, err := p.conn.Initialize(context.Background(), init); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *acpProcess) open(t *testing.T, cwd string) acp.SessionId {
	t.Helper()
	s, err := p.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return s.SessionId
}

func (p *acpProcess) prompt(id acp.SessionId, text string) (acp.StopReason, error) {
	r, err := p.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	return r.StopReason, err
}

// The real binary with no model set opens sessions, and its prompts answer
// what to set; it logs to its log file, and stdout carries only protocol.
func TestACPWithoutAModelSaysWhatToSet(t *testing.T) {
	p := startACP(t, builtTandem(t), t.TempDir(), &acptest.Client{})
	id := p.open(t, t.TempDir())
	_, err := p.prompt(id, "hello")
	var re *acp.RequestError
	// The next step is one an ACP client's user can take; --model is
	// tandem chat's alone.
	if !errors.As(err, &re) || !strings.HasPrefix(re.Message, "no model is set: set agent.model in ") ||
		!strings.HasSuffix(re.Message, "then send the prompt again") || strings.Contains(re.Message, "--model") {
		t.Fatalf("prompt without a model: %v", err)
	}
	_ = p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("tandem acp after stdin closed: %v\n%s", err, p.stderr)
	}
	log, err := os.ReadFile(filepath.Join(p.state, "tandem", "acp.log"))
	if err != nil || !strings.Contains(string(log), "session opened") {
		t.Errorf("log: %v\n%s", err, log)
	}
}

// Through the process: a tool call and its answer, a gated step asked and
// rejected, the rejection in the model's answer.
func TestACPToolsAndQuestions(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	client := &acptest.Client{Answer: acptest.Select("reject_once")}
	p := startACP(t, puppetBinary(t), ws, client, "HOME="+acptest.SecretHome(t))
	id := p.open(t, ws)
	if stop, err := p.prompt(id, `call read {"path":"a.txt"}`); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("read: %q, %v", stop, err)
	}
	if got := client.Statuses("call-1-1"); len(got) != 3 || got[2] != acp.ToolCallStatusCompleted {
		t.Errorf("read statuses: %v", got)
	}
	if !strings.Contains(client.Text(), "alpha") {
		t.Errorf("answer: %q", client.Text())
	}
	if stop, err := p.prompt(id, `call bash {"command":"cat ~/.ssh/x"}`); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("bash: %q, %v", stop, err)
	}
	if asked := client.Asked(); len(asked) != 1 || asked[0].SessionId != id || len(asked[0].Options) != 4 {
		t.Fatalf("permission requests: %+v", asked)
	}
	if text := client.Text(); !strings.Contains(text, "denied") || strings.Contains(text, "secret\n") {
		t.Errorf("answer after the rejection: %q", text)
	}
}

// The cancellation law, through the process: with a bash sleep running and
// a question pending that the client never answers, session/cancel ends
// the prompt as cancelled, withdraws the question, ends the sleep, and no
// tool starts after it.
func TestACPCancelLaw(t *testing.T) {
	ws := t.TempDir()
	law := acptest.NewLaw()
	p := startACP(t, puppetBinary(t), ws, law.Client, "HOME="+acptest.SecretHome(t))
	law.Check(t, p.conn, p.open(t, ws), ws, "31.4160")
}

// Standard input closing ends the process, and every process a session
// started ends with it.
func TestACPEndsWithItsInput(t *testing.T) {
	ws := t.TempDir()
	p := startACP(t, puppetBinary(t), ws, &acptest.Client{})
	id := p.open(t, ws)
	go func() { _, _ = p.prompt(id, `call bash {"command":"sleep 27.1829"}`) }()
	acptest.Eventually(t, "the sleep", func() bool { return acptest.Running("sleep", "27.1829") })
	exited := make(chan error, 1)
	_ = p.stdin.Close()
	go func() { exited <- p.cmd.Wait() }()
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v\n%s", err, p.stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("tandem acp did not exit after its input closed")
	}
	if acptest.Running("sleep", "27.1829") {
		t.Error("the session's sleep outlived tandem acp")
	}
}

// The real binary, its model a scripted Anthropic server named in the
// user's settings with its key in the environment: a read and an answer
// through the real provider client; the key reaches the server and
// appears in no file tandem wrote (its log, the stored chat).
func TestACPWithAScriptedProvider(t *testing.T) {
	srv, err := scripted.Start(scripted.Script{Format: scripted.Anthropic, Responses: []scripted.Response{
		{Parts: []scripted.Part{{Text: "Reading."}, {Tool: &scripted.ToolCall{ID: "toolu_1", Name: "read", Input: json.RawMessage(`{"path":"a.txt"}`)}}}},
		{Parts: []scripted.Part{{Text: "It says alpha."}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	const key = "sk-test-6a1f0c9e"
	xdg := t.TempDir()
	settings := `{"agent": {"model": "fake/m1", "providers": {"fake": {"api": "anthropic", "url": "` + srv.URL() + `", "apiKeyEnv": "FAKE_PROVIDER_KEY"}}}}`
	if err := os.MkdirAll(filepath.Join(xdg, "config", "tandem"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(xdg, "config", "tandem", "config.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	client := &acptest.Client{}
	p := startACP(t, builtTandem(t), ws, client, "FAKE_PROVIDER_KEY="+key,
		"XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"))
	id := p.open(t, ws)
	if stop, err := p.prompt(id, "What does a.txt say?"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %q, %v\n%s", stop, err, p.stderr)
	}
	if got := client.Statuses("toolu_1"); len(got) != 3 || got[2] != acp.ToolCallStatusCompleted {
		t.Errorf("read statuses: %v", got)
	}
	if text := client.Text(); text != "Reading.It says alpha." {
		t.Errorf("answer: %q", text)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Header.Get("x-api-key") != key || !strings.Contains(string(reqs[1].Body), "1:alpha") {
		t.Fatalf("the provider got %d requests; the second should carry the read", len(reqs))
	}
	_ = p.stdin.Close()
	_ = p.cmd.Wait()
	written := 0
	_ = filepath.WalkDir(filepath.Join(xdg, "state"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		written++
		if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(key)) {
			t.Errorf("the key is in %s", path)
		}
		return nil
	})
	if written < 2 {
		t.Errorf("tandem wrote %d files under its state directory; want its log and the chat", written)
	}
}

// The official ACP TypeScript SDK's client (which scripts/setup installs
// into .deps/acpclient, checking every message against the ACP schema)
// drives tandem acp through a read, a rejected question and a cancel.
// Its absence fails the test: `make test` runs the setup first.
func TestACPWithTheTypeScriptClient(t *testing.T) {
	sdk, err := filepath.Abs("../../.deps/acpclient/node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sdk); err != nil {
		t.Fatalf("the ACP TypeScript SDK is not installed (%v); run scripts/setup (make test runs it first)", err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	xdg := t.TempDir()
	cmd := exec.Command("node", "testdata/acp-client.mjs", sdk, puppetBinary(t), ws)
	cmd.Env = append(os.Environ(), "HOME="+acptest.SecretHome(t), "XDG_STATE_HOME="+filepath.Join(xdg, "state"), "XDG_CONFIG_HOME="+filepath.Join(xdg, "config"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the client failed: %v\n%s", err, stderr.String())
	}
	var got struct {
		ProtocolVersion int
		Agent, Model    string
		Stops, Kinds    []string
		Asked           []string
		Text            string
		Withdrawn       bool
		ExitCode        int
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.ProtocolVersion != 1 || got.Agent != "tandem" || got.Model != "test/puppet" {
		t.Errorf("initialize and session/new: %s", out)
	}
	if strings.Join(got.Stops, " ") != "end_turn end_turn cancelled" {
		t.Errorf("stop reasons: %v", got.Stops)
	}
	if strings.Join(got.Kinds, " ") != "agent_message_chunk available_commands_update tool_call tool_call_update usage_update" {
		t.Errorf("update kinds: %v", got.Kinds)
	}
	if len(got.Asked) != 2 || got.Asked[0] != "allow_once allow_always reject_once reject_always" {
		t.Errorf("permission requests: %v", got.Asked)
	}
	if !strings.Contains(got.Text, "1:alpha") || !strings.Contains(got.Text, "the user denied it") {
		t.Errorf("answers: %q", got.Text)
	}
	if !got.Withdrawn || got.ExitCode != 0 {
		t.Errorf("withdrawn %v, exit code %d", got.Withdrawn, got.ExitCode)
	}
	if acptest.Running("sleep", "31.4161") {
		t.Error("the cancelled turn's sleep outlived it")
	}
}
