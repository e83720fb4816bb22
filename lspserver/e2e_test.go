package lspserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/tandemdev/tandem"
	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/internal/mcptest"
)

// The end-to-end tests start the real binary as an editor would and speak
// JSON-RPC over its pipes.

var binary string

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked() // the test binary is also the MCP server of the chat tests
	execIfAsked()          // and the seccomp wrapper of the kernel-without tests
	dir, err := os.MkdirTemp("", "tandem-lsp-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "tandem")
	// Unstamped: an ordinary user running the tests (or scripts/bench) in a
	// checkout someone else owns gets no version from git.
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", binary, "github.com/tandemdev/tandem/cmd/tandem").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building tandem: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

type proc struct {
	*rpc
	cmd    *exec.Cmd
	log    string
	stderr bytes.Buffer
	exited chan struct{}
	status int
}

// startLSP runs `tandem lsp` with private XDG directories.
func startLSP(t *testing.T) *proc {
	t.Helper()
	return startLSPIn(t, t.TempDir())
}

// startLSPIn runs `tandem lsp` with its XDG directories and log under dir,
// and env added to the test's environment.
func startLSPIn(t *testing.T, dir string, env ...string) *proc {
	t.Helper()
	return startLSPWith(t, dir, exec.Command, env...)
}

// startLSPWith is startLSPIn with the server's command made by command.
func startLSPWith(t *testing.T, dir string, command func(name string, args ...string) *exec.Cmd, env ...string) *proc {
	t.Helper()
	p := &proc{log: filepath.Join(dir, "lsp.log"), exited: make(chan struct{})}
	p.cmd = command(binary, "lsp", "--log", p.log, "--log-level", "debug")
	if p.cmd.Env == nil {
		p.cmd.Env = os.Environ()
	}
	p.cmd.Env = append(append(p.cmd.Env, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "XDG_STATE_HOME="+filepath.Join(dir, "state")), env...)
	p.cmd.Stderr = &p.stderr
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.rpc = newRPC(t, stdin, stdout)
	go func() {
		<-p.readDone
		_ = p.cmd.Wait()
		p.status = p.cmd.ProcessState.ExitCode()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			log, _ := os.ReadFile(p.log)
			t.Logf("server log:\n%s\nstderr:\n%s", log, p.stderr.String())
		}
	})
	return p
}

func (p *proc) exitStatus(t *testing.T) int {
	t.Helper()
	select {
	case <-p.exited:
		return p.status
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not exit")
	}
	return -1
}

// sample copies the bundled sample workspace to a temporary directory.
func sample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	sub, err := fs.Sub(tandem.Sample, "testdata/sample")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, sub); err != nil {
		t.Fatal(err)
	}
	return dir
}

func (p *proc) initialize(t *testing.T, root string, caps map[string]any) {
	t.Helper()
	if caps == nil {
		caps = map[string]any{}
	}
	var res struct {
		Capabilities struct {
			TextDocumentSync struct {
				Change int `json:"change"`
			} `json:"textDocumentSync"`
			Workspace struct {
				WorkspaceFolders struct{ Supported, ChangeNotifications bool } `json:"workspaceFolders"`
			} `json:"workspace"`
		} `json:"capabilities"`
	}
	p.ok("initialize", map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]string{"name": "e2e-test"},
		"rootUri":          nil,
		"workspaceFolders": []map[string]string{{"uri": "file://" + root, "name": "ws"}},
		"capabilities":     caps,
	}, &res)
	if res.Capabilities.TextDocumentSync.Change != 2 || !res.Capabilities.Workspace.WorkspaceFolders.Supported {
		t.Fatalf("capabilities lack incremental sync or workspace folders: %+v", res.Capabilities)
	}
	p.notify("initialized", map[string]any{})
}

func (p *proc) openSession(t *testing.T) string {
	t.Helper()
	var res struct{ Session string }
	p.ok("tandem/openSession", map[string]any{}, &res)
	if res.Session == "" {
		t.Fatal("openSession returned no session")
	}
	return res.Session
}

func pos(line, char int) map[string]int { return map[string]int{"line": line, "character": char} }

func change(startLine, startChar, endLine, endChar int, text string) map[string]any {
	return map[string]any{"range": map[string]any{"start": pos(startLine, startChar), "end": pos(endLine, endChar)}, "text": text}
}

