package bridge

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/bridge/core"
	"github.com/tandemdev/tandem/internal/mcptest"
	"github.com/tandemdev/tandem/mcpclient"
)

// logs records the bridge's log lines and, at the end of the test, checks
// that no token any registration handed out appears in one.
type logs struct {
	mu     sync.Mutex
	lines  []string
	tokens []string
	added  chan struct{} // closed, and replaced, at each new line
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	if l.added != nil {
		close(l.added)
		l.added = nil
	}
	l.mu.Unlock()
}

func (l *logs) has(sub string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// waitFor waits until a line holds sub, looking again at each new line.
func (l *logs) waitFor(t *testing.T, sub string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		l.mu.Lock()
		if l.added == nil {
			l.added = make(chan struct{})
		}
		added := l.added // taken before the look: a line logged after it closes this
		l.mu.Unlock()
		if l.has(sub) {
			return
		}
		select {
		case <-added:
		case <-timeout:
			l.mu.Lock()
			defer l.mu.Unlock()
			t.Fatalf("no log line with %q; lines: %q", sub, l.lines)
		}
	}
}

func TestMain(m *testing.M) {
	mcptest.ServeIfAsked()
	if path := os.Getenv("TANDEM_TEST_DIAL_PEER"); path != "" {
		// A process sending a request without a token (see the peer test).
		h, _, err := Send(context.Background(), Env{Socket: path}, Request{Op: OpList})
		switch {
		case err != nil:
			fmt.Fprintln(os.Stderr, err)
			os.Exit(8)
		case h.Status == StatusOK:
			os.Exit(0)
		case h.Status == StatusUnknownUser:
			os.Exit(9)
		}
		os.Exit(10)
	}
	if path := os.Getenv("TANDEM_TEST_DIAL"); path != "" {
		// Another user's process trying the socket (see the security test).
		c, err := net.Dial("unix", path)
		switch {
		case err == nil:
			c.Close()
			os.Exit(0)
		case errors.Is(err, syscall.EACCES):
			os.Exit(7)
		}
		fmt.Fprintln(os.Stderr, err)
		os.Exit(8)
	}
	os.Exit(m.Run())
}

// stdioServer runs this test binary as the test MCP server: a real child
// process, one pipe, no connection pool.
func stdioServer(t testing.TB) mcpclient.Def {
	return mcpclient.Def{Name: "t", Type: "stdio", Command: os.Args[0], Source: "test",
		Env: map[string]string{mcptest.EnvServe: "1"}, Root: t.TempDir()}
}

// inProcessServer is the go-sdk's own server over HTTP in this process: the
// fast way to give the bridge a real MCP server.
func inProcessServer(t testing.TB) mcpclient.Def {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcptest.New() }, nil)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return mcpclient.Def{Name: "t", Type: "http", URL: srv.URL, Source: "test"}
}

type fixture struct {
	b    *Bridge
	logs *logs
}

func newFixture(t *testing.T, set Settings, defs ...mcpclient.Def) *fixture {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if len(defs) == 0 {
		defs = []mcpclient.Def{inProcessServer(t)}
	}
	cfg := mcpclient.Config{Servers: map[string]mcpclient.Def{}}
	for _, d := range defs {
		cfg.Servers[d.Name] = d
	}
	l := &logs{}
	b, err := New(mcpclient.NewManager(cfg, mcpclient.Options{}), set, l.logf)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{b: b, logs: l}
	t.Cleanup(func() {
		b.Close()
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, line := range l.lines {
			for _, tok := range l.tokens {
				if strings.Contains(line, tok) {
					t.Errorf("a token appears in the log line %q", line)
				}
			}
		}
	})
	return f
}

func (f *fixture) owner(t *testing.T, a approvals.Asker) (*Registration, Env) {
	t.Helper()
	reg, err := f.b.AddOwner(Owner{Session: "s1", Asker: a})
	if err != nil {
		t.Fatal(err)
	}
	env := Env{}
	for _, kv := range reg.Env() {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case EnvSocket:
			env.Socket = v
		case EnvToken:
			env.Token = v
		}
	}
	if env.Socket == "" || env.Token == "" {
		t.Fatalf("registration env = %v", reg.Env())
	}
	f.logs.mu.Lock()
	f.logs.tokens = append(f.logs.tokens, env.Token)
	f.logs.mu.Unlock()
	return reg, env
}

