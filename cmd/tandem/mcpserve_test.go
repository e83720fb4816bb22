package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tandemdev/tandem/internal/prereq"
	"go.lsp.dev/jsonrpc2"
)

// editor is a protocol-level editor driving a real `tandem lsp`: it holds
// documents open, records each applyEdit (applied, never written), and
// answers each question with answer after calling onAsk.
type editor struct {
	t    *testing.T
	cmd  *exec.Cmd
	conn jsonrpc2.Conn
	ctx  context.Context

	mu     sync.Mutex
	docs   map[string]*doc // by URI
	edits  []json.RawMessage
	asked  []json.RawMessage
	answer string
	onAsk  func()
}

func startEditor(t *testing.T, ws string, env []string) *editor {
	t.Helper()
	cmd := exec.Command(builtTandem(t), "lsp")
	cmd.Env = append(os.Environ(), env...)
	stdin, stdout := startPiped(t, cmd)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	e := &editor{t: t, cmd: cmd, ctx: ctx, answer: "reject_once", docs: map[string]*doc{}}
	e.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{stdout, stdin}))
	e.conn.Go(ctx, e.serve)
	e.call("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": "file://" + ws,
		"capabilities": map[string]any{"workspace": map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true}}, "experimental": map[string]any{"tandem": map[string]any{"approvals": true}}},
	}, nil)
	if err := e.conn.Notify(ctx, "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *editor) serve(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch req.Method() {
	case "workspace/applyEdit":
		e.edits = append(e.edits, req.Params())
		var p struct {
			Edit struct {
				DocumentChanges []struct {
					TextDocument struct{ URI string }
					Edits        []textEdit
				}
			}
		}
		if err := json.Unmarshal(req.Params(), &p); err != nil {
			return reply(ctx, nil, err)
		}
		for _, dc := range p.Edit.DocumentChanges {
			d := e.docs[dc.TextDocument.URI]
			if d == nil {
				return reply(ctx, map[string]any{"applied": false}, nil)
			}
			for i := len(dc.Edits) - 1; i >= 0; i-- {
				d.apply(dc.Edits[i])
			}
			d.version++
			_ = e.conn.Notify(ctx, "textDocument/didChange", map[string]any{
				"textDocument":   map[string]any{"uri": dc.TextDocument.URI, "version": d.version},
				"contentChanges": []map[string]any{{"text": d.text}},
			})
		}
		return reply(ctx, map[string]any{"applied": true}, nil)
	case "tandem/askApproval", "window/showMessageRequest":
		e.asked = append(e.asked, req.Params())
		if e.onAsk != nil {
			go e.onAsk()
		}
		if req.Method() == "window/showMessageRequest" {
			return reply(ctx, nil, nil)
		}
		return reply(ctx, map[string]any{"answer": e.answer}, nil)
	}
	return reply(ctx, nil, nil)
}

// open opens a document whose buffer holds text, unsaved.
func (e *editor) open(path, text string) {
	e.t.Helper()
	uri := "file://" + path
	e.mu.Lock()
	e.docs[uri] = &doc{version: 1, text: text}
	e.mu.Unlock()
	if err := e.conn.Notify(e.ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "plaintext", "version": 1, "text": text}}); err != nil {
		e.t.Fatal(err)
	}
}

// doc is an open document of the editor (ASCII text: columns are bytes).
type doc struct {
	version int
	text    string
}

type textEdit struct {
	Range struct {
		Start, End struct{ Line, Character int }
	}
	NewText string
}

func (d *doc) apply(te textEdit) {
	offset := func(line, char int) int {
		o := 0
		for ; line > 0; line-- {
			i := strings.IndexByte(d.text[o:], '\n')
			if i < 0 {
				return len(d.text)
			}
			o += i + 1
		}
		return min(o+char, len(d.text))
	}
	a, b := offset(te.Range.Start.Line, te.Range.Start.Character), offset(te.Range.End.Line, te.Range.End.Character)
	d.text = d.text[:a] + te.NewText + d.text[b:]
}

