package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// wireServe is `tandem mcp serve` spoken to line by line over real pipes,
// as a client of any quality may speak it.
type wireServe struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// wireMessage is one line tandem wrote.
type wireMessage struct {
	ID     any             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func startWireServe(t *testing.T, ws string, env []string) *wireServe {
	t.Helper()
	cmd := exec.Command(builtTandem(t), "mcp", "serve")
	cmd.Dir, cmd.Env, cmd.Stderr = ws, env, os.Stderr
	in, out := startPiped(t, cmd)
	w := &wireServe{t: t, cmd: cmd, in: in, out: bufio.NewScanner(out)}
	w.out.Buffer(nil, 16<<20)
	return w
}

func (w *wireServe) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatalf("tandem stopped reading: %v", err)
	}
}

// next is the next line tandem writes; it fails the test if tandem ended.
func (w *wireServe) next() wireMessage {
	w.t.Helper()
	if !w.out.Scan() {
		_ = w.cmd.Wait()
		w.t.Fatalf("tandem mcp serve ended (%v) instead of answering", w.cmd.ProcessState)
	}
	var m wireMessage
	if err := json.Unmarshal(w.out.Bytes(), &m); err != nil {
		w.t.Fatalf("%v: %s", err, w.out.Bytes())
	}
	return m
}

// reply is the next response, skipping notifications.
func (w *wireServe) reply() wireMessage {
	w.t.Helper()
	for {
		if m := w.next(); m.Method == "" {
			return m
		}
	}
}

func (w *wireServe) initialize(clientName string) {
	w.t.Helper()
	w.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"` + clientName + `","version":"1"}}}`)
	if m := w.reply(); m.Error != nil || m.ID != "init" {
		w.t.Fatalf("initialize: %+v", m)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// TestLaw_mcp_serve_outlives_bad_lines: a line that is not one JSON-RPC
// message — not JSON, a batch, no "jsonrpc" — is answered with the
// JSON-RPC error for it while a call is in flight, and that call's reply
// still arrives, and the session goes on. A request before initialize and
// a method of a capability tandem does not declare get codes a client can
// act on, never 0.
func TestLaw_mcp_serve_outlives_bad_lines(t *testing.T) {
	ws := t.TempDir()
	fifo := filepath.Join(ws, "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	w := startWireServe(t, ws, testHome(t, ""))

	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if m := w.reply(); m.Error == nil || m.Error.Code != -32600 || m.ID != 1.0 || !strings.Contains(m.Error.Message, "send initialize") {
		t.Fatalf("tools/list before initialize: %+v", m)
	}
	w.initialize("wire-test")

	// A call that waits on the FIFO is in flight while the bad lines come.
	w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"cat gate"}}}`)
	for _, c := range []struct {
		line string
		code int
		id   any
	}{
		{`{"jsonrpc":"2.0","id":3,"method":"tools/list"`, -32700, nil},
		{`not json at all`, -32700, nil},
		{`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`, -32600, nil},
		{`{"id":6,"method":"ping"}`, -32600, 6.0},
		{`{"jsonrpc":"2.0","id":7,"method":"resources/list"}`, -32601, 7.0},
		{`{"jsonrpc":"2.0","id":8,"method":"prompts/list"}`, -32601, 8.0},
	} {
		w.send(c.line)
		m := w.reply()
		if m.Error == nil || m.Error.Code != c.code || m.ID != c.id {
			t.Errorf("%s was answered %+v; want error %d with id %v", c.line, m, c.code, c.id)
		}
	}
	// The writer's open waits for the step's cat to open the FIFO.
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			_, _ = f.WriteString("through the gate\n")
			f.Close()
		}
	}()
	if m := w.reply(); m.ID != 2.0 || m.Error != nil || !strings.Contains(string(m.Result), "through the gate") {
		t.Fatalf("the call in flight: %+v %s", m, m.Result)
	}
	w.send(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	if m := w.reply(); m.ID != 9.0 || m.Error != nil || !strings.Contains(string(m.Result), `"name":"read"`) {
		t.Fatalf("tools/list after the bad lines: %+v", m)
	}
	w.in.Close()
	if err := w.cmd.Wait(); err != nil {
		t.Fatalf("tandem mcp serve ended with %v at the end of its input", err)
	}
}

