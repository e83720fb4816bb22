package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	acp "github.com/coder/acp-go-sdk"
	"github.com/tandemdev/tandem"
)

var demoCommand = command{
	name:    "demo",
	usage:   "tandem demo",
	summary: "Run a scripted editor and agent session against the bundled sample workspace and show what the agent sees.",
	help: `The demo copies the sample workspace to a temporary directory, starts
"tandem lsp" as an editor would, and speaks the real protocol over its pipes:
it opens the workspace, types into a file without saving, opens an agent
session and calls tools, shell steps among them, and answers as the user the
questions tandem asks in the editor (one denied, the others allowed). It
prints every request and exactly what the agent sees. tandem runs with a
temporary HOME, so nothing of yours is read or changed. It needs no editor,
no network and no API key.`,
	run: runDemo,
}

// demoStep is one scripted exchange of the demo (the list is demoSteps).
type demoStep struct {
	title string // what a first-time user learns from this step
	run   func(d *demo) error
}

// demo is the editor side of the scripted session.
type demo struct {
	ctx     context.Context
	conn    jsonrpc2.Conn
	out     io.Writer
	ws      string         // the workspace copy
	session string         // the agent session, once opened
	retry   map[string]any // the edit steps' refused call, sent again
	home    string         // the temporary HOME of the spawned tandem
	chat    string         // the agent's chat, once opened

	mu        sync.Mutex
	answers   []string                // the user's scripted answers to the next questions, in order
	asked     int                     // questions the editor got that had no scripted answer
	streaming bool                    // the agent's answer is being printed: its line is open
	execute   map[acp.ToolCallId]bool // the agent's shell steps, whose output is shown
}

func runDemo(args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(os.Stderr, "tandem demo: takes no arguments")
		return exitUsage
	}
	if err := demoMain(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tandem demo:", err)
		return exitError
	}
	return exitOK
}

func demoMain(out io.Writer) error {
	tmp, err := os.MkdirTemp("", "tandem-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ws := filepath.Join(tmp, "sample")
	sub, err := fs.Sub(tandem.Sample, "testdata/sample")
	if err != nil {
		return err
	}
	if err := os.CopyFS(ws, sub); err != nil {
		return err
	}
	if err := stampTimes(ws); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	env, err := demoHome(tmp, ws, self)
	if err != nil {
		return err
	}
	model, agentEnv, err := demoAgent(filepath.Join(tmp, "home"), ws)
	if err != nil {
		return err
	}
	defer model.Close()
	env = append(env, agentEnv...)
	cmd := exec.Command(self, "lsp", "--log", filepath.Join(tmp, "lsp.log"))
	cmd.Env = env
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn := jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{stdout, stdin}))
	d := &demo{ctx: ctx, conn: conn, out: out, ws: ws, home: filepath.Join(tmp, "home"), execute: map[acp.ToolCallId]bool{}}
	conn.Go(ctx, d.serve)
	fmt.Fprintf(out, "tandem demo: an editor and an agent working on a copy of the sample workspace\n  %s\n", ws)
	fmt.Fprintf(out, "(tandem runs with HOME=%s, a temporary home, so nothing of yours is read or changed;\nthe copy's .mcp.json names one MCP server: this tandem, as `tandem mcp serve`.)\n", d.home)
	fmt.Fprintf(out, "Every line marked → is a JSON-RPC message the editor sends to `tandem lsp` over stdio;\n← is tandem's answer; the boxed text is exactly what the agent's model sees.\n⇐ is a question tandem sends the editor for the user, ⇒ the editor's reply.\n")
	for i, s := range demoSteps {
		fmt.Fprintf(out, "\n── %d. %s ──\n", i+1, s.title)
		if err := s.run(d); err != nil {
			return fmt.Errorf("step %q: %w", s.title, err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		fmt.Fprintf(out, "\n`tandem lsp` exited with status %d.\n", cmd.ProcessState.ExitCode())
	case <-time.After(10 * time.Second):
		return fmt.Errorf("tandem lsp did not exit after shutdown and exit")
	}
	return nil
}

// stampTimes gives the copied files fixed modification times, a minute
// apart in path order, so "newest first" lists the same order on every run
// (a copy made within one clock tick would tie at random).
func stampTimes(ws string) error {
	t := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	return filepath.WalkDir(ws, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		t = t.Add(time.Minute)
		return os.Chtimes(path, t, t)
	})
}

// demoHome prepares what the spawned `tandem lsp` runs with: a temporary
// HOME (holding a fake key, so the secret steps touch nothing real) and
// private XDG directories (so neither the user's settings nor their
// remembered MCP approvals change what the demo shows); this tandem first on
// PATH, so the agent's shell steps run `tandem mcp call` of the same build;
// and a .mcp.json in the workspace naming this tandem's own MCP server.
func demoHome(tmp, ws, self string) ([]string, error) {
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_demo"), []byte("not a real key: the demo's stand-in for a private key\n"), 0o600); err != nil {
		return nil, err
	}
	mcpJSON, err := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{
		"tandem": map[string]any{"command": self, "args": []string{"mcp", "serve"}},
	}}, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), append(mcpJSON, '\n'), 0o644); err != nil {
		return nil, err
	}
	// The temporary directory is the demo's own too: the system's holds
	// this HOME and its fake key, and the sandbox grants no new names
	// directly in a directory that holds a secret.
	tmpdir := filepath.Join(tmp, "tmp")
	if err := os.MkdirAll(tmpdir, 0o700); err != nil {
		return nil, err
	}
	env := []string{
		"HOME=" + home,
		"TMPDIR=" + tmpdir,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"PATH=" + filepath.Dir(self) + string(filepath.ListSeparator) + os.Getenv("PATH"),
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "PATH":
		default:
			env = append(env, kv)
		}
	}
	return env, nil
}