// An editor opens a file with CRLF endings and types multibyte and astral
// text without saving: read shows the exact unsaved bytes (the tag proves
// it), grep finds text that exists only in the buffer, and closing the
// buffer brings the disk back. Nothing of the text reaches the log.
func TestE2E_UnsavedBufferSeenByReadAndGrep(t *testing.T) {
	ws := sample(t)
	path := filepath.Join(ws, "docs", "crlf.txt")
	disk := "one 😀 two\r\nthree é four\r\n"
	if err := os.WriteFile(path, []byte(disk), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startLSP(t)
	p.initialize(t, ws, nil)
	uri := "file://" + path
	p.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "plaintext", "version": 1, "text": disk}})
	p.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{
			change(0, 7, 0, 7, "ZED"),                    // after "one 😀 ": the emoji counts 2
			change(1, 6, 1, 7, "ü€"),                     // replaces é (1 unit)
			change(1, 99, 1, 99, "!"),                    // past the end: before the CRLF
			change(2, 0, 2, 0, "bufferonly_token 🐙\r\n"), // on the empty last line
		},
	})
	want := "one 😀 ZEDtwo\r\nthree ü€ four!\r\nbufferonly_token 🐙\r\n"
	session := p.openSession(t)

	text, isErr := p.tool(session, "read", map[string]any{"path": "docs/crlf.txt"})
	if isErr {
		t.Fatalf("read failed: %s", text)
	}
	for _, s := range []string{
		"[docs/crlf.txt#" + string(documents.TagOf([]byte(want))) + "]",
		"unsaved editor buffer, version 2",
		"\n1:one 😀 ZEDtwo\n", "\n2:three ü€ four!\n", "\n3:bufferonly_token 🐙\n",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("read lacks %q:\n%s", s, text)
		}
	}

	text, _ = p.tool(session, "grep", map[string]any{"pattern": "bufferonly_token"})
	if !strings.Contains(text, "[docs/crlf.txt#") || !strings.Contains(text, "3:bufferonly_token 🐙") {
		t.Errorf("grep does not find the text only the buffer holds:\n%s", text)
	}

	// A request sent right after a burst of changes sees every one of them,
	// applied in order: each keystroke lands where the previous one ended.
	var burst bytes.Buffer
	typed := strings.Repeat("typed 🐙 ", 40)
	char := 0
	for i, r := range []rune(typed) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": 3 + i},
			"contentChanges": []any{change(3, char, 3, char, string(r))},
		}})
		burst.Write(frame(body))
		char += len(utf16.Encode([]rune{r}))
	}
	p.raw(burst.Bytes())
	if text, _ := p.tool(session, "read", map[string]any{"path": "docs/crlf.txt", "lines": "4"}); !strings.Contains(text, "4:"+typed+"\n") {
		t.Errorf("a read sent right after %d didChange notifications does not show them in order:\n%s", len([]rune(typed)), text)
	}

	// After didSave the buffer is no longer unsaved (an editor writes the
	// file first; this test leaves the disk alone to tell the two apart).
	p.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	if text, _ := p.tool(session, "read", map[string]any{"path": "docs/crlf.txt"}); strings.Contains(text, "unsaved") || !strings.Contains(text, "4:typed") {
		t.Errorf("read after didSave still says unsaved, or lost the buffer:\n%s", text)
	}

	p.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	if text, _ := p.tool(session, "grep", map[string]any{"pattern": "bufferonly_token"}); strings.Contains(text, "crlf.txt") {
		t.Errorf("grep still sees a closed buffer:\n%s", text)
	}
	if text, _ := p.tool(session, "read", map[string]any{"path": "docs/crlf.txt"}); strings.Contains(text, "unsaved") || !strings.Contains(text, "2:three é four") {
		t.Errorf("read after didClose does not show the disk:\n%s", text)
	}

	p.ok("shutdown", nil, nil)
	p.notify("exit", nil)
	if code := p.exitStatus(t); code != 0 {
		t.Errorf("exit after shutdown: status %d, want 0", code)
	}
	log, err := os.ReadFile(p.log)
	if err != nil || len(log) == 0 {
		t.Fatalf("no log written: %v", err)
	}
	for _, secret := range []string{"three é four", "bufferonly_token", "ZEDtwo", "typed"} {
		if bytes.Contains(log, []byte(secret)) {
			t.Errorf("the log contains file contents (%q)", secret)
		}
	}
}