// A client decides by tools/list alone whether to ask before a call, run
// calls side by side, or warn about a schema: every tool carries a title
// and all four hints from the registry's one definition, no schema holds
// a union of types (Gemini CLI's strict mode warns of them), and the
// server's instructions give the working rule.
func TestMCPServe_tools_list_as_a_client_sees_it(t *testing.T) {
	w := startWireServe(t, t.TempDir(), testHome(t, ""))
	w.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"wire","version":"1"}}}`)
	var init struct{ Instructions string }
	if m := w.reply(); m.Error != nil || json.Unmarshal(m.Result, &init) != nil || !strings.Contains(init.Instructions, "[path#TAG]") || strings.Contains(init.Instructions, "## tandem") {
		t.Fatalf("initialize gives no working rule: %+v %s", m, m.Result)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var list struct {
		Tools []struct {
			Name        string         `json:"name"`
			Title       string         `json:"title"`
			InputSchema any            `json:"inputSchema"`
			Annotations map[string]any `json:"annotations"`
		}
	}
	if m := w.reply(); m.Error != nil || json.Unmarshal(m.Result, &list) != nil || len(list.Tools) < 5 {
		t.Fatalf("tools/list: %+v", m)
	}
	readOnly := map[string]bool{"read": true, "grep": true, "glob": true, "code": true, "fetch": true}
	openWorld := map[string]bool{"bash": true, "mcp": true, "fetch": true}
	for _, tl := range list.Tools {
		a := tl.Annotations
		if tl.Title == "" || a["title"] != tl.Title {
			t.Errorf("%s has no title: %q, annotations %v", tl.Name, tl.Title, a)
		}
		if a["readOnlyHint"] != readOnly[tl.Name] || a["openWorldHint"] != openWorld[tl.Name] {
			t.Errorf("%s: annotations %v; want readOnly %v, openWorld %v", tl.Name, a, readOnly[tl.Name], openWorld[tl.Name])
		}
		if _, ok := a["idempotentHint"].(bool); !ok {
			t.Errorf("%s: no idempotentHint in %v", tl.Name, a)
		}
		// Read-only tools are idempotent; MCP's default for destructive is true.
		if readOnly[tl.Name] && a["idempotentHint"] != true {
			t.Errorf("%s is read-only but not idempotent: %v", tl.Name, a)
		}
		if !readOnly[tl.Name] && a["destructiveHint"] == nil {
			t.Errorf("%s: no destructiveHint in %v", tl.Name, a)
		}
		if at := unionAt(tl.InputSchema, "inputSchema"); at != "" {
			t.Errorf("%s: a union of types at %s", tl.Name, at)
		}
	}
	// The union-free schema still takes a bare number where older clients
	// send one.
	if err := os.WriteFile(filepath.Join(w.cmd.Dir, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt","lines":2}}}`)
	if m := w.reply(); m.Error != nil || !strings.Contains(string(m.Result), `2:two`) || strings.Contains(string(m.Result), `"isError":true`) {
		t.Fatalf("read with lines 2: %+v %s", m, m.Result)
	}
}

// unionAt is where in a JSON Schema a "type" is a list, or "".
func unionAt(v any, at string) string {
	switch x := v.(type) {
	case map[string]any:
		if _, list := x["type"].([]any); list {
			return at
		}
		for _, k := range []string{"anyOf", "oneOf"} {
			if _, ok := x[k]; ok {
				return at + "." + k
			}
		}
		for k, sub := range x {
			if found := unionAt(sub, at+"."+k); found != "" {
				return found
			}
		}
	case []any:
		for i, sub := range x {
			if found := unionAt(sub, fmt.Sprintf("%s[%d]", at, i)); found != "" {
				return found
			}
		}
	}
	return ""
}