var allow = approvals.AskerFunc(func(context.Context, approvals.Question) approvals.Answer { return approvals.AllowOnce })

func call(t *testing.T, env Env, tool, args string) (Header, []byte) {
	t.Helper()
	h, body, err := Send(context.Background(), env, Request{Op: OpCall, Tool: tool, Args: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return h, body
}

func TestBridge_calls_a_tool_and_returns_the_whole_result(t *testing.T) {
	f := newFixture(t, Settings{})
	_, env := f.owner(t, allow)
	h, body := call(t, env, "t/echo", `{"message":"hi"}`)
	if h.Status != StatusOK || string(body) != "hi" {
		t.Fatalf("echo: %+v %q", h, body)
	}
	h, body = call(t, env, "t/big", `{"bytes":10485760}`)
	if h.Status != StatusOK || string(body) != string(mcptest.Big(10<<20)) {
		t.Fatalf("a 10 MiB result must arrive byte for byte: %+v, %d bytes", h, len(body))
	}
	h, body = call(t, env, "t/fail", `{}`)
	if h.Status != StatusToolError || !strings.Contains(string(body), "failed on purpose") || strings.Contains(h.Reason, "failed on purpose") {
		t.Fatalf("a tool error carries its text as the body, never in the reason: %+v %q", h, body)
	}
	h, _ = call(t, env, "t/nope", `{}`)
	if h.Status != StatusInvalid || !strings.Contains(h.Reason, "tandem mcp list") {
		t.Fatalf("an unknown tool is a usage error naming the next step: %+v", h)
	}
	h, _ = call(t, env, "t/echo", `[1]`)
	if h.Status != StatusInvalid {
		t.Fatalf("arguments that are not an object: %+v", h)
	}
	h, body, err := Send(context.Background(), env, Request{Op: OpList})
	if err != nil || h.Status != StatusOK {
		t.Fatal(h, err)
	}
	var lr ListReply
	if err := json.Unmarshal(body, &lr); err != nil || len(lr.Tools) != 6 || lr.Tools[0].Server != "t" {
		t.Fatalf("list: %s %v", body, err)
	}
}

func TestBridge_socket_dir_is_private_unique_and_removed_with_the_last_owner(t *testing.T) {
	f := newFixture(t, Settings{})
	r1, env := f.owner(t, allow)
	r2, env2 := f.owner(t, allow)
	dir := filepath.Dir(env.Socket)
	if env2.Socket != env.Socket || env2.Token == env.Token {
		t.Fatal("owners share the socket and never a token")
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket dir mode = %v, %v", fi.Mode(), err)
	}
	if !strings.HasPrefix(dir, os.Getenv("XDG_RUNTIME_DIR")) {
		t.Errorf("the socket must live under $XDG_RUNTIME_DIR: %s", dir)
	}
	other := newFixture(t, Settings{})
	_, envOther := other.owner(t, allow)
	if filepath.Dir(envOther.Socket) == dir {
		t.Fatal("two bridges share a socket directory")
	}
	r1.Revoke()
	if _, err := os.Stat(env.Socket); err != nil {
		t.Fatal("the socket must stay while an owner is in force")
	}
	r2.Revoke()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the socket dir must go with the last owner: %v", err)
	}
	_, env3 := f.owner(t, allow)
	if filepath.Dir(env3.Socket) == dir {
		t.Fatal("a new first owner gets a new directory")
	}
}

func TestBridge_refusals_leak_nothing_to_strangers(t *testing.T) {
	f := newFixture(t, Settings{})
	reg, env := f.owner(t, allow)
	stranger := Env{Socket: env.Socket, Token: strings.Repeat("ab", 32)}

	// A wrong token is unauthorized, whatever its version.
	for _, v := range []int{WireVersion, WireVersion + 1} {
		h := rawRequest(t, env.Socket, Request{Version: v, Token: stranger.Token, Op: OpCall, Tool: "t/echo"})
		if h.Status != StatusUnknownUser {
			t.Fatalf("version %d with a wrong token: %+v", v, h)
		}
	}
	// A right token with another version learns the version.
	h := rawRequest(t, env.Socket, Request{Version: WireVersion + 1, Token: env.Token, Op: OpCall, Tool: "t/echo"})
	if h.Status != StatusVersion {
		t.Fatalf("another version with a good token: %+v", h)
	}
	// A token from an ended owner is refused.
	reg.Revoke()
	keep, _ := f.owner(t, allow) // keeps the socket up
	defer keep.Revoke()
	h = rawRequest(t, keep.b.socketPathLocked(), Request{Version: WireVersion, Token: env.Token, Op: OpCall, Tool: "t/echo", Args: json.RawMessage(`{"message":"x"}`)})
	if h.Status != StatusUnknownUser {
		t.Fatalf("a revoked token: %+v", h)
	}
}

func (b *Bridge) socketPathLocked() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.socketPath()
}

