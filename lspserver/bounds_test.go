package lspserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Scripts that would take the server's memory or stack without end (each
// ended tandem, and with it the editor's every session) are answered with a
// refusal naming the bound, and the connection keeps serving: the next
// request is answered.
func TestE2E_ScriptsPastABoundKeepTheServerServing(t *testing.T) {
	p, _ := startLSPHome(t)
	p.initialize(t, t.TempDir(), nil)
	sess := p.openSession(t)
	for _, c := range []struct{ script, bound string }{
		{"x=a; while :; do x=$x$x; done", "for one value"},
		{`: "$(yes)"`, "for one value"},
		{"f() { f | f; }; f", "subshells"},
		{"f() { f; }; f", "deeper than"},
	} {
		text, isErr := p.tool(sess, "bash", map[string]string{"command": c.script})
		if !isErr || !strings.HasPrefix(text, "bounded (too_large)") || !strings.Contains(text, c.bound) {
			t.Fatalf("%s: isErr=%v\n%s", c.script, isErr, text)
		}
		if text, _ := p.tool(sess, "bash", map[string]string{"command": "echo still serving"}); !strings.Contains(text, "still serving") {
			t.Fatalf("after %s the server does not serve:\n%s", c.script, text)
		}
	}
}

// A question open longer than the call's budget keeps the call waiting (it
// does not detach into a job while the user is asked); when the call is
// cancelled (the turn's Stop), the client gets the question withdrawn
// ($/cancelRequest and tandem/approvalSettled), a late answer is
// approval_gone, and the step never runs.
func TestE2E_AQuestionOutlastingTheBudgetIsWithdrawnWithItsCall(t *testing.T) {
	p, home := startLSPHome(t)
	p.ok("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": nil,
		"capabilities":          map[string]any{"experimental": map[string]any{"tandem": map[string]any{"approvals": true}}},
		"workspaceFolders":      []map[string]string{{"uri": "file://" + t.TempDir(), "name": "ws"}},
		"initializationOptions": map[string]any{"shell": map[string]any{"budgetSeconds": 0.3}},
	}, nil)
	p.notify("initialized", map[string]any{})
	asked := make(chan msg, 1)
	p.onRequest(func(method string, params json.RawMessage) any {
		if method == "tandem/askApproval" {
			p.mu.Lock()
			asked <- p.asked[len(p.asked)-1]
			p.mu.Unlock()
		}
		return noReply{} // the user has not answered yet
	})
	sess := p.openSession(t)
	call := p.start("bash-1", "tandem/callTool", map[string]any{"session": sess, "name": "bash",
		"arguments": map[string]string{"command": "touch ~/.ssh/late"}})
	var q struct{ ID string }
	select {
	case m := <-asked:
		json.Unmarshal(m.Params, &q)
	case <-time.After(10 * time.Second):
		t.Fatal("the step was never asked")
	}
	select {
	case m := <-call:
		t.Fatalf("the call ended while its question was open (three budgets): %s", m.Result)
	case <-time.After(time.Second): // a slow machine can only make this miss a detach, not fail
	}
	p.notify("$/cancelRequest", map[string]any{"id": "bash-1"})
	if m := p.wait(call, "the cancelled call"); m.Error == nil || m.Error.Data.Code != "cancelled" {
		t.Fatalf("the cancelled call: %s / %+v", m.Result, m.Error)
	}
	p.waitFor("the withdrawal and the settlement", func(notes, _ []msg) bool {
		cancelled, settled := false, false
		for _, n := range notes {
			cancelled = cancelled || n.Method == "$/cancelRequest"
			settled = settled || n.Method == "tandem/approvalSettled" && strings.Contains(string(n.Params), `"id":"`+q.ID+`"`)
		}
		return cancelled && settled
	})
	late := p.call("tandem/answerApproval", map[string]string{"id": q.ID, "answer": "allow_once"})
	if late.Error == nil || late.Error.Data.Code != "approval_gone" {
		t.Fatalf("a late answer: %+v", late)
	}
	// The cancelled call was answered once its run had ended (a cancel
	// kills the run and waits for it), so nothing of it can run now.
	if _, err := os.Stat(filepath.Join(home, ".ssh", "late")); err == nil {
		t.Fatal("a late answer ran the step")
	}
	if text, _ := p.tool(sess, "jobs", map[string]any{}); !strings.HasPrefix(text, "no jobs") {
		t.Fatalf("the call left a job:\n%s", text)
	}
}
