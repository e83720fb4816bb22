package lspserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Test-only methods, served by the servers of this package's tests besides
// the table's, so the dispatcher's cancellation and progress can be watched
// from the inside.
var blockStarted = make(chan string, 4)

// blocking holds each running test/block's context by its params.
var blocking sync.Map

var testRequests = map[string]handlerFunc{
	// test/block waits until its request is cancelled, then says so.
	"test/block": func(_ *Server, ctx context.Context, params json.RawMessage) (any, error) {
		blocking.Store(string(params), ctx)
		defer blocking.Delete(string(params))
		blockStarted <- string(params)
		select {
		case <-ctx.Done():
			return "saw cancellation", nil
		case <-time.After(20 * time.Second):
			return "never cancelled", nil
		}
	},
	// test/cancelled reports whether the running test/block of these
	// params saw its cancellation. $/cancelRequest is handled in order with
	// requests, so this answers for every cancel sent before it.
	"test/cancelled": func(_ *Server, _ context.Context, params json.RawMessage) (any, error) {
		ctx, ok := blocking.Load(string(params))
		if !ok {
			return nil, fmt.Errorf("no test/block %s is running", params)
		}
		return ctx.(context.Context).Err() != nil, nil
	},
	// test/callEditor sends the editor a request and says how it ended.
	"test/callEditor": func(s *Server, ctx context.Context, _ json.RawMessage) (any, error) {
		if err := s.Client().Call(ctx, "test/editorMethod", nil, nil); err != nil {
			return err.Error(), nil
		}
		return "answered", nil
	},
	// test/setting reports a setting as Get and User see it.
	"test/setting": func(s *Server, _ context.Context, params json.RawMessage) (any, error) {
		var key string
		_ = json.Unmarshal(params, &key)
		out := map[string]any{}
		if v, ok := s.Settings().Get(key); ok {
			out["get"], out["getSource"] = v.Raw, v.Source.String()
		}
		if v, ok := s.Settings().User(key); ok {
			out["user"] = v.Raw
		}
		return out, nil
	},
	// test/progress shows a cancellable progress and waits for the editor to
	// cancel it.
	"test/progress": func(s *Server, ctx context.Context, _ json.RawMessage) (any, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		p := s.Client().StartProgress(ctx, nil, "test", cancel)
		if p == nil {
			return "no progress", nil
		}
		defer p.End("done")
		select {
		case <-ctx.Done():
			return "cancelled from the editor", nil
		case <-time.After(20 * time.Second):
			return "never cancelled", nil
		}
	},
}

// withTestMethods is the request table plus testRequests.
func withTestMethods() map[string]handlerFunc {
	all := maps.Clone(requests)
	maps.Copy(all, testRequests)
	return all
}

// inProcess serves one connection over in-memory pipes.
func inProcess(t *testing.T) (*rpc, chan int) {
	t.Helper()
	return inProcessWith(t, Options{Cwd: t.TempDir()})
}

func inProcessWith(t *testing.T, opts Options) (*rpc, chan int) {
	t.Helper()
	toServer, serverIn := io.Pipe()
	serverOut, fromServer := io.Pipe()
	_ = serverIn
	code := make(chan int, 1)
	if opts.requests == nil {
		opts.requests = withTestMethods()
	}
	go func() {
		code <- Serve(context.Background(), toServer, fromServer, opts)
		_ = fromServer.Close()
	}()
	c := newRPC(t, serverIn, serverOut)
	t.Cleanup(func() { _ = serverIn.Close(); <-c.readDone })
	return c, code
}

func initialized(t *testing.T, c *rpc, caps map[string]any) {
	t.Helper()
	c.ok("initialize", map[string]any{"capabilities": caps}, nil)
	c.notify("initialized", map[string]any{})
}

// progressTokens answers the server's window/workDoneProgress/create
// requests as an editor does and passes on each token it creates.
func progressTokens(c *rpc) chan string {
	created := make(chan string, 1)
	c.onRequest(func(method string, params json.RawMessage) any {
		if method == "window/workDoneProgress/create" {
			var p struct{ Token string }
			_ = json.Unmarshal(params, &p)
			created <- p.Token
		}
		return nil
	})
	return created
}

