package lspserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The end of a session — tandem/closeSession, or the editor's connection
// ending — ends everything the session has in flight: a bash call waiting
// on a question, a running command, a grep, a job. The shell budget is
// set far beyond the tests' own timeouts, so only calls that end with the
// session let them finish.

const secretText = "FAKE-KEY-MATERIAL"

// startGated runs `tandem lsp` under a temporary HOME holding a fake secret,
// with a client that takes tandem/askApproval and never answers it (its
// prompt stays open), and a shell budget of budget seconds. asks receives
// each question's id.
func startGated(t *testing.T, ws string, budget float64) (p *proc, home string, asks chan string) {
	t.Helper()
	p, home = startLSPHome(t)
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_test"), []byte(secretText+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	asks = make(chan string, 8)
	p.onRequest(func(method string, params json.RawMessage) any {
		if method != "tandem/askApproval" {
			return nil
		}
		var q struct{ ID string }
		json.Unmarshal(params, &q)
		asks <- q.ID
		return noReply{}
	})
	p.ok("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": nil,
		"capabilities":          map[string]any{"experimental": map[string]any{"tandem": map[string]any{"approvals": true}}},
		"workspaceFolders":      []map[string]string{{"uri": "file://" + ws, "name": "ws"}},
		"initializationOptions": map[string]any{"shell": map[string]any{"budgetSeconds": budget}},
	}, nil)
	p.notify("initialized", map[string]any{})
	return p, home, asks
}

// sleepMarker is a sleep command whose argument no other process has, so
// its processes can be found in /proc. One that a failing test leaves is
// killed after it.
func sleepMarker(t *testing.T, n int) string {
	command := fmt.Sprintf("sleep %d%06d", n, os.Getpid())
	t.Cleanup(func() {
		for _, pid := range processesRunning(t, command) {
			if id, err := strconv.Atoi(pid); err == nil {
				_ = syscall.Kill(id, syscall.SIGKILL)
			}
		}
	})
	return command
}

// processesRunning lists the pids whose command line is exactly command.
func processesRunning(t *testing.T, command string) []string {
	t.Helper()
	want := []byte(strings.ReplaceAll(command, " ", "\x00") + "\x00")
	dirs, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, f := range dirs {
		if b, err := os.ReadFile(f); err == nil && bytes.Equal(b, want) {
			pids = append(pids, filepath.Base(filepath.Dir(f)))
		}
	}
	return pids
}

// waitRunning waits until command's process exists: the call that runs it
// is in flight.
func waitRunning(t *testing.T, command string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); len(processesRunning(t, command)) == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%q never started", command)
		}
	}
}

func waitQuestion(t *testing.T, asks chan string) string {
	t.Helper()
	select {
	case id := <-asks:
		return id
	case <-time.After(30 * time.Second):
		t.Fatal("no tandem/askApproval")
	}
	return ""
}

// callEnded asserts a tool call's response is the cancelled refusal and
// that none of the secret reached it.
func callEnded(t *testing.T, m msg, what string) {
	t.Helper()
	var res struct {
		Content []struct{ Text string }
		IsError bool
		Meta    struct{ Code string } `json:"_meta"`
	}
	if m.Error != nil || json.Unmarshal(m.Result, &res) != nil || !res.IsError || res.Meta.Code != "cancelled" {
		t.Fatalf("%s answered %s / %+v, want the cancelled refusal", what, m.Result, m.Error)
	}
	if strings.Contains(string(m.Result), secretText) {
		t.Fatalf("%s shows the secret: %s", what, m.Result)
	}
}

