package mcpclient

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tandemdev/tandem/internal/mcptest"
)

// envServe makes this test binary the MCP server of these tests: mcptest's
// tools and the few more they need.
const envServe = "TANDEM_SERVERS_TEST_SERVE"

// envHold makes this test binary a tandem that starts a server and waits to
// be killed (see hold).
const envHold = "TANDEM_SERVERS_TEST_HOLD"

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	if mode := os.Getenv(envServe); mode != "" {
		serve(mode)
	}
	if os.Getenv(envHold) != "" {
		hold()
	}
	os.Exit(m.Run())
}

type envArgs struct {
	Name string `json:"name"`
}

// serve is the server; mode "chatty" prints a banner and log lines on its
// standard output, "slow" takes 2 s to start, "mute:FILE" writes its pid
// to FILE and never answers.
func serve(mode string) {
	if mode == "slow" {
		time.Sleep(2 * time.Second)
	}
	if file, ok := strings.CutPrefix(mode, "mute:"); ok {
		_ = os.WriteFile(file, []byte(strconv.Itoa(os.Getpid())), 0o644)
		for { // not select {}: without cgo the runtime would call it a deadlock and exit
			time.Sleep(time.Hour)
		}
	}
	s := mcptest.New()
	mcp.AddTool(s, &mcp.Tool{Name: "env", Description: "Returns the value of an environment variable."},
		func(_ context.Context, _ *mcp.CallToolRequest, a envArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: os.Getenv(a.Name)}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "structured", Description: "Returns a structured result of the given size, which the SDK also sends as text."},
		func(_ context.Context, _ *mcp.CallToolRequest, a mcptest.BigArgs) (*mcp.CallToolResult, structuredOut, error) {
			return nil, structuredOut{Text: string(mcptest.Big(a.Bytes))}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "image", Description: "Returns an image as its only content."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.ImageContent{Data: pngBytes, MIMEType: "image/png"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "pid", Description: "Returns the server's process id."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(os.Getpid())}}}, nil, nil
		})
	var t mcp.Transport = &mcp.StdioTransport{}
	if mode == "chatty" {
		fmt.Println("Example MCP Server v1.2 running on stdio")
		fmt.Println()
		t = &mcp.IOTransport{Reader: os.Stdin, Writer: chatty{os.Stdout}}
	}
	if err := s.Run(context.Background(), t); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

type structuredOut struct {
	Text string `json:"text"`
}

// pngBytes stand for an image: the PNG signature and a byte of every value.
var pngBytes = func() []byte {
	b := []byte("\x89PNG\r\n\x1a\n")
	for i := range 256 {
		b = append(b, byte(i))
	}
	return b
}()

// chatty logs on standard output before each message, in text and as
// JSON, as some servers' loggers do.
type chatty struct{ *os.File }

func (c chatty) Write(p []byte) (int, error) {
	fmt.Fprintln(c.File, "[info] sending a message")
	fmt.Fprintln(c.File, `{"level":"info","msg":"sending a message"}`)
	return c.File.Write(p)
}

