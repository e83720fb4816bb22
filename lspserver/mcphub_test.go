package lspserver

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tandemdev/tandem/internal/mcptest"
)

// everythingServer is the path of @modelcontextprotocol/server-everything,
// which scripts/setup installs into .deps/mcp. Its absence fails the test:
// `make test` runs the setup first, so missing means the setup is broken.
func everythingServer(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../.deps/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the MCP test server is not installed (%v); run scripts/setup (make test runs it first)", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is not on PATH; the MCP test server needs it: %v", err)
	}
	return p
}

// bridgeWorkspace is a workspace whose .mcp.json names the everything
// server, with private runtime, config and PATH settings for the server
// process the test starts next.
func bridgeWorkspace(t *testing.T) string {
	t.Helper()
	t.Setenv("TANDEM_TEST_EVERYTHING", everythingServer(t))
	// A short runtime dir: a socket path must fit in 108 bytes.
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	t.Setenv("XDG_RUNTIME_DIR", rt)
	t.Setenv("PATH", filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	root := t.TempDir()
	fixture, err := os.ReadFile("../testdata/mcp/everything.mcp.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".mcp.json"), fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// questions answers every approval question with answer and records it.
type questions struct {
	mu     sync.Mutex
	asked  []askParams
	answer string
}

func (q *questions) serve(p *proc) {
	p.onRequest(func(method string, params json.RawMessage) any {
		if method != "tandem/askApproval" {
			return nil
		}
		var a askParams
		_ = json.Unmarshal(params, &a)
		q.mu.Lock()
		defer q.mu.Unlock()
		q.asked = append(q.asked, a)
		return map[string]any{"answer": q.answer}
	})
}

func (q *questions) texts() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []string
	for _, a := range q.asked {
		out = append(out, a.Steps[0].Text)
	}
	return out
}

var richApprovals = map[string]any{"experimental": map[string]any{"tandem": map[string]any{"approvals": true}}}

func terminalEnv(t *testing.T, p *proc) map[string]string {
	t.Helper()
	var res struct{ Env map[string]string }
	p.ok("tandem/terminalEnv", map[string]any{}, &res)
	if res.Env["TANDEM_MCP_SOCKET"] == "" || res.Env["TANDEM_MCP_TOKEN"] == "" {
		t.Fatalf("terminalEnv = %v", res.Env)
	}
	return res.Env
}

// client runs the real `tandem mcp call` (or list) as a terminal would,
// with env added to the test's environment.
func client(t *testing.T, env map[string]string, stdout io.Writer, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	err := cmd.Run()
	if err != nil && cmd.ProcessState == nil {
		t.Fatal(err)
	}
	return stderr.String(), cmd.ProcessState.ExitCode()
}

// payload serves n seeded random bytes over HTTP for the everything
// server's gzip tool to fetch: incompressible, so its result is as large.
func payload(t *testing.T, n int) (string, []byte) {
	data := make([]byte, n)
	rand.New(rand.NewSource(5)).Read(data)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write(data) })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/payload", data
}

func gunzip(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s is not a whole gzip file: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s is cut short: %v", path, err)
	}
	return b
}