// $/cancelRequest reaches the handler's context for numeric and string
// ids, and the reply is RequestCancelled.
func TestCancelReachesHandler(t *testing.T) {
	c, _ := inProcess(t)
	initialized(t, c, nil)
	for _, id := range []any{41, "block-41"} {
		ch := c.start(id, "test/block", id)
		<-blockStarted
		c.notify("$/cancelRequest", map[string]any{"id": id})
		m := c.wait(ch, "test/block")
		if m.Error == nil || m.Error.Code != -32800 {
			t.Fatalf("id %v: cancelled request answered %s %+v, want RequestCancelled", id, m.Result, m.Error)
		}
	}
	// A cancel for another id leaves a request alone.
	ch := c.start(42, "test/block", 42)
	<-blockStarted
	c.notify("$/cancelRequest", map[string]any{"id": "42"})
	var cancelled bool
	c.ok("test/cancelled", 42, &cancelled)
	if cancelled {
		t.Fatal(`a cancel of the string id "42" reached request 42`)
	}
	c.notify("$/cancelRequest", map[string]any{"id": 42})
	c.wait(ch, "request 42")
}

// A request that runs long delays neither notifications nor other requests.
func TestSlowRequestBlocksNothing(t *testing.T) {
	c, _ := inProcess(t)
	initialized(t, c, nil)
	slow := c.start(50, "test/block", 50)
	<-blockStarted
	dir := t.TempDir()
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file://" + dir + "/a.txt", "version": 1, "text": "x"}})
	var res struct{ Session string }
	c.ok("tandem/openSession", map[string]any{}, &res)
	if res.Session == "" {
		t.Fatal("no session while another request runs")
	}
	c.notify("$/cancelRequest", map[string]any{"id": 50})
	c.wait(slow, "the slow request")
}

// Cancelling a progress in the editor cancels the work behind it.
func TestProgressCancelledFromEditor(t *testing.T) {
	c, _ := inProcess(t)
	created := progressTokens(c)
	initialized(t, c, map[string]any{"window": map[string]any{"workDoneProgress": true}})
	ch := c.start(60, "test/progress", nil)
	token := <-created
	c.waitFor("progress begin", func(notes, _ []msg) bool {
		for _, n := range notes {
			if n.Method == "$/progress" && strings.Contains(string(n.Params), `"begin"`) && strings.Contains(string(n.Params), token) {
				return true
			}
		}
		return false
	})
	c.notify("window/workDoneProgress/cancel", map[string]any{"token": token})
	m := c.wait(ch, "test/progress")
	if string(m.Result) != `"cancelled from the editor"` {
		t.Fatalf("progress cancel: result %s %+v", m.Result, m.Error)
	}
}

// A client without progress support gets no progress calls.
func TestNoProgressWithoutSupport(t *testing.T) {
	c, _ := inProcess(t)
	initialized(t, c, map[string]any{})
	m := c.call("test/progress", nil)
	if string(m.Result) != `"no progress"` {
		t.Fatalf("result %s, want no progress", m.Result)
	}
}