// hold is a tandem that starts a server which starts a child, prints both
// pids, and waits to be killed.
func hold() {
	d := Def{Name: "t", Type: "stdio", Command: os.Args[0], Env: map[string]string{envServe: "1"}}
	m := NewManager(Config{Servers: map[string]Def{"t": d}}, Options{})
	server, err := m.Call(context.Background(), "t", "pid", nil)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	child, err := m.Call(context.Background(), "t", "spawn", nil)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Printf("%s %s\n", server.Bytes, child.Bytes)
	select {}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad_reads_mcp_json_vscode_and_user_servers(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {
		"a": {"command": "node", "args": ["a.js"], "env": {"K": "${env:SECRET}"}},
		"shared": {"command": "from-mcp-json"},
		"web": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}},
		"bad/name": {"command": "x"}
	}}`)
	// VS Code's file is JSONC: comments and trailing commas.
	writeFile(t, filepath.Join(root, ".vscode", "mcp.json"), `{
		// the servers of this workspace
		"servers": {
			"b": {"type": "stdio", "command": "b", "cwd": "sub",}, /* trailing commas */
			"shared": {"command": "from-vscode"},
			"sse": {"type": "sse", "url": "http://x"},
			"off": {"command": "off", "disabled": true},
			"cursor": {"disabled": true},
		},
		"inputs": [],
	}`)
	writeFile(t, filepath.Join(root, ".cursor", "mcp.json"), `{"mcpServers": {
		"cur": {"command": "cur", "envFile": ".env"},
		"cursor": {"command": "shadowed by a disabled entry"},
		"shared": {"command": "from-cursor"}
	}}`)
	user := json.RawMessage(`{"mine": {"command": "mine"}, "a": {"command": "users-a"}, "web": {"disabled": true}}`)
	c := Load([]string{root}, user, "settings.json")

	if got := strings.Join(c.Names(), ","); got != "a,b,cur,mine,shared,sse" {
		t.Fatalf("servers = %s (a disabled entry is skipped and turns its name off)", got)
	}
	if d := c.Servers["cur"]; d.EnvFile != ".env" || !d.Workspace || d.Source != filepath.Join(root, ".cursor", "mcp.json") {
		t.Errorf(".cursor/mcp.json: %+v", d)
	}
	if d := c.Servers["sse"]; d.Type != "sse" || d.URL != "http://x" {
		t.Errorf("sse server: %+v", d)
	}
	if d := c.Servers["a"]; d.Command != "users-a" || d.Workspace {
		t.Errorf("the user's definition must win and need no approval: %+v", d)
	}
	if d := c.Servers["shared"]; d.Command != "from-mcp-json" || !d.Workspace || d.Root != root {
		t.Errorf(".mcp.json must win over .vscode/mcp.json and be a workspace server: %+v", d)
	}
	if len(c.Problems) != 1 || !strings.Contains(c.Problems[0].Error(), "bad/name") {
		t.Fatalf("want 1 problem (a bad name), got %v", c.Problems)
	}
	c = Load([]string{root}, nil, "")
	if d := c.Servers["web"]; d.Type != "http" || d.Headers["Authorization"] != "Bearer ${env:TOKEN}" {
		t.Errorf("http server: %+v", d)
	}

	writeFile(t, filepath.Join(root, ".mcp.json"), `{"mcpServers": {`)
	writeFile(t, filepath.Join(root, ".vscode", "mcp.json"), "{\n\"servers\": {}\n\"inputs\": []}")
	c = Load([]string{root}, nil, "")
	if _, ok := c.Servers["shared"]; !ok || c.Servers["shared"].Command != "from-cursor" {
		t.Errorf("a broken file hides only its own servers: %+v", c.Servers)
	}
	if len(c.Problems) != 2 || !strings.Contains(c.Problems[0].Error(), "not valid JSON") || !strings.Contains(c.Problems[1].Error(), "line 3") {
		t.Errorf("a broken file must be a problem saying where: %v", c.Problems)
	}
}

func TestResolve_env_references_at_start_only(t *testing.T) {
	t.Setenv("TANDEM_TEST_SECRET", "s3cret-value")
	d := Def{Name: "x", Type: "stdio", Command: "${workspaceFolder}/bin/x", Args: []string{"--key=${env:TANDEM_TEST_SECRET}", "${TANDEM_TEST_UNSET:-dflt}"},
		Env: map[string]string{"K": "${TANDEM_TEST_SECRET}"}, Root: "/ws", Cwd: "sub"}
	r, err := d.resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.command != "/ws/bin/x" || r.args[0] != "--key=s3cret-value" || r.args[1] != "dflt" || r.env[0] != "K=s3cret-value" || r.cwd != "/ws/sub" {
		t.Errorf("resolved = %+v", r)
	}
	if strings.Contains(d.Describe(), "s3cret") || strings.Contains(d.Hash(), "s3cret") {
		t.Error("a definition's description and hash must not hold resolved values")
	}
	d.Args = []string{"${env:TANDEM_TEST_UNSET}"}
	if _, err := d.resolve(); err == nil || !strings.Contains(err.Error(), "TANDEM_TEST_UNSET is not set") {
		t.Errorf("an unset variable must be named: %v", err)
	}
	d.Args = []string{"${input:api-key}"}
	if _, err := d.resolve(); err == nil || !strings.Contains(err.Error(), `prompt for the input "api-key"`) || !strings.Contains(err.Error(), "${env:NAME}") {
		t.Errorf("an input reference must be refused naming the input and what to write instead: %v", err)
	}
	home, _ := os.UserHomeDir()
	d.Args = []string{"${workspaceFolderBasename}", "a${pathSeparator}b${/}c", "${userHome}"}
	r, err = d.resolve()
	if err != nil || r.args[0] != "ws" || r.args[1] != "a/b/c" || r.args[2] != home {
		t.Errorf("VS Code's variables: %q %v", r.args, err)
	}
}

// A server of .vscode/mcp.json, read as VS Code reads it, runs with the
// variables of its envFile beneath its env, and VS Code's variables resolved.
func TestManager_runs_a_vscode_server_with_its_envFile(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".vscode", "mcp.json"), `{
		"servers": {
			// this test binary, as a server
			"e": {
				"command": "`+os.Args[0]+`",
				"env": {"`+envServe+`": "1", "B": "from env", "W": "${workspaceFolderBasename}${pathSeparator}x"},
				"envFile": "${workspaceFolder}/.env",
			},
			"nofile": {"command": "`+os.Args[0]+`", "envFile": "missing.env"},
		},
	}`)
	writeFile(t, filepath.Join(root, ".env"), "# the server's keys\nA=from file\nB=from file\nexport C=\"quoted value\"\n")
	c := Load([]string{root}, nil, "")
	m := NewManager(c, Options{Ask: func(context.Context, Def) (bool, error) { return true, nil }})
	t.Cleanup(m.Close)
	for name, want := range map[string]string{"A": "from file", "B": "from env", "C": "quoted value", "W": filepath.Base(root) + "/x"} {
		res, err := m.Call(context.Background(), "e", "env", json.RawMessage(`{"name":"`+name+`"}`))
		if err != nil || string(res.Bytes) != want {
			t.Errorf("%s = %q, %v; want %q", name, res.Bytes, err, want)
		}
	}
	_, err := m.Call(context.Background(), "nofile", "env", nil)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(root, "missing.env")) || !strings.Contains(err.Error(), "remove envFile") {
		t.Errorf("a missing envFile must be named: %v", err)
	}
}

// self is a definition that runs this test binary as the test MCP server.
func self(t *testing.T, name, mode string, workspace bool) Def {
	return Def{Name: name, Type: "stdio", Command: os.Args[0], Source: "test", Workspace: workspace,
		Env: map[string]string{mcptest.EnvServe: mode}, Root: t.TempDir()}
}

func newManager(t *testing.T, opts Options, defs ...Def) *Manager {
	c := Config{Servers: map[string]Def{}}
	for _, d := range defs {
		c.Servers[d.Name] = d
	}
	m := NewManager(c, opts)
	t.Cleanup(m.Close)
	return m
}

func TestManager_calls_a_stdio_server_and_maps_its_outcomes(t *testing.T) {
	m := newManager(t, Options{}, self(t, "t", "1", false))
	ctx := context.Background()

	res, err := m.Call(ctx, "t", "echo", json.RawMessage(`{"message":"hi"}`))
	if err != nil || res.IsError || string(res.Bytes) != "hi" {
		t.Fatalf("echo = %q %v %v", res.Bytes, res.IsError, err)
	}
	res, err = m.Call(ctx, "t", "big", json.RawMessage(`{"bytes":10485760}`))
	if err != nil || string(res.Bytes) != string(mcptest.Big(10<<20)) {
		t.Fatalf("a 10 MiB result must arrive whole: %d bytes, %v", len(res.Bytes), err)
	}
	res, err = m.Call(ctx, "t", "fail", nil)
	if err != nil || !res.IsError || !strings.Contains(string(res.Bytes), "failed on purpose") {
		t.Fatalf("a tool error is a result with IsError: %q %v", res.Bytes, err)
	}
	slow := newManager(t, Options{CallTimeout: 500 * time.Millisecond}, self(t, "t", "1", false))
	if _, err = slow.Call(ctx, "t", "sleep", json.RawMessage(`{"millis":5000}`)); err == nil || !strings.Contains(err.Error(), "did not answer within 500ms") {
		t.Fatalf("a slow server ends the call failed with the timeout: %v", err)
	}
	if err := m.Check(ctx, "t", "nope"); !errors.Is(err, ErrUnknownTool) {
		t.Fatalf("unknown tool: %v", err)
	}
	if _, err := m.Call(ctx, "nope", "echo", nil); !errors.Is(err, ErrUnknownServer) {
		t.Fatalf("unknown server: %v", err)
	}
	if _, err = m.Call(ctx, "t", "crash", nil); err == nil {
		t.Fatal("a server that dies mid-call must fail the call")
	}
	// The next use starts the server again, once the manager has seen the
	// exit, which it learns on its own and signals to no one: try until then.
	deadline := time.Now().Add(5 * time.Second)
	for {
		res, err = m.Call(ctx, "t", "echo", json.RawMessage(`{"message":"again"}`))
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil || string(res.Bytes) != "again" {
		t.Fatalf("after a crash the server restarts on use: %q %v", res.Bytes, err)
	}
}

// The 16 MiB limit is the result's: a result over it fails and the server
// serves on; a result under it arrives whole even when its reply holds it
// twice (text and structured content).
func TestManager_result_limit_is_the_results(t *testing.T) {
	m := newManager(t, Options{}, Def{Name: "t", Type: "stdio", Command: os.Args[0], Env: map[string]string{envServe: "1"}})
	ctx := context.Background()
	pid := func() string {
		res, err := m.Call(ctx, "t", "pid", nil)
		if err != nil {
			t.Fatal(err)
		}
		return string(res.Bytes)
	}
	first := pid()
	_, err := m.Call(ctx, "t", "big", json.RawMessage(`{"bytes":17825792}`))
	if err == nil || !strings.Contains(err.Error(), "over the 16 MiB limit") || !strings.Contains(err.Error(), "ask the tool for less") {
		t.Fatalf("a 17 MiB result must fail naming the limit: %v", err)
	}
	res, err := m.Call(ctx, "t", "structured", json.RawMessage(`{"bytes":10485760}`))
	var got struct{ Text string }
	if err != nil || json.Unmarshal(res.Bytes, &got) != nil || got.Text != string(mcptest.Big(10<<20)) {
		t.Fatalf("a 10 MiB structured result (its reply over 20 MiB) must arrive whole: %d bytes, %v", len(res.Bytes), err)
	}
	if pid() != first {
		t.Fatal("the server must serve on after a result over the limit")
	}
}

// An image that is a result's only content is its bytes, as
// `tandem mcp call srv/image > out.png` writes them; beside text (the
// everything server's get-tiny-image) it is a data: URI of the same bytes.
func TestManager_image_results(t *testing.T) {
	everything, err := filepath.Abs("../.deps/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(everything); err != nil {
		t.Fatalf("the MCP test server is not installed (%v); run scripts/setup", err)
	}
	m := newManager(t, Options{},
		Def{Name: "t", Type: "stdio", Command: os.Args[0], Env: map[string]string{envServe: "1"}},
		Def{Name: "everything", Type: "stdio", Command: "node", Args: []string{everything, "stdio"}})
	res, err := m.Call(context.Background(), "t", "image", nil)
	if err != nil || string(res.Bytes) != string(pngBytes) {
		t.Fatalf("the only item, an image, must be its bytes: %q %v", res.Bytes, err)
	}
	res, err = m.Call(context.Background(), "everything", "get-tiny-image", nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(res.Bytes), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "data:image/png;base64,") {
		t.Fatalf("text, image, text: %.300q", res.Bytes)
	}
	img, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(lines[1], "data:image/png;base64,"))
	if err != nil || !strings.HasPrefix(string(img), "\x89PNG") {
		t.Fatalf("the data: URI must hold the PNG: %v", err)
	}
}

func TestManager_start_failures_say_why(t *testing.T) {
	m := newManager(t, Options{StartTimeout: 500 * time.Millisecond},
		self(t, "broken", "fail-start", false),
		Def{Name: "mute", Type: "stdio", Command: "sleep", Args: []string{"60"}},
		Def{Name: "missing", Type: "stdio", Command: "/nonexistent/tandem-mcp-server"},
		Def{Name: "unset", Type: "stdio", Command: "x", Args: []string{"${env:TANDEM_TEST_NEVER_SET}"}},
	)
	for name, want := range map[string]string{
		"broken":  "configured to fail",
		"mute":    "did not finish starting within 500ms",
		"missing": "no such file",
		"unset":   "TANDEM_TEST_NEVER_SET is not set",
	} {
		_, err := m.Call(context.Background(), name, "echo", nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want an error with %q, got %v", name, want, err)
		}
	}
}

func TestManager_workspace_server_needs_approval_once_per_definition(t *testing.T) {
	store := NewApproved(filepath.Join(t.TempDir(), "state", "mcp-servers.json"))
	var asked atomic.Int32
	answer := false
	opts := Options{Approved: store, Ask: func(ctx context.Context, d Def) (bool, error) {
		asked.Add(1)
		return answer, nil
	}}
	d := self(t, "ws", "1", true)
	m := newManager(t, opts, d)
	if _, err := m.Call(context.Background(), "ws", "echo", json.RawMessage(`{"message":"x"}`)); !errors.Is(err, ErrNotApproved) {
		t.Fatalf("a denied server must not start: %v", err)
	}
	answer = true
	if _, err := m.Call(context.Background(), "ws", "echo", json.RawMessage(`{"message":"x"}`)); err != nil {
		t.Fatal(err)
	}
	m.Close()
	// A new process remembers the approval.
	m = newManager(t, opts, d)
	if _, err := m.Call(context.Background(), "ws", "echo", json.RawMessage(`{"message":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if n := asked.Load(); n != 2 {
		t.Fatalf("asked %d times, want 2 (the denial, then the allow; never after)", n)
	}
	// A changed definition asks again.
	d.Args = []string{"--changed"}
	m = newManager(t, opts, d)
	if _, err := m.Call(context.Background(), "ws", "echo", json.RawMessage(`{"message":"x"}`)); err != nil {
		t.Fatal(err)
	}
	if n := asked.Load(); n != 3 {
		t.Fatalf("a changed definition must ask again; asked %d times", n)
	}
	data, _ := os.ReadFile(store.path)
	if !strings.Contains(string(data), d.Hash()) {
		t.Errorf("the approval must be stored by content hash: %s", data)
	}
}

// alive reports whether pid runs; a zombie waiting to be reaped does not.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: the signal is all there is to go on
	}
	_, after, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(after, "Z")
}