// serve is the editor's side of tandem's requests and notifications. A
// question (window/showMessageRequest) is shown as the editor gets it and
// answered with the next scripted answer; anything else is accepted.
func (d *demo) serve(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	if req.Method() == "session/update" {
		d.render(req.Params())
		return nil
	}
	if req.Method() != "window/showMessageRequest" {
		return reply(ctx, nil, nil)
	}
	d.endLine()
	var q struct {
		Type    int
		Message string
		Actions []struct{ Title string }
	}
	if err := json.Unmarshal(req.Params(), &q); err != nil {
		return reply(ctx, nil, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Fprintf(d.out, "⇐ window/showMessageRequest (type %d: a warning with buttons; the user sees):\n", q.Type)
	for _, line := range strings.Split(strings.TrimRight(q.Message, "\n"), "\n") {
		fmt.Fprintf(d.out, "   ┊ %s\n", line)
	}
	var titles []string
	for _, a := range q.Actions {
		titles = append(titles, "["+a.Title+"]")
	}
	fmt.Fprintf(d.out, "   ┊ %s\n", strings.Join(titles, " "))
	if len(d.answers) == 0 {
		d.asked++
		fmt.Fprintf(d.out, "⇒ null (the demo did not expect this question and dismisses it)\n")
		return reply(ctx, nil, nil)
	}
	answer := d.answers[0]
	d.answers = d.answers[1:]
	fmt.Fprintf(d.out, "⇒ {\"title\":%q} (the user clicks %s)\n", answer, answer)
	return reply(ctx, map[string]string{"title": answer}, nil)
}

// answering runs f with the user's answers to the questions it raises, and
// fails unless exactly those questions came.
func (d *demo) answering(answers []string, f func() error) error {
	d.mu.Lock()
	d.answers, d.asked = answers, 0
	d.mu.Unlock()
	err := f()
	d.mu.Lock()
	defer d.mu.Unlock()
	if err == nil && (len(d.answers) > 0 || d.asked > 0) {
		err = fmt.Errorf("tandem asked %d question(s) not expected, and %d expected one(s) did not come", d.asked, len(d.answers))
	}
	d.answers = nil
	return err
}

// pipes joins the server's stdout and stdin into one connection.
type pipes struct {
	io.ReadCloser
	w io.WriteCloser
}

func (p pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipes) Close() error {
	_ = p.w.Close()
	return p.ReadCloser.Close()
}

// call sends a request, printing it and the answer.
func (d *demo) call(method string, params any, result any) error {
	raw, err := d.request(method, params)
	if err != nil {
		return err
	}
	d.show("←", "", raw)
	if result != nil {
		return json.Unmarshal(raw, result)
	}
	return nil
}

// request sends a request, printing it, and returns the answer unprinted.
func (d *demo) request(method string, params any) (json.RawMessage, error) {
	d.show("→", method, params)
	var raw json.RawMessage
	if _, err := d.conn.Call(d.ctx, method, params, &raw); err != nil {
		fmt.Fprintf(d.out, "← error: %v\n", err)
		return nil, err
	}
	return raw, nil
}

// notify sends a notification, printing it.
func (d *demo) notify(method string, params any) error {
	d.show("→", method, params)
	return d.conn.Notify(d.ctx, method, params)
}

// tool calls a tool in the agent's session and prints what the model sees.
func (d *demo) tool(name string, args map[string]any) (string, error) {
	params := map[string]any{"session": d.session, "name": name, "arguments": args}
	d.show("→", "tandem/callTool", params)
	var res struct {
		Content []struct{ Text string }
		IsError bool
		Meta    map[string]any `json:"_meta"`
	}
	if _, err := d.conn.Call(d.ctx, "tandem/callTool", params, &res); err != nil {
		return "", err
	}
	var text strings.Builder
	for _, c := range res.Content {
		text.WriteString(c.Text)
	}
	label := "the agent sees"
	if res.IsError {
		label = fmt.Sprintf("the agent sees a refusal (code %v)", res.Meta["code"])
	}
	fmt.Fprintf(d.out, "← %s:\n", label)
	for _, line := range strings.Split(strings.TrimRight(text.String(), "\n"), "\n") {
		fmt.Fprintf(d.out, "   │ %s\n", line)
	}
	return text.String(), nil
}

func (d *demo) say(format string, args ...any) { fmt.Fprintf(d.out, format+"\n", args...) }

// show prints one message compactly, long strings shortened.
func (d *demo) show(arrow, method string, v any) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		raw, _ = json.Marshal(v)
	}
	var tree any
	_ = json.Unmarshal(raw, &tree)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // a shell command's && and > print as typed
	_ = enc.Encode(shorten(tree))
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if method != "" {
		fmt.Fprintf(d.out, "%s %s %s\n", arrow, method, b)
	} else {
		fmt.Fprintf(d.out, "%s %s\n", arrow, b)
	}
}

func shorten(v any) any {
	switch v := v.(type) {
	case string:
		if len(v) > 160 {
			return v[:120] + fmt.Sprintf("…(%d bytes)", len(v))
		}
	case []any:
		if len(v) > 12 {
			v = append(v[:12:12], fmt.Sprintf("…(%d more)", len(v)-12))
		}
		for i := range v {
			v[i] = shorten(v[i])
		}
		return v
	case map[string]any:
		for k := range v {
			v[k] = shorten(v[k])
		}
	}
	return v
}

func (d *demo) uri(rel string) string { return "file://" + filepath.Join(d.ws, rel) }