// A job started over `mcp serve` reports its end: the detach says where,
// a log message arrives when it ends, and the session's next tool result
// begins with it, once.
func TestMCPServe_job_end_is_reported_to_the_client(t *testing.T) {
	ws := t.TempDir()
	fifo := filepath.Join(ws, "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	w := startWireServe(t, ws, testHome(t, `{"shell":{"budgetSeconds":1}}`))
	w.initialize("wire-test")
	w.send(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}`)
	if m := w.reply(); m.Error != nil {
		t.Fatalf("logging/setLevel: %+v", m)
	}
	w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bash","arguments":{"command":"cat gate"}}}`)
	// Codex gives its model the structured content alone: it says it too.
	var detached struct {
		Content           []struct{ Text string }
		StructuredContent struct{ End, Job, Note string }
	}
	m := w.reply()
	if json.Unmarshal(m.Result, &detached) != nil || len(detached.Content) == 0 || detached.StructuredContent.End != "detached" ||
		!strings.Contains(detached.Content[0].Text, "as job job-1; its end will be reported at the start of your next tool result") ||
		!strings.Contains(detached.StructuredContent.Note, "its end will be reported at the start of your next tool result") {
		t.Fatalf("the detach does not say where the end is reported: %s", m.Result)
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("released\n")
	f.Close()
	m = w.next()
	var logged struct {
		Level, Logger string
		Data          struct{ Job, End string }
	}
	if m.Method != "notifications/message" || json.Unmarshal(m.Params, &logged) != nil || logged.Logger != "tandem/jobs" || logged.Data.Job != "job-1" || logged.Data.End != "finished" {
		t.Fatalf("the job's end was not logged: %+v %s", m, m.Params)
	}
	w.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"glob","arguments":{"pattern":"*"}}}`)
	var res struct {
		Content []struct{ Text string }
	}
	if m := w.reply(); json.Unmarshal(m.Result, &res) != nil || len(res.Content) == 0 || !strings.HasPrefix(res.Content[0].Text, "Job job-1 (cat gate) has ended: finished") || !strings.Contains(res.Content[0].Text, `jobs {"action":"show","id":"job-1"}`) {
		t.Fatalf("the next result does not begin with the job's end: %s", m.Result)
	}
	w.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"glob","arguments":{"pattern":"*"}}}`)
	if m := w.reply(); strings.Contains(string(m.Result), "has ended") {
		t.Fatalf("the job's end was told twice: %s", m.Result)
	}
}

// A user-scope entry started by an agent in the home directory cannot
// serve there: the reason is on standard error and is the answer to the
// agent's initialize, so the agent shows it instead of a closed
// connection; the exit status is 2.
func TestMCPServe_in_home_answers_initialize_with_the_reason(t *testing.T) {
	env := testHome(t, "")
	var home string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	cmd := exec.Command(builtTandem(t), "mcp", "serve")
	cmd.Dir, cmd.Env = home, env
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1.332"}}}` + "\n")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	var m wireMessage
	if err := json.Unmarshal([]byte(stdout.String()), &m); err != nil || m.Error == nil || m.ID != 0.0 || !strings.Contains(m.Error.Message, "home directory") || !strings.Contains(m.Error.Message, "--root PROJECT") {
		t.Errorf("initialize was answered %q; want an error with the reason", stdout.String())
	}
	if cmd.ProcessState.ExitCode() != exitUsage || !strings.Contains(stderr.String(), "refusing to serve "+home) {
		t.Errorf("exit %d, stderr %q", cmd.ProcessState.ExitCode(), stderr.String())
	}
}

// Attached to the editor, a job's end reaches the MCP client too: the
// editor gets tandem/jobSettled, and the session's next tool result
// begins with it.
func TestMCPServe_attached_job_end_is_in_the_next_result(t *testing.T) {
	ws := t.TempDir()
	fifo := filepath.Join(ws, "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	env := testHome(t, `{"shell":{"budgetSeconds":1}}`)
	ed := startEditor(t, ws, env)
	var te struct{ Env map[string]string }
	ed.call("tandem/terminalEnv", map[string]any{}, &te)
	w := startWireServe(t, ws, append(env, "TANDEM_MCP_SOCKET="+te.Env["TANDEM_MCP_SOCKET"], "TANDEM_MCP_TOKEN="+te.Env["TANDEM_MCP_TOKEN"]))
	w.initialize("wire-test")
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bash","arguments":{"command":"cat gate"}}}`)
	if m := w.reply(); !strings.Contains(string(m.Result), "its end will be reported at the start of your next tool result") {
		t.Fatalf("the detach: %s", m.Result)
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("released\n")
	f.Close()
	// The job's end is told once it happened: ask until a result tells it.
	for i := 2; ; i++ {
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"jobs","arguments":{}}}`, i))
		m := w.reply()
		if strings.Contains(string(m.Result), "Job job-1 (cat gate) has ended: finished") {
			break
		}
		if !strings.Contains(string(m.Result), `"state":"running"`) {
			t.Fatalf("job-1 is not running and its end was not told: %s", m.Result)
		}
	}
}