func waitGone(t *testing.T, within time.Duration, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(within)
	for _, pid := range pids {
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			t.Fatalf("process %d still runs after %s", pid, within)
		}
	}
}

// A server that prints a banner and logs on standard output, in text and
// as JSON, before and between its messages still serves; the log names
// each skipped line.
func TestManager_skips_what_a_server_prints_besides_JSON_RPC(t *testing.T) {
	var log syncBuffer
	d := Def{Name: "chatty", Type: "stdio", Command: os.Args[0], Env: map[string]string{envServe: "chatty"}}
	m := newManager(t, Options{Log: slog.New(slog.NewTextHandler(&log, nil))}, d)
	for _, msg := range []string{"one", "two"} {
		res, err := m.Call(context.Background(), "chatty", "echo", json.RawMessage(`{"message":"`+msg+`"}`))
		if err != nil || string(res.Bytes) != msg {
			t.Fatalf("echo = %q, %v", res.Bytes, err)
		}
	}
	res, err := m.Call(context.Background(), "chatty", "big", json.RawMessage(`{"bytes":1048576}`))
	if err != nil || string(res.Bytes) != string(mcptest.Big(1<<20)) {
		t.Fatalf("a long reply must pass whole: %d bytes, %v", len(res.Bytes), err)
	}
	for _, want := range []string{"not JSON-RPC", "server=chatty", "Example MCP Server v1.2 running on stdio", "[info] sending a message", `{\"level\":\"info\"`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Stopping while a server is still starting ends it at once, not when its
// start would time out.
func TestManager_close_during_a_start_ends_it_at_once(t *testing.T) {
	// The server writes its pid into a FIFO: reading it returns once the
	// server runs, with no polling.
	pidFile := filepath.Join(t.TempDir(), "pid")
	if err := syscall.Mkfifo(pidFile, 0o600); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, Options{}, Def{Name: "mute", Type: "stdio", Command: os.Args[0], Env: map[string]string{envServe: "mute:" + pidFile}})
	errc := make(chan error, 1)
	go func() {
		_, err := m.Call(context.Background(), "mute", "echo", nil)
		errc <- err
	}()
	said := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(pidFile)
		said <- b
	}()
	var pid int
	select {
	case b := <-said:
		pid, _ = strconv.Atoi(string(b))
	case <-time.After(30 * time.Second):
	}
	if pid == 0 {
		t.Fatal("the server did not start")
	}
	// Real processes, real clock: the start would otherwise go on to its
	// 30 s timeout; 5 s is "at once" with room for a loaded machine.
	start := time.Now()
	m.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %s", d)
	}
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Errorf("the waiting call: %v", err)
	}
	waitGone(t, 5*time.Second, pid)
}