// rawRequest sends a request line as given (version and token included).
func rawRequest(t *testing.T, socket string, req Request) Header {
	t.Helper()
	line, _ := json.Marshal(req)
	return rawLine(t, socket, append(line, '\n'))
}

func rawLine(t *testing.T, socket string, line []byte) Header {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go c.Write(line)
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	hl, err := readLine(bufio.NewReader(c), MaxHeaderLine)
	if err != nil {
		t.Fatalf("no reply header: %v", err)
	}
	var h Header
	if err := json.Unmarshal(hl, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestBridge_permission_decides_every_call(t *testing.T) {
	var asked atomic.Int32
	var lastQ atomic.Value
	var answer atomic.Value // the socket orders it, but the race detector cannot see that
	answer.Store(approvals.Deny)
	asker := approvals.AskerFunc(func(_ context.Context, q approvals.Question) approvals.Answer {
		asked.Add(1)
		lastQ.Store(q)
		return answer.Load().(approvals.Answer)
	})
	f := newFixture(t, Settings{AutoAllow: []string{"t/fail"}})
	_, env := f.owner(t, asker)

	h, body := call(t, env, "t/echo", `{"message":"secret-arg"}`)
	if h.Status != StatusDenied || len(body) != 0 || !strings.HasSuffix(h.Reason, "unless the user asks for it.") {
		t.Fatalf("a denial: %+v %q", h, body)
	}
	q := lastQ.Load().(approvals.Question)
	if q.Kind != approvals.KindMCP || q.Session != "s1" || !strings.Contains(q.Steps[0].Text, "t/echo") || !strings.Contains(q.Steps[0].Text, "secret-arg") {
		t.Fatalf("the question must name the tool and its arguments: %+v", q)
	}
	answer.Store(approvals.Unanswered)
	if h, _ := call(t, env, "t/echo", `{"message":"x"}`); h.Status != StatusDenied || !strings.Contains(h.Reason, "No one could answer") {
		t.Fatalf("no answer is a denial: %+v", h)
	}
	n := asked.Load()
	if h, _ := call(t, env, "t/fail", `{}`); h.Status != StatusToolError || asked.Load() != n {
		t.Fatalf("an auto-allowed tool runs unasked: %+v", h)
	}
	answer.Store(approvals.AllowSession)
	call(t, env, "t/echo", `{"message":"a"}`)
	n = asked.Load()
	if h, body := call(t, env, "t/echo", `{"message":"b"}`); h.Status != StatusOK || string(body) != "b" || asked.Load() != n {
		t.Fatalf("allow for this session must not ask again: %+v", h)
	}
	// Another session's owner is asked again.
	reg, err := f.b.AddOwner(Owner{Session: "s2", Asker: asker})
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Revoke()
	env2 := envOf(reg)
	f.logs.mu.Lock()
	f.logs.tokens = append(f.logs.tokens, env2.Token)
	f.logs.mu.Unlock()
	answer.Store(approvals.Deny)
	if h, _ := call(t, env2, "t/echo", `{"message":"c"}`); h.Status != StatusDenied {
		t.Fatalf("an allow for one session must not reach another: %+v", h)
	}
}

func envOf(r *Registration) Env {
	var e Env
	for _, kv := range r.Env() {
		k, v, _ := strings.Cut(kv, "=")
		if k == EnvSocket {
			e.Socket = v
		} else if k == EnvToken {
			e.Token = v
		}
	}
	return e
}

func TestBridge_client_killed_while_prompt_waits_withdraws_it(t *testing.T) {
	withdrawn := make(chan struct{})
	asking := make(chan struct{})
	asker := approvals.AskerFunc(func(ctx context.Context, q approvals.Question) approvals.Answer {
		close(asking)
		select {
		case <-ctx.Done():
			close(withdrawn)
		case <-time.After(10 * time.Second): // never withdrawn: let the test fail, not hang
		}
		return approvals.Unanswered
	})
	f := newFixture(t, Settings{})
	_, env := f.owner(t, asker)
	c := sendOnly(t, env, "t/echo", `{"message":"x"}`)
	<-asking
	c.Close()
	select {
	case <-withdrawn:
	case <-time.After(5 * time.Second):
		t.Fatal("the prompt was not withdrawn when its client went away")
	}
	waitHeld(t, f.b, 0)
}

func TestBridge_client_killed_while_call_runs_cancels_it(t *testing.T) {
	f := newFixture(t, Settings{AutoAllow: []string{"t/*"}})
	_, env := f.owner(t, allow)
	cancelled, seen := mcptest.Await(t)
	c := sendOnly(t, env, "t/sleep", `{"millis":30000,"cancelled":`+strconv.Quote(cancelled)+`}`)
	waitStage(t, f.b, 0, "calling")
	start := time.Now()
	c.Close()
	f.logs.waitFor(t, "id=0 kind=result_dropped")
	if d := time.Since(start); d > 5*time.Second { // a real clock, far under the call's 30 s
		t.Fatalf("the call was not cancelled: it ended after %s", d)
	}
	select {
	case <-seen:
	case <-time.After(10 * time.Second):
		t.Fatal("the server's call was not cancelled")
	}
	waitHeld(t, f.b, 0)
}

func TestBridge_client_killed_while_reply_is_written_logs_reply_lost(t *testing.T) {
	f := newFixture(t, Settings{AutoAllow: []string{"t/*"}})
	_, env := f.owner(t, allow)
	c := sendOnly(t, env, "t/big", `{"bytes":12582912}`)
	r := bufio.NewReader(c)
	if _, err := readLine(r, MaxHeaderLine); err != nil { // the reply started
		t.Fatal(err)
	}
	c.Close()
	f.logs.waitFor(t, "id=0 kind=reply_lost")
	waitHeld(t, f.b, 0)
}

// sendOnly sends a call's request line and returns the open connection.
func sendOnly(t *testing.T, env Env, tool, args string) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", env.Socket)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(Request{Version: WireVersion, Token: env.Token, Op: OpCall, Tool: tool, Args: json.RawMessage(args)})
	if _, err := c.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	return c
}

func waitHeld(t *testing.T, b *Bridge, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mu.Lock()
		held, reqs := b.st.Held(), len(b.reqs)
		b.mu.Unlock()
		if held == n && reqs == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("held %d requests (%d in the shell), want %d", held, reqs, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitStage(t *testing.T, b *Bridge, id uint64, stage string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mu.Lock()
		st := b.st.Stage(core.RequestID(id)).String()
		b.mu.Unlock()
		if st == stage {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("request %d is %s, want %s", id, st, stage)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBridge_garbage_oversized_slow_and_second_lines(t *testing.T) {
	f := newFixture(t, Settings{AutoAllow: []string{"t/*"}})
	_, env := f.owner(t, allow)
	if h := rawLine(t, env.Socket, []byte("not json\n")); h.Status != StatusInvalid {
		t.Fatalf("garbage: %+v", h)
	}
	f.logs.waitFor(t, "kind=bad_line")
	big := append([]byte(`{"v":1,"args":"`), make([]byte, MaxRequestLine)...)
	for i := 15; i < len(big); i++ {
		big[i] = 'a'
	}
	if h := rawLine(t, env.Socket, big); h.Status != StatusInvalid {
		t.Fatalf("oversized: %+v", h)
	}
	f.logs.waitFor(t, "kind=line_too_long")

	f.b.mu.Lock()
	f.b.readLimit = 200 * time.Millisecond
	f.b.mu.Unlock()
	if h := rawLine(t, env.Socket, []byte(`{"v":1`)); h.Status != StatusInvalid {
		t.Fatalf("slow line: %+v", h)
	}
	f.logs.waitFor(t, "kind=read_timeout")

	c, err := net.Dial("unix", env.Socket)
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(Request{Version: WireVersion, Token: env.Token, Op: OpCall, Tool: "t/sleep", Args: json.RawMessage(`{"millis":30000}`)})
	c.Write(append(append(line, '\n'), "second line\n"...))
	f.logs.waitFor(t, "kind=second_line")
	if _, err := readLine(bufio.NewReader(c), MaxHeaderLine); err == nil {
		t.Fatal("a second line must close the connection without a reply")
	}
	c.Close()
	waitHeld(t, f.b, 0)
	// The bridge still serves.
	if h, body := call(t, env, "t/echo", `{"message":"still"}`); h.Status != StatusOK || string(body) != "still" {
		t.Fatalf("after bad input: %+v %q", h, body)
	}
}

func countFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func TestBridge_100_callers_against_capacity_8_excess_busy_nothing_leaks(t *testing.T) {
	f := newFixture(t, Settings{AutoAllow: []string{"t/*"}}, stdioServer(t))
	_, env := f.owner(t, allow)
	call(t, env, "t/echo", `{"message":"warm"}`) // connect the server first
	runtime.GC()
	baseG, baseFD := runtime.NumGoroutine(), countFDs(t)

	var ok, busy atomic.Int32
	var slowBusy atomic.Int64
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			h, _, err := Send(context.Background(), env, Request{Op: OpCall, Tool: "t/sleep", Args: json.RawMessage(`{"millis":1500}`)})
			switch {
			case err != nil:
				t.Error(err)
			case h.Status == StatusOK:
				ok.Add(1)
			case h.Status == StatusBusy:
				busy.Add(1)
				if d := time.Since(start); d > time.Second { // a queued request would wait about the 1.5 s of a running call
					slowBusy.Store(int64(d))
				}
			default:
				t.Errorf("unexpected status %+v", h)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 8 || busy.Load() != 92 {
		t.Fatalf("ok %d, busy %d; want exactly 8 running and 92 refused busy", ok.Load(), busy.Load())
	}
	if d := time.Duration(slowBusy.Load()); d != 0 {
		t.Fatalf("a busy refusal waited %s: requests must not queue", d)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		g, fd := runtime.NumGoroutine(), countFDs(t)
		if g <= baseG+2 && fd <= baseFD {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines %d (baseline %d), fds %d (baseline %d)", g, baseG, fd, baseFD)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestBridge_stale_socket_dirs_of_dead_processes_are_swept(t *testing.T) {
	live := newFixture(t, Settings{})
	_, liveEnv := live.owner(t, allow)
	base := os.Getenv("XDG_RUNTIME_DIR")
	dead := filepath.Join(base, "tandem-mcp-dead")
	if err := os.Mkdir(dead, 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(dead, "s"))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // the socket file stays and nobody listens: a killed process's leftover

	b, err := New(mcpclient.NewManager(mcpclient.Config{}, mcpclient.Options{}), Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	r, err := b.AddOwner(Owner{Session: "x"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Revoke()
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("the dead process's socket dir must be swept: %v", err)
	}
	if _, err := os.Stat(liveEnv.Socket); err != nil {
		t.Fatalf("a live bridge's socket must stay: %v", err)
	}
	if h, body := call(t, liveEnv, "t/echo", `{"message":"alive"}`); h.Status != StatusOK || string(body) != "alive" {
		t.Fatalf("the live bridge must still serve: %+v", h)
	}
}

// copyForOtherUser is a copy of this test binary that another user may
// run, in a directory removed when t ends.
func copyForOtherUser(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "other-user")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "dial")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

// The socket directory's 0700 mode keeps every other user out: a process
// of another uid cannot even reach the socket to try a token. Switching
// uid needs root; elsewhere the mode check of the directory test stands.
func TestBridge_another_users_process_cannot_connect(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("running a process as another user needs root")
	}
	f := newFixture(t, Settings{})
	_, env := f.owner(t, allow)
	bin := copyForOtherUser(t)
	run := func(uid uint32) int {
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "TANDEM_TEST_DIAL="+env.Socket)
		if uid != 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		}
		out, _ := cmd.CombinedOutput()
		if cmd.ProcessState == nil {
			t.Fatalf("could not run the dialer: %s", out)
		}
		return cmd.ProcessState.ExitCode()
	}
	if code := run(0); code != 0 {
		t.Fatalf("the owner's own user must connect: exit %d", code)
	}
	if code := run(65534); code != 7 {
		t.Fatalf("another user's process: exit %d, want 7 (permission denied)", code)
	}
}

// A request without a token is admitted as the ByPeer owner's (the
// discovery entries', which hold no token) only when the kernel names its
// sender a process of this user, only while that owner is in force, and a
// bridge has one such owner at most.
func TestBridge_peer_owner_admits_only_this_users_processes(t *testing.T) {
	f := newFixture(t, Settings{})
	_, env := f.owner(t, allow)
	tokenless := Env{Socket: env.Socket}
	list := func() Status {
		t.Helper()
		h, _, err := Send(context.Background(), tokenless, Request{Op: OpList})
		if err != nil {
			t.Fatal(err)
		}
		return h.Status
	}
	if st := list(); st != StatusUnknownUser {
		t.Fatalf("no peer owner, a request without a token: %s", st)
	}
	peer, err := f.b.AddOwner(Owner{Session: "discovered", Asker: allow, ByPeer: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.b.AddOwner(Owner{Session: "second", ByPeer: true}); !errors.Is(err, ErrSecondPeerOwner) {
		t.Fatalf("a second peer owner: %v", err)
	}
	if st := list(); st != StatusOK {
		t.Fatalf("this user's process: %s", st)
	}
	if h, _, _ := Send(context.Background(), Env{Socket: env.Socket, Token: strings.Repeat("0", 2*core.TokenSize)}, Request{Op: OpList}); h.Status != StatusUnknownUser {
		t.Fatalf("a wrong token is not a missing one: %s", h.Status)
	}
	if os.Getuid() == 0 {
		// Let another user reach the socket, to test the credential check
		// behind the directory's mode.
		for d := f.b.SocketDir(); d != "/"; d = filepath.Dir(d) {
			if fi, err := os.Stat(d); err == nil && fi.Mode().Perm()&0o001 == 0 {
				if err := os.Chmod(d, fi.Mode().Perm()|0o011); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := os.Chmod(env.Socket, 0o777); err != nil {
			t.Fatal(err)
		}
		bin := copyForOtherUser(t)
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "TANDEM_TEST_DIAL_PEER="+env.Socket)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != 9 {
			t.Fatalf("another user's process without a token: %v, want exit 9 (unauthorized): %s", cmd.ProcessState, out)
		}
	}
	peer.Revoke()
	if st := list(); st != StatusUnknownUser {
		t.Fatalf("after the peer owner's revoke: %s", st)
	}
	if _, err := f.b.AddOwner(Owner{Session: "again", ByPeer: true}); err != nil {
		t.Fatalf("a peer owner after the first one's revoke: %v", err)
	}
}