func (e *editor) call(method string, params, result any) {
	e.t.Helper()
	var raw json.RawMessage
	if _, err := e.conn.Call(e.ctx, method, params, &raw); err != nil {
		e.t.Fatalf("%s: %v", method, err)
	}
	if result != nil {
		if err := json.Unmarshal(raw, result); err != nil {
			e.t.Fatal(err)
		}
	}
}

// mcpClient is the official MCP TypeScript SDK's client running `tandem
// mcp serve` (testdata/mcp-client.mjs), one call at a time.
type mcpClient struct {
	t        *testing.T
	cmd      *exec.Cmd
	in       io.WriteCloser
	out      *bufio.Scanner
	Tools    []string
	Protocol string // the revision negotiated
}

// The official MCP TypeScript SDK's clients, as scripts/setup installs them:
// v1 speaks the revisions up to 2025-11-25, v2 negotiates 2026-07-28.
const (
	sdkV1 = "../../.deps/mcp/node_modules/@modelcontextprotocol/sdk"
	sdkV2 = "../../.deps/mcpclients/node_modules/@modelcontextprotocol/client"
)

// clientReply is one line of mcp-client.mjs.
type clientReply struct {
	Tools    []string `json:"tools"`
	Protocol string   `json:"protocol"`
	Elicited string   `json:"elicited"`
	Error    string   `json:"error"`
	Sent     int      `json:"sent"` // tools/call requests the call took
	Result   *struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		IsError bool           `json:"isError"`
		Meta    map[string]any `json:"_meta"`
	} `json:"result"`
}

func (r clientReply) text() string {
	if r.Result == nil || len(r.Result.Content) == 0 {
		return ""
	}
	return r.Result.Content[0].Text
}

func startMCPClient(t *testing.T, ws string, env []string, answer string) *mcpClient {
	t.Helper()
	return startSDKClient(t, sdkV1, ws, env, answer)
}

// startSDKClient is startMCPClient with the SDK in dir (sdkV1 or sdkV2).
func startSDKClient(t *testing.T, dir, ws string, env []string, answer string) *mcpClient {
	t.Helper()
	prereq.Program(t, "node", "install Node.js 20 or later (README)")
	sdk, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sdk); err != nil {
		prereq.Missing(t, "the MCP TypeScript SDK in "+strings.TrimPrefix(dir, "../../"), "scripts/setup installs it")
	}
	args := []string{"testdata/mcp-client.mjs", sdk, builtTandem(t), ws}
	if answer != "" {
		args = append(args, answer)
	}
	cmd := exec.Command("node", args...)
	cmd.Env = env
	cmd.Stderr = os.Stderr
	in, out := startPiped(t, cmd)
	c := &mcpClient{t: t, cmd: cmd, in: in, out: bufio.NewScanner(out)}
	c.out.Buffer(nil, 16<<20)
	first := c.next()
	c.Tools, c.Protocol = first.Tools, first.Protocol
	return c
}

func (c *mcpClient) next() clientReply {
	c.t.Helper()
	if !c.out.Scan() {
		c.t.Fatalf("the MCP client ended: %v", c.out.Err())
	}
	var r clientReply
	if err := json.Unmarshal(c.out.Bytes(), &r); err != nil {
		c.t.Fatalf("%v: %s", err, c.out.Bytes())
	}
	return r
}

// call sends one call and returns its reply, after the questions it
// elicited.
func (c *mcpClient) call(tool, args string) (clientReply, []string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, `{"tool":"`+tool+`","args":`+args+"}\n"); err != nil {
		c.t.Fatal(err)
	}
	var elicited []string
	for {
		r := c.next()
		if r.Elicited == "" {
			if r.Error != "" {
				c.t.Fatalf("%s %s: the SDK client failed the call: %s", tool, args, r.Error)
			}
			return r, elicited
		}
		elicited = append(elicited, r.Elicited)
	}
}