// A listing asks the servers together and waits for them no longer than
// its one timeout, on the bubble's clock: three that take 2 s each answer
// in 2 s (one after the other they would take 6), and two that answer
// only after the timeout cost it once, while a running one answers beside
// them.
func TestListAll_asks_together_within_one_timeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		running := map[string]bool{}
		ended := make(chan struct{}) // the silent servers' starts go on until the test ends
		defer close(ended)
		tools := func(ctx context.Context, name string) ([]*mcp.Tool, error) {
			if strings.HasPrefix(name, "mute") {
				<-ended
				return nil, errors.New("too late")
			}
			mu.Lock()
			started := running[name]
			running[name] = true
			mu.Unlock()
			if !started {
				time.Sleep(2 * time.Second)
			}
			return []*mcp.Tool{{Name: name + "/tool"}}, nil
		}
		start := time.Now()
		ls := ListAll(t.Context(), []string{"a", "b", "c"}, tools, time.Minute)
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("listing three 2 s servers took %s", d)
		}
		if got := ls[0].Server + ls[1].Server + ls[2].Server; got != "abc" || ls[2].Tools[0].Name != "c/tool" {
			t.Errorf("listings %+v", ls)
		}
		start = time.Now()
		ls = ListAll(t.Context(), []string{"mute1", "a", "mute2"}, tools, time.Second)
		if d := time.Since(start); d != time.Second {
			t.Errorf("the listing took %s, its timeout is 1s", d)
		}
		for _, l := range []Listing{ls[0], ls[2]} {
			if l.Err == nil || !strings.Contains(l.Err.Error(), "did not list its tools within 1s") {
				t.Errorf("%s: %v", l.Server, l.Err)
			}
		}
		if ls[1].Err != nil || len(ls[1].Tools) != 1 {
			t.Errorf("a server answering in time is listed beside the silent ones: %+v", ls[1])
		}
	})
}