// bigWorkspace is enough files that a grep over them takes a while.
func bigWorkspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	line := strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing ", 2) + "\n"
	body := []byte(strings.Repeat(line, 8<<10/len(line)))
	for i := range 3000 {
		sub := filepath.Join(dir, fmt.Sprintf("d%02d", i%30))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%04d.txt", i)), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// $/cancelRequest stops a running grep whether its id is a number or a
// string; the request is answered with RequestCancelled and the server goes
// on serving.
func TestE2E_CancelLongGrep(t *testing.T) {
	ws := bigWorkspace(t)
	p := startLSP(t)
	p.initialize(t, ws, nil)
	session := p.openSession(t)
	for _, id := range []any{7, "grep-7"} {
		t.Run(fmt.Sprintf("%T", id), func(t *testing.T) {
			// The request and its cancel go out in one write, as an editor
			// cancelling at once would send them.
			idJSON, _ := json.Marshal(id)
			ch := make(chan msg, 1)
			p.mu.Lock()
			p.pending[string(idJSON)] = ch
			p.mu.Unlock()
			call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tandem/callTool", "params": map[string]any{
				"session": session, "name": "grep", "arguments": map[string]any{"pattern": `never(found|seen)\d+`}}})
			cancel, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": map[string]any{"id": id}})
			p.raw(append(frame(call), frame(cancel)...))
			m := p.wait(ch, "the cancelled grep")
			if m.Error == nil || m.Error.Code != -32800 || m.Error.Data.Code != "cancelled" {
				t.Fatalf("cancelled grep answered %s / %+v, want RequestCancelled", m.Result, m.Error)
			}
		})
	}
	if text, _ := p.tool(session, "grep", map[string]any{"pattern": "dolor", "path": "d00/f0000.txt"}); !strings.Contains(text, "dolor") {
		t.Fatalf("the server does not serve after cancellations:\n%s", text)
	}
}

// A client that sends a workDoneToken sees the call's progress begin and end.
func TestE2E_ToolProgress(t *testing.T) {
	ws := sample(t)
	p := startLSP(t)
	p.initialize(t, ws, map[string]any{"window": map[string]any{"workDoneProgress": true}})
	session := p.openSession(t)
	p.ok("tandem/callTool", map[string]any{"session": session, "name": "glob", "arguments": map[string]any{"pattern": "**/*.go"}, "workDoneToken": "tok-1"}, nil)
	p.waitFor("progress begin and end", func(notes, _ []msg) bool {
		var kinds []string
		for _, n := range notes {
			var pr struct {
				Token any
				Value struct{ Kind, Title string }
			}
			if n.Method == "$/progress" && json.Unmarshal(n.Params, &pr) == nil && pr.Token == "tok-1" {
				kinds = append(kinds, pr.Value.Kind)
			}
		}
		return strings.Join(kinds, ",") == "begin,end"
	})
}

// exit ends the process with 0 after shutdown and 1 otherwise; requests
// after shutdown are refused with a typed error.
func TestE2E_ExitStatus(t *testing.T) {
	ws := sample(t)
	t.Run("shutdown then exit", func(t *testing.T) {
		p := startLSP(t)
		p.initialize(t, ws, nil)
		p.ok("shutdown", nil, nil)
		m := p.call("tandem/listTools", map[string]any{})
		if m.Error == nil || m.Error.Data.Code != "shutting_down" {
			t.Errorf("request after shutdown: %+v, want shutting_down", m.Error)
		}
		p.notify("exit", nil)
		if code := p.exitStatus(t); code != 0 {
			t.Errorf("status %d, want 0", code)
		}
	})
	t.Run("exit without shutdown", func(t *testing.T) {
		p := startLSP(t)
		p.initialize(t, ws, nil)
		p.notify("exit", nil)
		if code := p.exitStatus(t); code != 1 {
			t.Errorf("status %d, want 1", code)
		}
	})
	t.Run("input ends without shutdown", func(t *testing.T) {
		p := startLSP(t)
		p.initialize(t, ws, nil)
		_ = p.in.Close()
		if code := p.exitStatus(t); code != 1 {
			t.Errorf("status %d, want 1", code)
		}
	})
}

