package lspserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// startLSPHome runs `tandem lsp` with its own HOME (so ~/.ssh is a test
// directory) and private XDG directories.
func startLSPHome(t *testing.T) (*proc, string) {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	return startLSPIn(t, home, "HOME="+home), home
}

type seen struct {
	mu       sync.Mutex
	requests []msg
}

func (s *seen) add(method string, params json.RawMessage) {
	s.mu.Lock()
	s.requests = append(s.requests, msg{Method: method, Params: params})
	s.mu.Unlock()
}

func (s *seen) all() []msg {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]msg(nil), s.requests...)
}

// An editor with only the baseline LSP prompt: the step asks through
// window/showMessageRequest (a Warning naming the step, its effects and
// the secret path, with Allow, Deny and Allow for this session), and the
// answer decides. Closing the prompt is no answer: the step is unanswered.
func TestE2E_ApprovalThroughShowMessageRequest(t *testing.T) {
	for _, c := range []struct {
		reply   any
		runs    bool
		code    string
		ask     int
		comment string
	}{
		{map[string]string{"title": "Allow"}, true, "", 1, "Allow runs it once"},
		{map[string]string{"title": "Deny"}, false, "denied", 1, "Deny stops the script"},
		{nil, false, "unanswered", 1, "a closed prompt is no answer"},
	} {
		t.Run(c.comment, func(t *testing.T) {
			p, home := startLSPHome(t)
			p.initialize(t, t.TempDir(), map[string]any{"window": map[string]any{"showMessage": map[string]any{}}})
			var got seen
			p.onRequest(func(method string, params json.RawMessage) any {
				got.add(method, params)
				if method == "window/showMessageRequest" {
					return c.reply
				}
				return nil
			})
			sess := p.openSession(t)
			text, isErr := p.tool(sess, "bash", map[string]string{"command": "echo before; touch ~/.ssh/approved; echo after"})
			_, err := os.Stat(filepath.Join(home, ".ssh", "approved"))
			if (err == nil) != c.runs || isErr == c.runs {
				t.Fatalf("runs=%v isError=%v:\n%s", err == nil, isErr, text)
			}
			if !c.runs && !strings.HasPrefix(text, "refused at step 2 ("+c.code+")") {
				t.Fatalf("want refused at step 2 (%s):\n%s", c.code, text)
			}
			if c.runs && !strings.Contains(text, "before\nafter\n") {
				t.Fatalf("output:\n%s", text)
			}
			var asks []msg
			for _, m := range got.all() {
				if m.Method == "window/showMessageRequest" {
					asks = append(asks, m)
				}
			}
			if len(asks) != c.ask {
				t.Fatalf("%d prompts, want %d: %+v", len(asks), c.ask, got.all())
			}
			var prm struct {
				Type    int
				Message string
				Actions []struct{ Title string }
			}
			json.Unmarshal(asks[0].Params, &prm)
			if prm.Type != 2 || !strings.Contains(prm.Message, "touch "+home+"/.ssh/approved") ||
				!strings.Contains(prm.Message, "effects: write, secret") || !strings.Contains(prm.Message, "session "+sess) ||
				len(prm.Actions) != 3 || prm.Actions[0].Title != "Allow" || prm.Actions[1].Title != "Deny" || prm.Actions[2].Title != "Allow for this session" {
				t.Fatalf("prompt: %+v", prm)
			}
		})
	}
}

// "Allow for this session" runs the same exact step again unasked.
func TestE2E_AllowForThisSession(t *testing.T) {
	p, home := startLSPHome(t)
	p.initialize(t, t.TempDir(), nil)
	var got seen
	p.onRequest(func(method string, params json.RawMessage) any {
		got.add(method, params)
		return map[string]string{"title": "Allow for this session"}
	})
	sess := p.openSession(t)
	for range 2 {
		if text, isErr := p.tool(sess, "bash", map[string]string{"command": "touch ~/.ssh/again"}); isErr {
			t.Fatal(text)
		}
	}
	if _, err := os.Stat(filepath.Join(home, ".ssh", "again")); err != nil || len(got.all()) != 1 {
		t.Fatalf("asked %d times (want 1), file: %v", len(got.all()), err)
	}
}

// A client that declares the tandem approval capability gets the
// structured tandem/askApproval; when the question is over it gets
// tandem/approvalSettled; an answer after that gets approval_gone.
func TestE2E_ApprovalThroughAskApprovalSettledAndGone(t *testing.T) {
	p, home := startLSPHome(t)
	p.initialize(t, t.TempDir(), map[string]any{"experimental": map[string]any{"tandem": map[string]any{"approvals": true}}})
	var got seen
	p.onRequest(func(method string, params json.RawMessage) any {
		got.add(method, params)
		if method == "tandem/askApproval" {
			return map[string]string{"answer": "allow_once"}
		}
		return nil
	})
	sess := p.openSession(t)
	text, isErr := p.tool(sess, "bash", map[string]string{"command": "cat /dev/null | touch ~/.ssh/rich"})
	if isErr {
		t.Fatal(text)
	}
	if _, err := os.Stat(filepath.Join(home, ".ssh", "rich")); err != nil {
		t.Fatal("the allowed step did not run")
	}
	reqs := got.all()
	if len(reqs) != 1 || reqs[0].Method != "tandem/askApproval" {
		t.Fatalf("requests: %+v", reqs)
	}
	var q struct {
		ID, Session, Kind string
		Steps             []struct {
			Text    string
			Effects []string
			Paths   []struct{ Path, Real, Class string }
		}
		Options []string
	}
	json.Unmarshal(reqs[0].Params, &q)
	if q.Session != sess || q.Kind != "shell" || len(q.Steps) != 2 || q.Steps[0].Text != "cat /dev/null" ||
		q.Steps[1].Text != "touch "+home+"/.ssh/rich" || strings.Join(q.Steps[1].Effects, "+") != "write+secret" ||
		len(q.Steps[1].Paths) != 1 || q.Steps[1].Paths[0].Class != "secret" || len(q.Options) != 4 {
		t.Fatalf("question (the pipeline's steps in order, in one question): %s", reqs[0].Params)
	}
	p.waitFor("tandem/approvalSettled", func(notes, _ []msg) bool {
		for _, n := range notes {
			if n.Method == "tandem/approvalSettled" && strings.Contains(string(n.Params), `"id":"`+q.ID+`"`) &&
				strings.Contains(string(n.Params), `"answer":"allow_once"`) {
				return true
			}
		}
		return false
	})
	late := p.call("tandem/answerApproval", map[string]string{"id": q.ID, "answer": "reject_once"})
	if late.Error == nil || late.Error.Code != -32052 || late.Error.Data.Code != "approval_gone" {
		t.Fatalf("a late answer: %+v", late)
	}
}