// The same with real servers, started as processes: three that take 2 s
// each to start are listed together, and two that never answer cost the
// timeout once. The exact timing is the test above's; these bounds are on
// a real clock, so they only tell "together" from "one after the other"
// (6 s) and "once" from "twice" (2 s), with room for a loaded machine.
func TestListAll_starts_servers_together_within_one_timeout(t *testing.T) {
	def := func(name, mode string) Def {
		return Def{Name: name, Type: "stdio", Command: os.Args[0], Env: map[string]string{envServe: mode}}
	}
	m := newManager(t, Options{}, def("a", "slow"), def("b", "slow"), def("c", "slow"),
		def("mute1", "mute:"+filepath.Join(t.TempDir(), "pid")), def("mute2", "mute:"+filepath.Join(t.TempDir(), "pid")))
	start := time.Now()
	ls := ListAll(context.Background(), []string{"a", "b", "c"}, m.Tools, time.Minute)
	if d := time.Since(start); d >= 6*time.Second {
		t.Errorf("listing three slow servers took %s", d)
	}
	for _, l := range ls {
		if l.Err != nil || len(l.Tools) < 6 {
			t.Errorf("%s: %d tools, %v", l.Server, len(l.Tools), l.Err)
		}
	}
	if got := ls[0].Server + ls[1].Server + ls[2].Server; got != "abc" {
		t.Errorf("order: %s", got)
	}
	start = time.Now()
	ls = ListAll(context.Background(), []string{"mute1", "a", "mute2"}, m.Tools, time.Second)
	if d := time.Since(start); d >= 2*time.Second {
		t.Errorf("the listing took %s, its timeout is 1s", d)
	}
	for _, l := range []Listing{ls[0], ls[2]} {
		if l.Err == nil || !strings.Contains(l.Err.Error(), "did not list its tools within 1s") {
			t.Errorf("%s: %v", l.Server, l.Err)
		}
	}
	if ls[1].Err != nil {
		t.Errorf("a running server is listed beside the silent ones: %v", ls[1].Err)
	}
}

