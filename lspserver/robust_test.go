package lspserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// A didChange whose params do not decode (a version sent as a string) would
// leave the mirror one keystroke behind the editor for good. The document
// stops being mirrored instead: the editor is told once, reads show the disk
// and say why, edits and writes of it are refused, and opening it again
// resumes.
func TestE2E_UndecodableChangeStopsMirroring(t *testing.T) {
	ws := t.TempDir()
	path := filepath.Join(ws, "a.txt")
	if err := os.WriteFile(path, []byte("abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startLSP(t)
	p.initialize(t, ws, map[string]any{"workspace": map[string]any{"applyEdit": true}})
	uri := "file://" + path
	p.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 1, "text": "abc\n"}})
	insert := func(version any, text string) {
		p.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": version},
			"contentChanges": []any{change(0, 0, 0, 0, text)},
		})
	}
	insert(2, "1")
	insert(3, "2")
	insert("4", "3")
	insert(5, "4")
	session := p.openSession(t)
	text, isErr := p.tool(session, "read", map[string]any{"path": "a.txt"})
	if isErr || !strings.Contains(text, "\n1:abc\n") || !strings.Contains(text, "lost track of its unsaved text") {
		t.Fatalf("read after the lost change shows no disk with its reason:\n%s", text)
	}
	tag := text[strings.Index(text, "#")+1 : strings.Index(text, "]")]
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"edit", map[string]any{"files": []any{map[string]any{"path": "a.txt", "tag": tag, "ops": []any{map[string]any{"replace": "1", "text": "agent"}}}}}},
		{"write", map[string]any{"path": "a.txt", "content": "agent\n"}},
	} {
		res, isErr := p.tool(session, call.tool, call.args)
		if !isErr || !strings.Contains(res, "lost track of its unsaved text") || !strings.Contains(res, "close and reopen it") {
			t.Fatalf("%s of a lost document: %s", call.tool, res)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "abc\n" {
		t.Fatalf("the disk changed: %q", b)
	}
	warnings := 0
	p.mu.Lock()
	for _, n := range p.notes {
		if n.Method == "window/showMessage" && strings.Contains(string(n.Params), "lost track of the unsaved text of "+path) {
			warnings++
		}
	}
	p.mu.Unlock()
	if warnings != 1 {
		t.Fatalf("the editor was told %d times, want once", warnings)
	}
	p.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 9, "text": "4321abc\n"}})
	if text, _ := p.tool(session, "read", map[string]any{"path": "a.txt"}); !strings.Contains(text, "\n1:4321abc\n") || strings.Contains(text, "lost track") {
		t.Fatalf("reopening did not resume mirroring:\n%s", text)
	}
}

// askedFor waits for the server's requests of method and returns them.
func (c *rpc) askedFor(method string, atLeast int) []msg {
	c.t.Helper()
	var got []msg
	c.waitFor(fmt.Sprintf("%d %s requests", atLeast, method), func(_, _ []msg) bool {
		got = nil
		for _, m := range c.asked {
			if m.Method == method {
				got = append(got, m)
			}
		}
		return len(got) >= atLeast
	})
	return got
}

// An editor that answers one of tandem's requests three times, or answers
// one tandem never sent, must not stop tandem reading: the extra responses
// are dropped and logged, and the next request is served.
func TestE2E_DuplicateAndUnknownResponsesAreDropped(t *testing.T) {
	p := startLSP(t)
	p.onRequest(func(string, json.RawMessage) any { return noReply{} })
	p.initialize(t, t.TempDir(), map[string]any{"workspace": map[string]any{"configuration": true}})
	id := p.askedFor("workspace/configuration", 1)[0].ID
	answer := []byte(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":[{}]}`)
	for range 3 {
		p.raw(frame(answer))
	}
	p.raw(frame([]byte(`{"jsonrpc":"2.0","id":424242,"result":null}`)))
	p.raw(frame([]byte(`{"jsonrpc":"2.0","id":"never-asked","error":{"code":-32601,"message":"no"}}`)))
	var res struct{ Tools []json.RawMessage }
	p.ok("tandem/listTools", map[string]any{}, &res)
	if len(res.Tools) == 0 {
		t.Fatal("no tools listed")
	}
	log, _ := os.ReadFile(p.log)
	if n := strings.Count(string(log), "which no request of tandem's awaits, was dropped"); n != 4 {
		t.Fatalf("%d dropped responses logged, want 4 (two duplicates, two unknown)\n%s", n, log)
	}
}

// However many configuration changes an editor announces while it does not
// answer tandem's workspace/configuration, tandem asks one at a time (one
// more after the one outstanding), and keeps serving.
func TestE2E_ConfigurationChangesAskOneAtATime(t *testing.T) {
	p := startLSP(t)
	p.onRequest(func(string, json.RawMessage) any { return noReply{} })
	p.initialize(t, t.TempDir(), map[string]any{"workspace": map[string]any{"configuration": true}})
	p.askedFor("workspace/configuration", 1)
	var burst bytes.Buffer
	for range 2000 {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration", "params": map[string]any{"settings": nil}})
		burst.Write(frame(body))
	}
	p.raw(burst.Bytes())
	p.ok("tandem/listTools", map[string]any{}, nil)
	p.mu.Lock()
	asked := 0
	for _, m := range p.asked {
		if m.Method == "workspace/configuration" {
			asked++
		}
	}
	p.mu.Unlock()
	if asked != 1 {
		t.Fatalf("%d workspace/configuration requests outstanding, want 1", asked)
	}
}

// tandem's requests to an editor that never answers end at their deadline,
// each withdrawn with $/cancelRequest, and no more than maxOutstanding wait
// at once: one more fails at once instead of holding a goroutine.
func TestRequestsToTheEditorAreBounded(t *testing.T) {
	c, _ := inProcessWith(t, Options{Cwd: t.TempDir(), callTimeout: 500 * time.Millisecond})
	initialized(t, c, nil)
	// The initialized notification starts the connection's MCP hub (its
	// bridge, its configs watched), which keeps goroutines of its own: a
	// request is read only after that handler returned.
	c.ok("tandem/listTools", map[string]any{}, nil)
	c.onRequest(func(string, json.RawMessage) any { return noReply{} })
	before := runtime.NumGoroutine()
	calls := make([]chan msg, maxOutstanding+1)
	for i := range calls {
		calls[i] = c.start(1000+i, "test/callEditor", nil)
	}
	results := map[string]int{}
	for i, ch := range calls {
		m := c.wait(ch, fmt.Sprintf("call %d", i))
		var text string
		_ = json.Unmarshal(m.Result, &text)
		results[text]++
	}
	if results[ErrTooManyRequests.Error()] != 1 || results[context.DeadlineExceeded.Error()] != maxOutstanding {
		t.Fatalf("results: %v", results)
	}
	c.waitFor("a $/cancelRequest for every request that timed out", func(notes, _ []msg) bool {
		n := 0
		for _, m := range notes {
			if m.Method == "$/cancelRequest" {
				n++
			}
		}
		return n == maxOutstanding
	})
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		t.Fatalf("%d goroutines after the requests ended, %d before", n, before)
	}
}