// $/setTrace turns $/logTrace on and off; traces name methods, never params.
func TestSetTrace(t *testing.T) {
	c, _ := inProcess(t)
	initialized(t, c, nil)
	c.waitFor("the start message", func(notes, _ []msg) bool {
		for _, n := range notes {
			if n.Method == "window/logMessage" && strings.Contains(string(n.Params), "is serving 1 workspace folder(s)") {
				return true
			}
		}
		return false
	})
	dir := t.TempDir()
	c.notify("$/setTrace", map[string]any{"value": "verbose"})
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file://" + dir + "/a.txt", "version": 1, "text": "secret-ish text"}})
	c.ok("tandem/openSession", map[string]any{}, nil)
	c.waitFor("a trace of openSession's reply", func(notes, _ []msg) bool {
		for _, n := range notes {
			if n.Method == "$/logTrace" && strings.Contains(string(n.Params), "sending response 'tandem/openSession") {
				return true
			}
		}
		return false
	})
	c.mu.Lock()
	for _, n := range c.notes {
		if strings.Contains(string(n.Params), "secret-ish") {
			t.Errorf("a trace carries params: %s", n.Params)
		}
	}
	c.notes = nil
	c.mu.Unlock()
	c.notify("$/setTrace", map[string]any{"value": "off"})
	c.ok("tandem/openSession", map[string]any{}, nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.notes {
		if n.Method == "$/logTrace" {
			t.Errorf("trace sent after $/setTrace off: %s", n.Params)
		}
	}
}

// Sessions opened after a workspace folder change use the new folders.
func TestWorkspaceFolderChanges(t *testing.T) {
	c, _ := inProcess(t)
	a, b := t.TempDir(), t.TempDir()
	c.ok("initialize", map[string]any{"capabilities": map[string]any{}, "workspaceFolders": []map[string]string{{"uri": "file://" + a, "name": "a"}}}, nil)
	c.notify("initialized", map[string]any{})
	c.notify("workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{
		"added":   []map[string]string{{"uri": "file://" + b, "name": "b"}},
		"removed": []map[string]string{{"uri": "file://" + a, "name": "a"}},
	}})
	var res struct{ Roots []string }
	c.ok("tandem/openSession", map[string]any{}, &res)
	if len(res.Roots) != 1 || res.Roots[0] != b {
		t.Fatalf("roots after the change: %v, want [%s]", res.Roots, b)
	}
	m := c.call("tandem/openSession", map[string]any{"roots": []string{"relative/dir"}})
	if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(m.Error.Message, "absolute path") {
		t.Fatalf("a relative root: %+v, want InvalidParams naming the rule", m.Error)
	}
}

// shutdown cancels the requests still running and answers them first.
func TestShutdownCancelsRunningRequests(t *testing.T) {
	c, _ := inProcess(t)
	initialized(t, c, nil)
	slow := c.start(70, "test/block", 70)
	<-blockStarted
	shut := c.start(71, "shutdown", nil)
	m := c.wait(slow, "the running request")
	if m.Error == nil || m.Error.Code != -32800 {
		t.Fatalf("running request at shutdown: %s %+v, want RequestCancelled", m.Result, m.Error)
	}
	if m := c.wait(shut, "shutdown"); m.Error != nil {
		t.Fatalf("shutdown: %+v", m.Error)
	}
}