// Stopping withdraws a start's approval question at once.
func TestManager_close_withdraws_an_approval_question(t *testing.T) {
	asking := make(chan struct{})
	m := newManager(t, Options{Ask: func(ctx context.Context, d Def) (bool, error) {
		close(asking)
		<-ctx.Done()
		return false, ctx.Err()
	}}, self(t, "ws", "1", true))
	errc := make(chan error, 1)
	go func() {
		_, err := m.Call(context.Background(), "ws", "echo", nil)
		errc <- err
	}()
	<-asking
	m.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("the call waiting for the answer: %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Close did not withdraw the question")
	}
}

// A stdio server and its children never outlive tandem, even when tandem
// is killed with SIGKILL and cannot stop them.
func TestServer_dies_with_a_killed_tandem(t *testing.T) {
	tandem := exec.Command(os.Args[0])
	tandem.Env = append(os.Environ(), envHold+"=1")
	out, err := tandem.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := tandem.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	var server, child int
	if _, err := fmt.Sscan(line, &server, &child); err != nil || !alive(server) || !alive(child) {
		tandem.Process.Kill()
		t.Fatalf("the held tandem said %q", line)
	}
	if err := tandem.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = tandem.Wait()
	waitGone(t, 3*time.Second, server, child)
}

func TestManager_close_stops_servers_with_their_process_group(t *testing.T) {
	m := newManager(t, Options{}, self(t, "t", "1", false))
	res, err := m.Call(context.Background(), "t", "spawn", nil)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(string(res.Bytes))
	if child == 0 || !alive(child) {
		t.Fatalf("the server's child is not running: %q", res.Bytes)
	}
	start := time.Now()
	m.Close()
	deadline := time.Now().Add(3 * time.Second)
	for alive(child) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(child) {
		t.Fatal("the server's child outlived Close")
	}
	if d := time.Since(start); d > 4*time.Second { // a real clock: the 2 s stop grace, and as much again for a loaded machine
		t.Errorf("Close took %s", d)
	}
	if _, err := m.Call(context.Background(), "t", "echo", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("a closed manager must refuse: %v", err)
	}
}