func TestBridgeE2E_terminal_and_bash_call_a_real_MCP_server(t *testing.T) {
	root := bridgeWorkspace(t)
	p := startLSP(t)
	q := &questions{answer: "allow_once"}
	q.serve(p)
	p.initialize(t, root, richApprovals)
	env := terminalEnv(t, p)

	// The integrated terminal: a real client process.
	var out bytes.Buffer
	stderr, code := client(t, env, &out, "mcp", "call", "everything/echo", `{"message":"hi"}`)
	if code != 0 || out.String() != "Echo: hi" {
		t.Fatalf("echo from the terminal: exit %d, stdout %q, stderr %q", code, out.String(), stderr)
	}
	asked := q.texts()
	if len(asked) != 2 || !strings.HasPrefix(asked[0], "start MCP server everything from "+filepath.Join(root, ".mcp.json")) ||
		!strings.Contains(asked[1], "everything/echo") || !strings.Contains(asked[1], `{"message":"hi"}`) {
		t.Fatalf("want the server start, then the tool call, asked: %q", asked)
	}
	// The terminal's command is the user's, not the agent's.
	q.mu.Lock()
	who := q.asked[1].Who
	q.mu.Unlock()
	if who != "a command in the editor's terminal" {
		t.Fatalf("the terminal's call is asked as %q", who)
	}
	out.Reset()
	if stderr, code = client(t, env, &out, "mcp", "list"); code != 0 || !strings.Contains(out.String(), "everything/echo") {
		t.Fatalf("list: exit %d %q %q", code, out.String(), stderr)
	}

	// A large result, redirected to a file, byte for byte.
	url, data := payload(t, 4<<20)
	file := filepath.Join(t.TempDir(), "out.gz")
	f, _ := os.Create(file)
	stderr, code = client(t, env, f, "mcp", "call", "everything/gzip-file-as-resource",
		fmt.Sprintf(`{"name":"big.gz","data":%q,"outputType":"resource"}`, url))
	f.Close()
	if code != 0 {
		t.Fatalf("gzip: exit %d, stderr %q", code, stderr)
	}
	if got := gunzip(t, file); !bytes.Equal(got, data) {
		t.Fatalf("the redirected result is not the server's output: %d bytes, want %d", len(got), len(data))
	}

	// A bash step of an agent session: its own owner, its own questions.
	sess := p.openSession(t)
	script := fmt.Sprintf(`tandem mcp call everything/echo '{"message":"from bash"}'; echo
env; printenv TANDEM_MCP_TOKEN; echo "token: $TANDEM_MCP_TOKEN"
printf %%s "$TANDEM_MCP_TOKEN" > token
tandem mcp call everything/gzip-file-as-resource '{"name":"b.gz","data":"%s","outputType":"resource"}' > big.gz
echo "exit $? size $(wc -c < big.gz)"`, url)
	text, isErr := p.tool(sess, "bash", map[string]any{"command": script})
	if isErr || !strings.Contains(text, "Echo: from bash") || !strings.Contains(text, "exit 0 size") {
		t.Fatalf("bash: %v\n%s", isErr, text)
	}
	if len(text) > 8<<10 {
		t.Fatalf("the model saw %d bytes; the large result must stay in the file", len(text))
	}
	if got := gunzip(t, filepath.Join(root, "big.gz")); !bytes.Equal(got, data) {
		t.Fatalf("the bash step's file is not the server's output")
	}
	q.mu.Lock()
	last := q.asked[len(q.asked)-1]
	q.mu.Unlock()
	if last.Session != sess || last.Kind != "mcp" || last.Who != "" {
		t.Fatalf("the bash step's question must be its session's: %+v", last)
	}

	// The ended bash call's token is refused; the terminal's still works.
	tok, err := os.ReadFile(filepath.Join(root, "token"))
	if err != nil || len(tok) != 64 {
		t.Fatalf("token file: %q %v", tok, err)
	}
	// The step had the token; the model sees it nowhere, only its marker.
	if strings.Contains(text, string(tok)) || !strings.Contains(text, "TANDEM_MCP_TOKEN=[hidden: $TANDEM_MCP_TOKEN]") ||
		!strings.Contains(text, "token: [hidden: $TANDEM_MCP_TOKEN]") {
		t.Fatalf("the bash result shows the bridge token, or no marker for it:\n%s", text)
	}
	old := map[string]string{"TANDEM_MCP_SOCKET": env["TANDEM_MCP_SOCKET"], "TANDEM_MCP_TOKEN": string(tok)}
	out.Reset()
	stderr, code = client(t, old, &out, "mcp", "call", "everything/echo", `{"message":"late"}`)
	if code != 3 || !strings.Contains(stderr, "unauthorized") || out.Len() != 0 {
		t.Fatalf("an ended bash call's token: exit %d, stderr %q", code, stderr)
	}

	// A denial is exit 5 and runs nothing.
	q.mu.Lock()
	q.answer = "reject_once"
	q.mu.Unlock()
	out.Reset()
	stderr, code = client(t, env, &out, "mcp", "call", "everything/echo", `{"message":"no"}`)
	if code != 5 || out.Len() != 0 || !strings.Contains(stderr, "denied") {
		t.Fatalf("a denial: exit %d, stdout %q, stderr %q", code, out.String(), stderr)
	}

	// Tokens never reach the log, and the exit stops the server tandem started.
	servers := childrenNamed(p.cmd.Process.Pid, "node")
	if len(servers) != 1 {
		t.Fatalf("want one running MCP server (node) under tandem, got %v", servers)
	}
	p.ok("shutdown", nil, nil)
	p.notify("exit", nil)
	p.exitStatus(t)
	logText, _ := os.ReadFile(p.log)
	for _, secret := range []string{env["TANDEM_MCP_TOKEN"], string(tok)} {
		if strings.Contains(string(logText), secret) {
			t.Fatal("a token appears in the server log")
		}
	}
	if _, err := os.Stat(filepath.Dir(env["TANDEM_MCP_SOCKET"])); !os.IsNotExist(err) {
		t.Fatalf("the socket dir must be gone after exit: %v", err)
	}
	if running(servers[0]) {
		t.Fatalf("the MCP server (pid %d) outlived tandem", servers[0])
	}
}