// testHome is a private home for both processes: settings, state, runtime
// directory.
func testHome(t *testing.T, userConfig string) []string {
	home := t.TempDir()
	rt := filepath.Join(home, "run")
	if err := os.MkdirAll(filepath.Join(home, "config", "tandem"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	if userConfig != "" {
		if err := os.WriteFile(filepath.Join(home, "config", "tandem", "config.json"), []byte(userConfig), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TANDEM_MCP_") {
			env = append(env, kv)
		}
	}
	return append(env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_RUNTIME_DIR="+rt)
}

// An agent in the editor's terminal, through `tandem mcp serve`, works on
// what the editor holds: the unsaved buffer is what it reads and greps, its
// edit of the open file is a workspace/applyEdit (the disk keeps its
// bytes), a secret step is asked in the editor, and the editor going away
// mid-call ends the call with an error that says so.
func TestMCPServe_attached_to_the_editor_through_the_terminal(t *testing.T) {
	ws := t.TempDir()
	path := filepath.Join(ws, "a.txt")
	if err := os.WriteFile(path, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := testHome(t, "")
	ed := startEditor(t, ws, env)
	ed.open(path, "one\nUNSAVED\n")
	var te struct{ Env map[string]string }
	ed.call("tandem/terminalEnv", map[string]any{}, &te)
	if te.Env["TANDEM_MCP_SOCKET"] == "" || te.Env["TANDEM_MCP_TOKEN"] == "" {
		t.Fatalf("terminalEnv: %+v", te)
	}
	termEnv := append(env, "TANDEM_MCP_SOCKET="+te.Env["TANDEM_MCP_SOCKET"], "TANDEM_MCP_TOKEN="+te.Env["TANDEM_MCP_TOKEN"])
	// The agent runs elsewhere: only the variables lead it to the editor.
	c := startMCPClient(t, t.TempDir(), termEnv, "")

	r, _ := c.call("read", `{"path":"a.txt"}`)
	if !strings.Contains(r.text(), "2:UNSAVED") || r.Result.IsError {
		t.Fatalf("read does not see the buffer: %+v", r)
	}
	r, _ = c.call("grep", `{"pattern":"UNSAVED"}`)
	if !strings.Contains(r.text(), "a.txt") {
		t.Fatalf("grep misses the buffer's line: %+v", r)
	}
	r, _ = c.call("jobs", `{}`)
	if r.Result.IsError {
		t.Fatalf("jobs: %+v", r)
	}
	r, _ = c.call("write", `{"path":"a.txt","content":"rewritten\n"}`)
	ed.mu.Lock()
	edits := len(ed.edits)
	ed.mu.Unlock()
	if r.Result.IsError || edits != 1 {
		t.Fatalf("the write of the open file was %d applyEdit(s): %s", edits, r.text())
	}
	if b, _ := os.ReadFile(path); string(b) != "one\ntwo\n" {
		t.Fatalf("the disk changed under the dirty buffer: %q", b)
	}
	if r, _ = c.call("read", `{"path":"a.txt"}`); !strings.Contains(r.text(), "1:rewritten") {
		t.Fatalf("the edited buffer: %s", r.text())
	}

	r, _ = c.call("bash", `{"command":"cat ~/.ssh/id_ed25519"}`)
	ed.mu.Lock()
	asked := len(ed.asked)
	var question struct{ Who string }
	if asked > 0 {
		_ = json.Unmarshal(ed.asked[0], &question)
	}
	ed.mu.Unlock()
	if asked != 1 || r.Result.Meta["code"] != "denied" {
		t.Fatalf("the secret step was asked %d time(s) in the editor: %+v", asked, r)
	}
	// The question names the MCP client that asks, by its clientInfo.
	if question.Who != "tandem-test" {
		t.Fatalf("the editor's question names %q, not the client", question.Who)
	}

	// The editor goes away while a question of the call waits.
	ed.mu.Lock()
	ed.onAsk = func() { _ = ed.cmd.Process.Kill() }
	ed.mu.Unlock()
	r, _ = c.call("bash", `{"command":"cat ~/.ssh/id_rsa"}`)
	if !r.Result.IsError || !strings.Contains(r.text(), "The editor's tandem ended during the call") {
		t.Fatalf("the editor's end: %+v", r)
	}
	// Once the editor's tandem has exited (its listening socket closed with
	// it, not just the call's connection), a new call finds nobody there.
	_ = ed.cmd.Wait()
	r, _ = c.call("read", `{"path":"a.txt"}`)
	if !r.Result.IsError || !strings.Contains(r.text(), "The editor's tandem is gone") {
		t.Fatalf("after the editor's end: %s", r.text())
	}
}

// Outside the editor's terminals, `tandem mcp serve` in a folder the editor
// has open finds it by its discovery entry; the entry goes with the editor.
func TestMCPServe_finds_the_editor_of_its_folder(t *testing.T) {
	ws := t.TempDir()
	path := filepath.Join(ws, "a.txt")
	if err := os.WriteFile(path, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := testHome(t, "")
	ed := startEditor(t, ws, env)
	ed.open(path, "UNSAVED\n")
	sub := filepath.Join(ws, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	var rt string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_RUNTIME_DIR="); ok {
			rt = v
		}
	}
	var entries []string
	for end := time.Now().Add(5 * time.Second); len(entries) == 0 && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		entries, _ = filepath.Glob(filepath.Join(rt, "tandem-lsp", "*.json"))
	}
	if len(entries) != 1 {
		t.Fatalf("discovery entries: %v", entries)
	}
	if fi, err := os.Stat(entries[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the entry is not private: %v %v", fi.Mode(), err)
	}
	if data, _ := os.ReadFile(entries[0]); strings.Contains(string(data), "token") {
		t.Fatalf("a token rests in the discovery entry: %s", data)
	}
	c := startMCPClient(t, sub, env, "")
	r, _ := c.call("read", `{"path":"a.txt"}`)
	if !strings.Contains(r.text(), "1:UNSAVED") {
		t.Fatalf("read through the discovered editor: %+v", r)
	}
	// A second agent has a session of its own: the first one's read is
	// not its own.
	tag, _, _ := strings.Cut(strings.TrimPrefix(r.text(), "["), "]")
	_, tag, _ = strings.Cut(tag, "#")
	other := startMCPClient(t, ws, env, "")
	r, _ = other.call("edit", `{"files":[{"path":"a.txt","tag":"`+tag+`","old":"UNSAVED","new":"x"}]}`)
	if !r.Result.IsError || r.Result.Meta["code"] != "stale_tag" {
		t.Fatalf("an edit on another session's read: %+v", r)
	}
	ed.call("shutdown", nil, nil)
	_ = ed.conn.Notify(ed.ctx, "exit", nil)
	_ = ed.cmd.Wait()
	if entries, _ := filepath.Glob(filepath.Join(rt, "tandem-lsp", "*.json")); len(entries) != 0 {
		t.Fatalf("the entry outlived its editor: %v", entries)
	}
}

// Standalone, the user's own auto set gates the steps as for `tandem
// tool`, and a question goes to a client that takes elicitations: its
// answer decides; a client without them gets a refusal saying what the
// user can do.
func TestMCPServe_standalone_settings_and_elicitation(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "keep.log"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := testHome(t, `{"shell":{"autoEffects":["read"]}}`)

	c := startMCPClient(t, ws, env, "")
	r, _ := c.call("bash", `{"command":"rm -f keep.log"}`)
	if r.Result.Meta["code"] != "unanswered" || !strings.Contains(r.text(), "run you in the terminal of an editor with tandem") || !strings.Contains(r.text(), "shell.autoEffects in their user settings") {
		t.Fatalf("without elicitation: %+v", r)
	}
	for _, call := range [][2]string{{"write", `{"path":"new.txt","content":"x\n"}`}, {"bash", `{"command":"go version"}`}} {
		if r, _ := c.call(call[0], call[1]); r.Result.Meta["code"] != "unanswered" {
			t.Fatalf("%s %s under the auto set [read]: %s", call[0], call[1], r.text())
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Fatal("the refused write wrote")
	}
	r, _ = c.call("jobs", `{}`)
	if r.Result.IsError {
		t.Fatalf("jobs: %+v", r)
	}
	r, _ = c.call("no_such_tool", `{}`)
	if !r.Result.IsError || r.Result.Meta["code"] != "unknown_tool" {
		t.Fatalf("an unknown tool is a tool error: %+v", r)
	}

	deny := startMCPClient(t, ws, env, "deny")
	r, asked := deny.call("bash", `{"command":"rm -f keep.log"}`)
	if len(asked) != 1 || !strings.Contains(asked[0], "rm -f keep.log") || !strings.HasPrefix(asked[0], "tandem: tandem-test (session ") || r.Result.Meta["code"] != "denied" {
		t.Fatalf("denied by elicitation (asked %q): %+v", asked, r)
	}
	if _, err := os.Stat(filepath.Join(ws, "keep.log")); err != nil {
		t.Fatal("the denied step ran")
	}
	decline := startMCPClient(t, ws, env, "decline")
	if r, asked = decline.call("bash", `{"command":"rm -f keep.log"}`); len(asked) != 1 || r.Result.Meta["code"] != "denied" {
		t.Fatalf("declined (asked %q): %+v", asked, r)
	}
	allow := startMCPClient(t, ws, env, "allow_session")
	r, asked = allow.call("bash", `{"command":"rm -f keep.log"}`)
	if len(asked) != 1 || r.Result.IsError {
		t.Fatalf("allowed by elicitation (asked %q): %+v", asked, r)
	}
	if _, err := os.Stat(filepath.Join(ws, "keep.log")); err == nil {
		t.Fatal("the allowed step did not run")
	}
	// Allowed for this session: the same step on the same file runs
	// unasked.
	if err := os.WriteFile(filepath.Join(ws, "keep.log"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, asked = allow.call("bash", `{"command":"rm -f keep.log"}`); len(asked) != 0 || r.Result.IsError {
		t.Fatalf("the session's allow was asked again (asked %q): %+v", asked, r)
	}
}

// A root that holds everything is refused with the reason.
func TestMCPServe_refuses_root_and_home(t *testing.T) {
	env := testHome(t, "")
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	for root, why := range map[string]string{"/": "whole file system", home: "home directory"} {
		cmd := exec.Command(builtTandem(t), "mcp", "serve", "--root", root)
		cmd.Env = env
		out, _ := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != exitUsage || !strings.Contains(string(out), why) || !strings.Contains(string(out), "--root PROJECT") {
			t.Errorf("--root %s: exit %d: %s", root, cmd.ProcessState.ExitCode(), out)
		}
	}
}

// An agent killed before it closed its session does not leave it open in
// the editor: its job's process ends with it.
func TestMCPServe_killed_client_ends_its_session_in_the_editor(t *testing.T) {
	ws := t.TempDir()
	env := testHome(t, `{"shell":{"budgetSeconds":1}}`)
	ed := startEditor(t, ws, env)
	var te struct{ Env map[string]string }
	ed.call("tandem/terminalEnv", map[string]any{}, &te)
	cmd := exec.Command(builtTandem(t), "mcp", "serve")
	cmd.Env = append(env, "TANDEM_MCP_SOCKET="+te.Env["TANDEM_MCP_SOCKET"], "TANDEM_MCP_TOKEN="+te.Env["TANDEM_MCP_TOKEN"])
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// A sleep of this test's own, told apart from any other by its length.
	secs := fmt.Sprint(100000 + os.Getpid()%100000)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: json.RawMessage(`{"command":"sleep ` + secs + `"}`)})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "job") {
		t.Fatalf("the sleep did not become a job: %v %+v", err, res)
	}
	sleeping := func() bool {
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			if b, _ := os.ReadFile(p); string(b) == "sleep\x00"+secs+"\x00" {
				return true
			}
		}
		return false
	}
	if !sleeping() {
		t.Fatal("the job's sleep is not running")
	}
	_ = cmd.Process.Kill()
	for end := time.Now().Add(10 * time.Second); sleeping(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the killed client's job still runs in the editor's tandem")
		}
	}
}

// startPiped starts cmd with pipes to its standard input and output, and
// kills it when the test ends.
func startPiped(t *testing.T, cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser) {
	t.Helper()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return in, out
}