func TestManager_http_server_gets_resolved_headers(t *testing.T) {
	t.Setenv("TANDEM_TEST_HTTP_TOKEN", "tok-123")
	var sawAuth atomic.Value
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcptest.New() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAuth.Store(r.Header.Get("Authorization"))
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	m := newManager(t, Options{}, Def{Name: "web", Type: "http", URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer ${env:TANDEM_TEST_HTTP_TOKEN}"}})
	res, err := m.Call(context.Background(), "web", "echo", json.RawMessage(`{"message":"over http"}`))
	if err != nil || string(res.Bytes) != "over http" {
		t.Fatalf("%q %v", res.Bytes, err)
	}
	if got := sawAuth.Load(); got != "Bearer tok-123" {
		t.Errorf("Authorization = %v", got)
	}
	tools, err := m.Tools(context.Background(), "web")
	if err != nil || len(tools) != 6 {
		t.Fatalf("tools = %d, %v", len(tools), err)
	}
}

func TestManager_sse_server_gets_resolved_headers(t *testing.T) {
	t.Setenv("TANDEM_TEST_SSE_TOKEN", "tok-sse")
	var sawAuth atomic.Value
	h := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return mcptest.New() }, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAuth.Store(r.Header.Get("Authorization"))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close) // after the manager's: the stream is open until it closes
	c := Load(nil, json.RawMessage(`{"old": {"type": "sse", "url": "`+srv.URL+`", "headers": {"Authorization": "Bearer ${TANDEM_TEST_SSE_TOKEN}"}}}`), "settings")
	m := newManager(t, Options{}, c.Servers["old"])
	res, err := m.Call(context.Background(), "old", "echo", json.RawMessage(`{"message":"over sse"}`))
	if err != nil || string(res.Bytes) != "over sse" {
		t.Fatalf("%q %v", res.Bytes, err)
	}
	if got := sawAuth.Load(); got != "Bearer tok-sse" {
		t.Errorf("Authorization = %v", got)
	}
}

