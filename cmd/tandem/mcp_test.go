package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/bridge"
	"github.com/tandemdev/tandem/internal/mcptest"
	"github.com/tandemdev/tandem/mcpclient"
)

// hostBridge runs a bridge in this process over the go-sdk's own test
// server, with one owner whose questions get answer.
func hostBridge(t *testing.T, set bridge.Settings, answer approvals.Answer) []string {
	return hostBridgeAsking(t, set, approvals.AskerFunc(func(context.Context, approvals.Question) approvals.Answer { return answer }))
}

func hostBridgeAsking(t *testing.T, set bridge.Settings, asker approvals.Asker) []string {
	t.Helper()
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	t.Setenv("XDG_RUNTIME_DIR", rt)
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcptest.New() }, nil))
	t.Cleanup(srv.Close)
	cfg := mcpclient.Config{Servers: map[string]mcpclient.Def{"t": {Name: "t", Type: "http", URL: srv.URL}}}
	b, err := bridge.New(mcpclient.NewManager(cfg, mcpclient.Options{CallTimeout: 2 * time.Second}), set, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	reg, err := b.AddOwner(bridge.Owner{Session: "s", Asker: asker})
	if err != nil {
		t.Fatal(err)
	}
	return reg.Env()
}

func runMCPProc(t *testing.T, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(builtTandem(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	_ = cmd.Run()
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

func TestMCPCall_exit_codes_and_one_line_reasons(t *testing.T) {
	env := hostBridge(t, bridge.Settings{AutoAllow: []string{"t/echo", "t/fail", "t/sleep", "t/big"}}, approvals.Deny)
	cases := []struct {
		name   string
		env    []string
		stdin  string
		args   []string
		code   int
		stdout string
		reason string // in the one stderr line
	}{
		{"ok", env, "", []string{"t/echo", `{"message":"hi"}`}, 0, "hi", ""},
		{"json on stdin", env, `{"message":"from stdin"}`, []string{"t/echo", "-"}, 0, "from stdin", ""},
		{"server failed", env, "", []string{"t/sleep", `{"millis":10000}`}, 1, "", "did not answer within 2s"},
		{"usage: no tool", env, "", nil, 2, "", "usage"},
		{"usage: not server/tool", env, "", []string{"echo"}, 2, "", "SERVER/TOOL"},
		{"usage: not an object", env, "", []string{"t/echo", "[1]"}, 2, "", "JSON object"},
		{"usage: unknown tool", env, "", []string{"t/nope", "{}"}, 2, "", "tandem mcp list"},
		{"no bridge here", nil, "", []string{"t/echo", "{}"}, 3, "", "TANDEM_MCP_SOCKET"},
		{"wrong token", []string{env[0], "TANDEM_MCP_TOKEN=" + strings.Repeat("0", 64)}, "", []string{"t/echo", "{}"}, 3, "", "unauthorized"},
		{"denied", env, "", []string{"t/spawn"}, 5, "", "denied"},
		{"tool error", env, "", []string{"t/fail"}, 6, "the tool failed on purpose\n", "tool_error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e []string
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "TANDEM_MCP_") {
					e = append(e, kv)
				}
			}
			cmd := exec.Command(builtTandem(t), append([]string{"mcp", "call"}, c.args...)...)
			cmd.Env = append(e, c.env...)
			cmd.Stdin = strings.NewReader(c.stdin)
			var o, se bytes.Buffer
			cmd.Stdout, cmd.Stderr = &o, &se
			_ = cmd.Run()
			code := cmd.ProcessState.ExitCode()
			if code != c.code || o.String() != c.stdout {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q", code, o.String(), se.String(), c.code, c.stdout)
			}
			lines := strings.Split(strings.TrimSuffix(se.String(), "\n"), "\n")
			if c.code == 0 && se.Len() != 0 || c.code != 0 && (len(lines) != 1 || !strings.Contains(lines[0], c.reason)) {
				t.Fatalf("stderr %q: want one line with %q", se.String(), c.reason)
			}
		})
	}
}