// A tool call that outlasts progressDelay (here 0) shows a progress the
// server created, begun and ended, when the client supports progress.
func TestCallToolShowsProgressWhenLong(t *testing.T) {
	old := progressDelay
	progressDelay = 0
	t.Cleanup(func() { progressDelay = old })
	ws := t.TempDir()
	body := strings.Repeat("lorem ipsum dolor sit amet\n", 400)
	for i := range 400 {
		if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%03d.txt", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := inProcess(t)
	created := progressTokens(c)
	c.ok("initialize", map[string]any{"capabilities": map[string]any{"window": map[string]any{"workDoneProgress": true}},
		"workspaceFolders": []map[string]string{{"uri": "file://" + ws, "name": "ws"}}}, nil)
	c.notify("initialized", map[string]any{})
	var s struct{ Session string }
	c.ok("tandem/openSession", map[string]any{}, &s)
	c.ok("tandem/callTool", map[string]any{"session": s.Session, "name": "grep", "arguments": map[string]any{"pattern": `never\d+`}}, nil)
	var token string
	select {
	case token = <-created:
	case <-time.After(10 * time.Second):
		t.Fatal("no window/workDoneProgress/create for a long call")
	}
	c.waitFor("begin and end of "+token, func(notes, _ []msg) bool {
		var kinds []string
		for _, n := range notes {
			var p struct {
				Token string
				Value struct {
					Kind, Title string
					Cancellable bool
				}
			}
			if n.Method == "$/progress" && json.Unmarshal(n.Params, &p) == nil && p.Token == token {
				if p.Value.Kind == "begin" && (!p.Value.Cancellable || p.Value.Title != "tandem: grep") {
					t.Errorf("begin %+v: want a cancellable progress titled after the tool", p.Value)
				}
				kinds = append(kinds, p.Value.Kind)
			}
		}
		return strings.Join(kinds, ",") == "begin,end"
	})
}

// Settings arrive from initializationOptions and workspace/configuration
// (or didChangeConfiguration), and only the user part is user level.
func TestSettingsFromTheEditor(t *testing.T) {
	setting := func(c *rpc, key string) (get, user, source string) {
		var res struct {
			Get, User json.RawMessage
			GetSource string
		}
		c.ok("test/setting", key, &res)
		return string(res.Get), string(res.User), res.GetSource
	}
	t.Run("pulled with workspace/configuration", func(t *testing.T) {
		c, _ := inProcess(t)
		asked := make(chan struct{}, 1)
		c.onRequest(func(method string, params json.RawMessage) any {
			if method == "workspace/configuration" && strings.Contains(string(params), `"section":"tandem"`) {
				asked <- struct{}{}
				return []any{map[string]any{"shell": map[string]any{"autoEffects": []string{"exec"}}}}
			}
			return nil
		})
		c.ok("initialize", map[string]any{
			"capabilities":          map[string]any{"workspace": map[string]any{"configuration": true}},
			"initializationOptions": map[string]any{"user": map[string]any{"shell.autoEffects": []string{"read"}}, "workspace": map[string]any{"log.level": "debug"}},
		}, nil)
		c.notify("initialized", map[string]any{})
		<-asked
		deadline := time.Now().Add(5 * time.Second)
		for {
			get, user, source := setting(c, "shell.autoEffects")
			if get == `["exec"]` {
				if user != `["read"]` || source != "workspace/configuration" {
					t.Fatalf("shell.autoEffects: get %s from %s, user %s; want user [read]", get, source, user)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("workspace/configuration never applied: get %s", get)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if get, user, _ := setting(c, "log.level"); get != `"debug"` || user != "" {
			t.Fatalf("log.level: get %s user %s, want a workspace-level debug", get, user)
		}
	})
	t.Run("pushed with didChangeConfiguration", func(t *testing.T) {
		c, _ := inProcess(t)
		initialized(t, c, nil)
		c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"tandem": map[string]any{"mcp.bridge": false}}})
		if get, user, source := setting(c, "mcp.bridge"); get != "false" || user != "" || source != "workspace/configuration" {
			t.Fatalf("mcp.bridge: get %s from %s, user %s", get, source, user)
		}
	})
}

// The server stops when the editor's process is gone, even with its input
// still open.
func TestStopsWhenTheEditorDies(t *testing.T) {
	old, oldChecked := editorPoll, editorChecked
	checks := make(chan struct{}, 100)
	editorPoll = 10 * time.Millisecond
	editorChecked = func() {
		select {
		case checks <- struct{}{}:
		default:
		}
	}
	t.Cleanup(func() { editorPoll, editorChecked = old, oldChecked })
	editor := exec.Command("sleep", "60")
	if err := editor.Start(); err != nil {
		t.Fatal(err)
	}
	c, code := inProcess(t)
	c.ok("initialize", map[string]any{"processId": editor.Process.Pid, "capabilities": map[string]any{}}, nil)
	for range 3 { // three checks found the editor alive
		select {
		case got := <-code:
			t.Fatalf("the server stopped (status %d) while the editor lives", got)
		case <-checks:
		case <-time.After(10 * time.Second):
			t.Fatal("the server never checked the editor process")
		}
	}
	select {
	case got := <-code:
		t.Fatalf("the server stopped (status %d) while the editor lives", got)
	default:
	}
	_ = editor.Process.Kill()
	_ = editor.Wait()
	select {
	case got := <-code:
		if got != 1 {
			t.Fatalf("status %d after the editor died, want 1", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the server kept running after the editor died")
	}
}

// A change without a range replaces the whole text; a change with the empty
// range at 0:0 inserts at the start. (protocol's change type cannot tell the
// two apart: its range is not a pointer.)
func TestFullAndEmptyRangeChanges(t *testing.T) {
	ws := t.TempDir()
	path := filepath.Join(ws, "f.txt")
	if err := os.WriteFile(path, []byte("disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _ := inProcess(t)
	c.ok("initialize", map[string]any{"capabilities": map[string]any{}, "workspaceFolders": []map[string]string{{"uri": "file://" + ws, "name": "ws"}}}, nil)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file://" + path, "version": 1, "text": "old text\n"}})
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": "file://" + path, "version": 2},
		"contentChanges": []any{
			map[string]any{"text": "whole new\n"},
			map[string]any{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "text": ">"},
		}})
	var s struct{ Session string }
	c.ok("tandem/openSession", map[string]any{}, &s)
	text, _ := c.tool(s.Session, "read", map[string]any{"path": "f.txt"})
	if !strings.Contains(text, "\n1:>whole new\n") || strings.Contains(text, "old") {
		t.Fatalf("read after a full and an inserting change:\n%s", text)
	}
}

// A notification that fails cannot be answered; the editor's log says why.
func TestFailedNotificationIsLogged(t *testing.T) {
	c, _ := inProcess(t)
	initialized(t, c, nil)
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file:///x/a.txt", "version": "one"}})
	c.waitFor("a logMessage naming the failure", func(notes, _ []msg) bool {
		for _, n := range notes {
			if n.Method == "window/logMessage" && strings.Contains(string(n.Params), "could not apply textDocument/didOpen") &&
				strings.Contains(string(n.Params), "version") {
				return true
			}
		}
		return false
	})
	c.ok("tandem/openSession", map[string]any{}, nil) // and it goes on serving
}

// Params of the wrong shape are named the way the client wrote them, in
// JSON terms, so its author can fix the call without knowing tandem's Go.
func TestInvalidParamsNameTheFieldInJSONTerms(t *testing.T) {
	c, _ := inProcess(t)
	initialized(t, c, nil)
	for _, tc := range []struct {
		method string
		params any
		want   string
	}{
		{"tandem/callTool", map[string]any{"session": 5, "name": "read"}, `"session" must be a string, not number`},
		{"tandem/callTool", 5, "the params must be one JSON object, not number"},
		{"tandem/openSession", map[string]any{"roots": "/tmp"}, `"roots" must be an array, not string`},
	} {
		m := c.call(tc.method, tc.params)
		if m.Error == nil || m.Error.Data.Code != "invalid_params" || !strings.Contains(m.Error.Message, tc.want) || strings.Contains(m.Error.Message, "Go ") {
			t.Errorf("%s %v: %+v, want invalid_params saying %s", tc.method, tc.params, m.Error, tc.want)
		}
	}
}

// A user config file that does not load is shown in the editor, not only
// logged: the user must not believe settings apply that do not.
func TestBrokenUserConfigShownInTheEditor(t *testing.T) {
	c, _ := inProcessWith(t, Options{Cwd: t.TempDir(), SettingsErr: fmt.Errorf("/home/u/.config/tandem/config.json: not valid JSON")})
	initialized(t, c, nil)
	c.waitFor("a warning naming the config file", func(notes, _ []msg) bool {
		for _, n := range notes {
			if n.Method == "window/showMessage" && strings.Contains(string(n.Params), "ignored the user config file: /home/u/.config/tandem/config.json: not valid JSON") {
				return true
			}
		}
		return false
	})
}

// A setting value the tools refuse is shown in the editor with what applies
// instead: from the editor's user settings at start, and from the workspace
// configuration when it changes.
func TestRefusedSettingShownInTheEditor(t *testing.T) {
	c, _ := inProcess(t)
	c.ok("initialize", map[string]any{"initializationOptions": map[string]any{
		"user": map[string]any{"shell": map[string]any{"autoEffects": []string{"read", "secret"}}},
	}}, nil)
	c.notify("initialized", map[string]any{})
	shown := func(text string) func(notes, _ []msg) bool {
		return func(notes, _ []msg) bool {
			for _, n := range notes {
				if n.Method == "window/showMessage" && strings.Contains(string(n.Params), text) {
					return true
				}
			}
			return false
		}
	}
	c.waitFor("a warning naming the refused auto set", shown(`shell.autoEffects (the editor's user settings): effect \"secret\" can never run unasked; allowed names: read, write, exec, net, outside, protected; until it is fixed the auto set stays as it was`))
	c.notify("workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"tandem": map[string]any{"shell": map[string]any{"budgetSeconds": 0}}}})
	c.waitFor("a warning naming the refused budget", shown(`shell.budgetSeconds (workspace/configuration) must be a number of seconds above 0; 30s applies`))
}