// With no client that can answer (it declared approvals: false), a step
// that needs a yes is unanswered at once; nothing is sent to the client.
func TestE2E_NoClientThatCanAnswerIsUnansweredAtOnce(t *testing.T) {
	p, home := startLSPHome(t)
	p.initialize(t, t.TempDir(), map[string]any{"experimental": map[string]any{"tandem": map[string]any{"approvals": false}}})
	var got seen
	p.onRequest(func(method string, params json.RawMessage) any {
		got.add(method, params)
		return noReply{} // a prompt nobody answers
	})
	sess := p.openSession(t)
	start := time.Now()
	text, isErr := p.tool(sess, "bash", map[string]string{"command": "touch ~/.ssh/never"})
	if d := time.Since(start); d > 3*time.Second { // a real clock: waiting for the client would never end
		t.Fatalf("waited %v for a client that cannot answer", d)
	}
	if !isErr || !strings.HasPrefix(text, "refused at step 1 (unanswered)") || len(got.all()) != 0 {
		t.Fatalf("isErr=%v requests=%d:\n%s", isErr, len(got.all()), text)
	}
	if _, err := os.Stat(filepath.Join(home, ".ssh", "never")); err == nil {
		t.Fatal("the unanswered step ran")
	}
}

// A script past the budget detaches; its end reaches the editor as
// tandem/jobSettled with its output.
func TestE2E_JobSettledNotification(t *testing.T) {
	p, _ := startLSPHome(t)
	p.ok("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": nil, "capabilities": map[string]any{},
		"workspaceFolders":      []map[string]string{{"uri": "file://" + t.TempDir(), "name": "ws"}},
		"initializationOptions": map[string]any{"shell": map[string]any{"budgetSeconds": 0.3}},
	}, nil)
	p.notify("initialized", map[string]any{})
	sess := p.openSession(t)
	text, isErr := p.tool(sess, "bash", map[string]string{"command": "echo begun; sleep 1; echo ended"})
	if isErr || !strings.HasPrefix(text, "detached: the script still runs, as job job-1") || !strings.Contains(text, "begun") {
		t.Fatalf("not detached:\n%s", text)
	}
	p.waitFor("tandem/jobSettled", func(notes, _ []msg) bool {
		for _, n := range notes {
			if n.Method == "tandem/jobSettled" {
				var prm struct{ Session, Job, End, Text string }
				json.Unmarshal(n.Params, &prm)
				return prm.Session == sess && prm.Job == "job-1" && prm.End == "finished" && strings.Contains(prm.Text, "begun\nended\n")
			}
		}
		return false
	})
}

// The first answer wins: an answer sent with tandem/answerApproval while the
// tandem/askApproval request is still open decides, and tandem withdraws
// the request ($/cancelRequest) and settles the question.
func TestE2E_FirstAnswerWinsAndTheRequestIsWithdrawn(t *testing.T) {
	p, home := startLSPHome(t)
	p.initialize(t, t.TempDir(), map[string]any{"experimental": map[string]any{"tandem": map[string]any{"approvals": true}}})
	asked := make(chan msg, 1)
	p.onRequest(func(method string, params json.RawMessage) any {
		if method != "tandem/askApproval" {
			return nil
		}
		p.mu.Lock()
		asked <- p.asked[len(p.asked)-1]
		p.mu.Unlock()
		return noReply{} // answered below, after another surface's answer
	})
	go func() {
		m := <-asked
		var q struct{ ID string }
		json.Unmarshal(m.Params, &q)
		// Another surface of the editor answers while this prompt stays open;
		// once tandem took that no, this prompt's own yes comes.
		took := p.start("answer-1", "tandem/answerApproval", map[string]string{"id": q.ID, "answer": "reject_once"})
		<-took
		p.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": map[string]string{"answer": "allow_once"}})
	}()
	sess := p.openSession(t)
	text, isErr := p.tool(sess, "bash", map[string]string{"command": "touch ~/.ssh/first"})
	if !isErr || !strings.HasPrefix(text, "refused at step 1 (denied)") {
		t.Fatalf("the first answer (a no) did not decide:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(home, ".ssh", "first")); err == nil {
		t.Fatal("the late yes ran the step")
	}
	p.waitFor("the withdrawal and the settlement", func(notes, _ []msg) bool {
		cancelled, settled := false, false
		for _, n := range notes {
			cancelled = cancelled || n.Method == "$/cancelRequest"
			settled = settled || n.Method == "tandem/approvalSettled" && strings.Contains(string(n.Params), `"settled":"deny"`)
		}
		return cancelled && settled
	})
}