func TestResultBytes_decodes_each_content_kind(t *testing.T) {
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "a"},
		&mcp.ImageContent{Data: []byte{0x89, 'P', 'N', 'G'}, MIMEType: "image/png"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "x:y", Blob: []byte{1, 2}}},
		&mcp.ResourceLink{URI: "file:///z"},
	}}
	b, err := ResultBytes(res)
	if err != nil || string(b) != "a\ndata:image/png;base64,iVBORw==\ndata:;base64,AQI=\nfile:///z" {
		t.Fatalf("%q %v", b, err)
	}
	b, err = ResultBytes(&mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: []byte{0, 1}, MIMEType: "audio/wav"}}})
	if err != nil || string(b) != "\x00\x01" {
		t.Fatalf("the only item is its bytes: %q %v", b, err)
	}
	b, _ = ResultBytes(&mcp.CallToolResult{StructuredContent: map[string]int{"n": 1}, Content: []mcp.Content{&mcp.TextContent{Text: "ignored"}}})
	if string(b) != `{"n":1}` {
		t.Fatalf("structured content wins: %q", b)
	}
}

// An editor's server is checked as a file's entry is, and its values are
// final: a ${…} in them is passed as is, and it runs in the session's
// folder.
func TestClientServerIsLiteral(t *testing.T) {
	d, err := Client(Def{Name: "ed", Type: "stdio", Command: "srv", Args: []string{"${NOT_SET_ANYWHERE}"}, Env: map[string]string{"K": "${env:NOPE}"}}, "/w")
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.resolve()
	if err != nil || r.args[0] != "${NOT_SET_ANYWHERE}" || r.env[0] != "K=${env:NOPE}" || r.cwd != "/w" || d.Workspace {
		t.Errorf("resolved %+v, %v", r, err)
	}
	for _, bad := range []Def{{Name: "a/b", Type: "stdio", Command: "x"}, {Name: "s", Type: "sse", URL: "http://h"}, {Name: "e", Type: "stdio"}} {
		if _, err := Client(bad, "/w"); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// frames keeps JSON-RPC lines whole, short and long, and drops the rest,
// long ones included, naming each dropped line once.
func TestFrames_pass_messages_and_drop_the_rest(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	reply := `{"jsonrpc":"2.0","id":2,"result":{"s":"` + long + `"}}` + "\n"
	in := "Server v1 ready\n\n" + long + "\n" +
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\r\n" +
		`{"level":"info","msg":"hi"}` + "\n" +
		"[2026-01-01] INFO listening\n" +
		reply +
		`{"jsonrpc":"2.0","method":"notifications/x"}` // the last line, without a newline
	var skipped []string
	f := &frames{r: bufio.NewReaderSize(strings.NewReader(in), 64<<10), c: io.NopCloser(nil), skipped: func(l []byte) {
		skipped = append(skipped, string(l[:min(len(l), 20)]))
	}}
	out, err := io.ReadAll(f)
	want := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\r\n" + reply + `{"jsonrpc":"2.0","method":"notifications/x"}`
	if err != nil || string(out) != want {
		t.Fatalf("passed %d bytes (%v), want %d:\n%.200q", len(out), err, len(want), out)
	}
	if got := strings.Join(skipped, "|"); got != `Server v1 ready
|xxxxxxxxxxxxxxxxxxxx|{"level":"info","msg|[2026-01-01] INFO li` {
		t.Errorf("skipped: %q", got)
	}
}

// A definition's keys are the variables of tandem's environment its env,
// headers, args and url hand the server, in every reference form; its plain
// environment, workspace references and literal values are none.
func TestEnvKeysAreWhatTheServerIsHanded(t *testing.T) {
	d := Def{
		Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "${GH_PAT_WORK}", "API": "${env:SEARCH_API}", "X": "${OPT:-none}",
			"PATH": "${PATH}:/opt/bin", "ROOT": "${workspaceFolder}/x", "LITERAL": "plain", "LOCALE": "${LC_ALL}"},
		Headers: map[string]string{"Authorization": "Bearer ${env:SENTRY_AUTH}", "X-Also": "${GH_PAT_WORK}"},
		Args:    []string{"--header", "Authorization:${ARG_AUTH}", "--home", "${HOME}/x"},
		URL:     "https://example.com/mcp?key=${URL_KEY}",
	}
	got := strings.Join(d.EnvKeys(), " ")
	if want := "ARG_AUTH GH_PAT_WORK OPT SEARCH_API SENTRY_AUTH URL_KEY"; got != want {
		t.Errorf("EnvKeys = %q, want %q", got, want)
	}
}