// Each kind of bad input gets its typed error, and the server answers the
// next request.
func TestE2E_BadInputKeepsServing(t *testing.T) {
	ws := sample(t)
	p := startLSP(t)

	m := p.call("tandem/listTools", map[string]any{})
	if m.Error == nil || m.Error.Code != -32002 || m.Error.Data.Code != "not_initialized" {
		t.Fatalf("request before initialize: %+v, want ServerNotInitialized", m.Error)
	}
	p.initialize(t, ws, nil)
	session := p.openSession(t)

	huge := 64<<20 + 1
	noID := []struct {
		name, input string
		code        int
		kind        string
	}{
		{"header without colon", "Content-Type: text/plain\r\nbogus header\r\n\r\n", -32700, "malformed_frame"},
		{"no Content-Length", "Content-Type: application/json\r\n\r\n{\"jsonrpc\":\"2.0\"}", -32700, "malformed_frame"},
		{"Content-Length not a number", "Content-Length: twelve\r\n\r\n", -32700, "malformed_frame"},
		{"truncated JSON", string(frame([]byte(`{"jsonrpc":"2.0","id":`))), -32700, "bad_json"},
		{"binary garbage", string(frame([]byte("\x00\xff\xfe garbage"))), -32700, "bad_json"},
		{"JSON that is not a message", string(frame([]byte(`{"hello":"world"}`))), -32600, "invalid_request"},
		{"batch", string(frame([]byte(`[{"jsonrpc":"2.0","id":1,"method":"shutdown"}]`))), -32600, "invalid_request"},
		{"huge Content-Length", fmt.Sprintf("Content-Length: %d\r\n\r\n%s", huge, strings.Repeat(" ", huge)), -32050, "too_large"},
	}
	for _, c := range noID {
		t.Run(c.name, func(t *testing.T) {
			p.raw([]byte(c.input))
			if text, isErr := p.tool(session, "read", map[string]any{"path": "README.md"}); isErr || !strings.Contains(text, "1:# greet") {
				t.Fatalf("the next request after %s was not served: %s", c.name, text)
			}
			orphans := p.takeOrphans()
			if len(orphans) != 1 || orphans[0].Error == nil || orphans[0].Error.Code != c.code || orphans[0].Error.Data.Code != c.kind {
				t.Fatalf("%s answered with %+v, want one error %d %s", c.name, orphans, c.code, c.kind)
			}
			if string(orphans[0].ID) != "null" || !strings.HasSuffix(strings.TrimSpace(orphans[0].Error.Message), ".") {
				t.Fatalf("error %+v: want id null and a sentence", orphans[0])
			}
		})
	}

	withID := []struct {
		name   string
		send   func(id int)
		code   int
		kind   string
		phrase string
	}{
		{"wrong jsonrpc version", func(id int) {
			p.raw(frame([]byte(fmt.Sprintf(`{"jsonrpc":"1.0","id":%d,"method":"tandem/listTools"}`, id))))
		}, -32600, "invalid_request", `"jsonrpc" is not "2.0"`},
		{"unknown method", func(id int) { p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tandem/noSuchMethod"}) }, -32601, "unknown_method", "tandem/noSuchMethod"},
		{"params of the wrong type", func(id int) {
			p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tandem/callTool", "params": map[string]any{"session": 5}})
		}, -32602, "invalid_params", "tandem/callTool"},
		{"unknown session", func(id int) {
			p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tandem/callTool", "params": map[string]any{"session": "nope", "name": "read"}})
		}, -32051, "unknown_session", "tandem/openSession"},
	}
	for i, c := range withID {
		t.Run(c.name, func(t *testing.T) {
			id := 9000 + i
			ch := make(chan msg, 1)
			p.mu.Lock()
			p.pending[fmt.Sprint(id)] = ch
			p.mu.Unlock()
			c.send(id)
			m := p.wait(ch, c.name)
			if m.Error == nil || m.Error.Code != c.code || m.Error.Data.Code != c.kind || !strings.Contains(m.Error.Message, c.phrase) {
				t.Fatalf("%s answered %+v, want %d %s mentioning %q", c.name, m.Error, c.code, c.kind, c.phrase)
			}
			if _, isErr := p.tool(session, "read", map[string]any{"path": "README.md"}); isErr {
				t.Fatalf("the next request after %s failed", c.name)
			}
		})
	}
}