// childrenNamed lists the pids of parent's children whose command is comm.
func childrenNamed(parent int, comm string) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …
		open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || close < open {
			continue
		}
		fields := strings.Fields(string(b[close+1:]))
		var pid, ppid int
		fmt.Sscan(string(b[:open]), &pid)
		if len(fields) > 1 {
			fmt.Sscan(fields[1], &ppid)
		}
		if ppid == parent && string(b[open+1:close]) == comm {
			out = append(out, pid)
		}
	}
	return out
}

// running reports whether pid is a live process (not gone, not a zombie).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && len(b) > i+2 && b[i+2] != 'Z'
}

func TestBridgeE2E_tandem_killed_mid_call(t *testing.T) {
	root := bridgeWorkspace(t)
	// The test binary as a server whose sleep tells when it runs.
	servers := `{"mcpServers":{"t":{"command":` + strconv.Quote(os.Args[0]) + `,"env":{"` + mcptest.EnvServe + `":"1"}}}}`
	if err := os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(servers), 0o644); err != nil {
		t.Fatal(err)
	}
	started, sleeping := mcptest.Await(t)
	p := startLSP(t)
	q := &questions{answer: "allow_once"}
	q.serve(p)
	p.initialize(t, root, richApprovals)
	env := terminalEnv(t, p)

	done := make(chan struct{})
	var stderr string
	var code int
	var out bytes.Buffer
	go func() {
		defer close(done)
		stderr, code = client(t, env, &out, "mcp", "call", "t/sleep", `{"millis":30000,"started":`+strconv.Quote(started)+`}`)
	}()
	select { // the call was allowed and runs in the server
	case <-sleeping:
	case <-time.After(20 * time.Second):
		t.Fatalf("the call never started in the server; questions: %q", q.texts())
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not notice the session ended")
	}
	if code == 0 || out.Len() != 0 || !strings.Contains(stderr, "session ended") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), stderr)
	}
	dead := filepath.Dir(env["TANDEM_MCP_SOCKET"])
	if _, err := os.Stat(dead); err != nil {
		t.Fatalf("a killed process leaves its dir behind (the next start sweeps it): %v", err)
	}

	// The next start sweeps the dead one's socket and serves on a new one.
	p2 := startLSP(t)
	q.serve(p2)
	p2.initialize(t, root, richApprovals)
	env2 := terminalEnv(t, p2)
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("the stale socket dir survived the next start: %v", err)
	}
	out.Reset()
	if stderr, code = client(t, env2, &out, "mcp", "call", "t/echo", `{"message":"again"}`); code != 0 || out.String() != "again" {
		t.Fatalf("after a restart: exit %d %q %q", code, out.String(), stderr)
	}
}

// The agent's mcp tool reaches the same MCP servers through the bridge
// with one roster entry: it lists them, and a call is asked like any other
// (the server's start, then the call) and returns the tool's text.
func TestBridgeE2E_the_mcp_tool_lists_and_calls(t *testing.T) {
	root := bridgeWorkspace(t)
	p := startLSP(t)
	q := &questions{answer: "allow_once"}
	q.serve(p)
	p.initialize(t, root, richApprovals)
	sess := p.openSession(t)
	text, isErr := p.tool(sess, "mcp", map[string]any{"action": "call", "tool": "everything/echo", "arguments": map[string]string{"message": "from the agent"}})
	if isErr || text != "Echo: from the agent" {
		t.Fatalf("call: %q (error %v)", text, isErr)
	}
	if asked := q.texts(); len(asked) != 2 || !strings.Contains(asked[1], "everything/echo") {
		t.Fatalf("asked: %q", asked)
	}
	text, isErr = p.tool(sess, "mcp", map[string]any{"action": "list"})
	if isErr || !strings.Contains(text, "everything/echo  ") {
		t.Fatalf("list: %q", text)
	}
	q.answer = "reject_once"
	text, isErr = p.tool(sess, "mcp", map[string]any{"action": "call", "tool": "everything/echo", "arguments": map[string]string{"message": "not-to-be-echoed"}})
	if !isErr || strings.Contains(text, "not-to-be-echoed") || !strings.Contains(text, "denied") {
		t.Fatalf("a denied call: %q (error %v)", text, isErr)
	}
}