// tandem/closeSession while a bash call waits on its question: the call
// answers (cancelled), its gated step never runs, the question settles and
// a later answer is approval_gone; another call running a command ends and
// its process is gone; the closed session is unknown afterwards.
func TestE2E_CloseSessionEndsCallWaitingOnApproval(t *testing.T) {
	ws := t.TempDir()
	p, _, asks := startGated(t, ws, 600)
	sess := p.openSession(t)
	sleep := sleepMarker(t, 1)
	running := p.start("running", "tandem/callTool", map[string]any{"session": sess, "name": "bash",
		"arguments": map[string]string{"command": sleep}})
	gated := p.start("gated", "tandem/callTool", map[string]any{"session": sess, "name": "bash",
		"arguments": map[string]string{"command": "echo before; cp ~/.ssh/id_test copied; echo after"}})
	id := waitQuestion(t, asks)
	waitRunning(t, sleep)

	p.ok("tandem/closeSession", map[string]string{"session": sess}, nil)
	// When the close is answered, nothing of the session runs any more.
	if pids := processesRunning(t, sleep); len(pids) != 0 {
		t.Fatalf("the closed session's process outlived the close: %v", pids)
	}
	callEnded(t, p.wait(gated, "the call waiting on its question"), "the call waiting on its question")
	callEnded(t, p.wait(running, "the running call"), "the running call")
	if _, err := os.Stat(filepath.Join(ws, "copied")); err == nil {
		t.Fatal("the unanswered step ran")
	}
	p.waitFor("the question withdrawn and settled", func(notes, _ []msg) bool {
		withdrawn, settled := false, false
		for _, n := range notes {
			var s struct{ ID string }
			withdrawn = withdrawn || n.Method == "$/cancelRequest"
			settled = settled || n.Method == "tandem/approvalSettled" && json.Unmarshal(n.Params, &s) == nil && s.ID == id
		}
		return withdrawn && settled
	})
	late := p.call("tandem/answerApproval", map[string]string{"id": id, "answer": "allow_once"})
	if late.Error == nil || late.Error.Code != int(CodeApprovalGone) || late.Error.Data.Code != "approval_gone" {
		t.Fatalf("an answer after the close: %+v, want approval_gone", late.Error)
	}
	if _, err := os.Stat(filepath.Join(ws, "copied")); err == nil {
		t.Fatal("the late answer ran the step")
	}
	for _, m := range []msg{
		p.call("tandem/callTool", map[string]any{"session": sess, "name": "bash", "arguments": map[string]string{"command": "echo again"}}),
		p.call("tandem/closeSession", map[string]string{"session": sess}),
	} {
		if m.Error == nil || m.Error.Code != int(CodeUnknownSession) || m.Error.Data.Code != KindUnknownSession {
			t.Fatalf("a request naming the closed session: %s / %+v, want unknown_session", m.Result, m.Error)
		}
	}
}

// tandem/closeSession ends a grep in flight and kills the session's jobs
// with every process they started; the job's end is reported.
func TestE2E_CloseSessionEndsGrepAndJobs(t *testing.T) {
	p, home, asks := startGated(t, t.TempDir(), 0.3)
	sess := p.openSession(t)
	sleep := sleepMarker(t, 2)
	if text, isErr := p.tool(sess, "bash", map[string]string{"command": sleep}); isErr || !strings.HasPrefix(text, "detached") {
		t.Fatalf("not detached:\n%s", text)
	}
	waitRunning(t, sleep)
	// A grep of a secret waits on its question, so it is in flight when
	// the close arrives.
	grep := p.start("grep", "tandem/callTool", map[string]any{"session": sess, "name": "grep",
		"arguments": map[string]any{"pattern": "KEY", "path": filepath.Join(home, ".ssh", "id_test")}})
	waitQuestion(t, asks)
	p.ok("tandem/closeSession", map[string]string{"session": sess}, nil)
	if pids := processesRunning(t, sleep); len(pids) != 0 {
		t.Fatalf("the closed session's job outlived the close: %v", pids)
	}
	callEnded(t, p.wait(grep, "the grep"), "the grep")
	p.waitFor("tandem/jobSettled", func(notes, _ []msg) bool {
		for _, n := range notes {
			var s struct{ Session, Job, End string }
			if n.Method == "tandem/jobSettled" && json.Unmarshal(n.Params, &s) == nil && s.Session == sess && s.Job == "job-1" && s.End == "killed" {
				return true
			}
		}
		return false
	})
}

// The editor's connection ending (stdin closed) while a call waits on its
// question and another runs a command: the process exits, the gated step
// never runs and no process the session started is left.
func TestE2E_EditorGoneEndsCallsAndProcesses(t *testing.T) {
	ws := t.TempDir()
	p, _, asks := startGated(t, ws, 600)
	sess := p.openSession(t)
	sleep := sleepMarker(t, 3)
	p.start("running", "tandem/callTool", map[string]any{"session": sess, "name": "bash",
		"arguments": map[string]string{"command": sleep}})
	p.start("gated", "tandem/callTool", map[string]any{"session": sess, "name": "bash",
		"arguments": map[string]string{"command": "cp ~/.ssh/id_test copied"}})
	waitQuestion(t, asks)
	waitRunning(t, sleep)

	_ = p.in.Close()
	select {
	case <-p.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not exit when its editor went away")
	}
	if _, err := os.Stat(filepath.Join(ws, "copied")); err == nil {
		t.Fatal("the unanswered step ran")
	}
	if pids := processesRunning(t, sleep); len(pids) != 0 {
		t.Fatalf("a process outlived the server: %v", pids)
	}
}