func TestMCPCall_busy_is_exit_4(t *testing.T) {
	// The one slot is held by a call whose question waits until released.
	asking, release := make(chan struct{}), make(chan struct{})
	env := hostBridgeAsking(t, bridge.Settings{Capacity: 1}, approvals.AskerFunc(func(ctx context.Context, _ approvals.Question) approvals.Answer {
		close(asking)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return approvals.Deny
	}))
	held := exec.Command(builtTandem(t), "mcp", "call", "t/echo", `{"message":"held"}`)
	held.Env = append(os.Environ(), env...)
	if err := held.Start(); err != nil {
		t.Fatal(err)
	}
	<-asking
	out, stderr, code := runMCPProc(t, env, "", "mcp", "call", "t/echo", `{"message":"x"}`)
	close(release)
	_ = held.Wait()
	if code != 4 || out != "" || !strings.Contains(stderr, "safe to run the command again") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if held.ProcessState.ExitCode() != 5 {
		t.Fatalf("the held call was denied: exit %d", held.ProcessState.ExitCode())
	}
}

func TestMCPList_prints_server_tool_and_description(t *testing.T) {
	env := hostBridge(t, bridge.Settings{}, approvals.Deny)
	out, stderr, code := runMCPProc(t, env, "", "mcp", "list")
	if code != 0 {
		t.Fatalf("exit %d %q", code, stderr)
	}
	var echo string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "t/echo ") {
			echo = l
		}
	}
	if !strings.HasSuffix(echo, "Echoes the message back.") || strings.Count(out, "\n") != 6 {
		t.Fatalf("list:\n%s", out)
	}
}

// tandem mcp serve is a mapping of the one registry: the same tools, and
// the same result as `tandem tool` for the same call.
func TestMCPServe_maps_the_tool_registry(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(builtTandem(t), "mcp", "serve")
	cmd.Dir = dir
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	want, _, _ := runMCPProc(t, nil, "", "tool")
	for _, n := range names {
		if !strings.Contains(want, n+"\n") {
			t.Errorf("tool %s is served over MCP but not listed by tandem tool", n)
		}
	}
	if len(names) < 3 {
		t.Fatalf("served tools: %v", names)
	}
	args := json.RawMessage(`{"path":"a.txt"}`)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	cmd2 := exec.Command(builtTandem(t), "tool", "read", string(args))
	cmd2.Dir = dir
	direct, _ := cmd2.Output()
	got := res.Content[0].(*mcp.TextContent).Text
	if strings.TrimRight(got, "\n") != strings.TrimRight(string(direct), "\n") || res.IsError {
		t.Fatalf("over MCP:\n%s\nby tandem tool:\n%s", got, direct)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: json.RawMessage(`{"path":"missing.txt"}`)})
	if err != nil || !res.IsError {
		t.Fatalf("a refusal is an error result, not a protocol error: %v %+v", err, res)
	}
}

// tandem mcp list goes into an agent's context: one short line per tool.
func TestOneLineKeepsTheFirstSentenceShort(t *testing.T) {
	for in, want := range map[string]string{
		"Echoes the message back.":                        "Echoes the message back.",
		"Read a file.\nIt shows rows. More text follows.": "Read a file.",
		"Lists  things\n\twith odd   spacing":             "Lists things with odd spacing",
		strings.Repeat("word ", 40):                       strings.TrimSpace(strings.Repeat("word ", 20)) + "…",
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// tandem mcp serve opens its session as tandem tool does: the user's own
// shell.autoEffects gates its bash steps (nobody can answer over MCP, so a
// step outside the set is refused unanswered, with its code), and a value
// the tools refuse is named on standard error.
func TestMCPServe_gates_with_the_user_settings(t *testing.T) {
	dir, cfg := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "tandem"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "tandem", "config.json"), []byte(`{"shell": {"autoEffects": ["read"], "budgetSeconds": "soon"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(builtTandem(t), "mcp", "serve")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: json.RawMessage(`{"command":"touch made"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || res.Meta["code"] != "unanswered" {
		t.Fatalf("a write under the user's auto set [read]: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Fatal("the refused step ran")
	}
	cs.Close()
	if !strings.Contains(stderr.String(), "tandem mcp serve: shell.budgetSeconds (the user config file) must be a number of seconds above 0") {
		t.Fatalf("stderr does not name the refused setting:\n%s", stderr.String())
	}
}