// An editor that closed its end of tandem's stdout (or was killed) is gone:
// tandem's next write fails, and it stops as on exit — not killed by
// SIGPIPE — ending every process its sessions started.
func TestE2E_EditorGoneEndsEveryProcess(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(binary, "lsp", "--log", filepath.Join(dir, "lsp.log"))
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	fromServer, toEditor, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = toEditor
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toEditor.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	c := newRPC(t, stdin, fromServer)
	initialized(t, c, nil)
	var s struct{ Session string }
	c.ok("tandem/openSession", map[string]any{"roots": []string{dir}}, &s)
	sleep := sleepMarker(t, 3)
	c.start("bash", "tandem/callTool", map[string]any{"session": s.Session, "name": "bash", "arguments": map[string]string{"command": sleep}})
	waitRunning(t, sleep)

	fromServer.Close()
	<-c.readDone
	c.send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tandem/listTools", "params": map[string]any{}})
	select {
	case err := <-exited:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("tandem ended with %v, want exit status 1 (not a signal)", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("tandem kept running after the editor went away")
	}
	if pids := processesRunning(t, sleep); len(pids) != 0 {
		t.Fatalf("the session's process outlived tandem: %v", pids)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "lsp.log"))
	if !strings.Contains(string(log), "the editor is gone") {
		t.Fatalf("the log does not say why tandem stopped:\n%s", log)
	}
}

// Every request is answered with its own id, exactly as sent: a string id
// stays a string (even "" and "0"), a notification sent with an id is
// refused (and not applied), and a body too deep to decode is answered with
// the id it names.
func TestEveryRequestIsAnsweredWithItsOwnID(t *testing.T) {
	c, _ := inProcess(t)
	initialized(t, c, nil)
	for _, id := range []any{"", "0", "ünïcode \"id\"", 0, 2147483647} {
		m := c.wait(c.start(id, "tandem/listTools", map[string]any{}), fmt.Sprintf("listTools with id %#v", id))
		if m.Error != nil {
			t.Fatalf("id %#v: %+v", id, m.Error)
		}
	}
	for _, method := range []string{"initialized", "exit", "$/cancelRequest", "textDocument/didOpen", "$/setTrace"} {
		m := c.wait(c.start("n-"+method, method, map[string]any{"id": 1}), method+" with an id")
		if m.Error == nil || m.Error.Data.Code != "invalid_request" || !strings.Contains(m.Error.Message, "is a notification") {
			t.Fatalf("%s sent with an id: %s %+v", method, m.Result, m.Error)
		}
	}
	// exit sent with an id did not stop the server.
	c.ok("tandem/listTools", map[string]any{}, nil)

	deep := `{"jsonrpc":"2.0","id":"deep","method":"tandem/listTools","params":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`
	ch := make(chan msg, 1)
	c.mu.Lock()
	c.pending[`"deep"`] = ch
	c.mu.Unlock()
	c.raw(frame([]byte(deep)))
	if m := c.wait(ch, "the too deep request"); m.Error == nil || m.Error.Data.Code != "bad_json" {
		t.Fatalf("too deep: %+v", m)
	}

	// A string id cancels its own request, "" included.
	blocked := c.start("", "test/block", "empty")
	<-blockStarted
	c.notify("$/cancelRequest", map[string]any{"id": ""})
	if m := c.wait(blocked, "the cancelled request"); m.Error == nil || m.Error.Code != -32800 {
		t.Fatalf("cancel of id \"\": %+v", m)
	}
}

// topLevelID finds the id at the top level only, whatever comes around it.
func TestTopLevelID(t *testing.T) {
	for body, want := range map[string]string{
		`{"id":7}`:                           `7`,
		`{ "x":{"id":1}, "id" : "a\"b" }`:    `"a\"b"`,
		`{"params":["id",{"id":2}],"id":-3}`: `-3`,
		`{"a":"id","id":[1]}`:                ``,
		`{"a":"\"id\":5"}`:                   ``,
		`[{"id":1}]`:                         ``,
	} {
		got, _ := topLevelID([]byte(body))
		if string(got) != want {
			t.Errorf("topLevelID(%s) = %s, want %s", body, got, want)
		}
	}
}
