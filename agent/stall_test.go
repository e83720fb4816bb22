package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/scripted"
)

// stallIdle is the idle timeout of the stall tests: short, so each stall
// costs little; the stalled server sends nothing at all, so the cut is
// certain, not a race.
const stallIdle = 250 * time.Millisecond

// stalledMidText streams s, then goes silent before the rest: the event
// count is the wire's opening events and s's own.
func stalledMidText(f scripted.Format, s string) scripted.Response {
	opening := map[scripted.Format]int{scripted.Anthropic: 2, scripted.OpenAIChat: 1}[f]
	n := opening + 1
	return scripted.Response{Parts: []scripted.Part{{Text: s}, {Text: " and never this"}}, Faults: scripted.Faults{StallAfter: &n}}
}

// stallingChat is a stored chat whose model is a scripted server in format
// f, reached over the wire with stallIdle and one retry.
func stallingChat(t *testing.T, f scripted.Format, id string, responses ...scripted.Response) (*storedChat, *scripted.Server, Options) {
	t.Helper()
	srv, err := scripted.Start(scripted.Script{Format: f, Responses: responses})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	s := newStoredChat(t, filepath.Join(t.TempDir(), "chats"))
	o := s.options(id)
	if f == scripted.Anthropic {
		o.Provider = providers.NewAnthropic(providers.AnthropicOptions{URL: srv.URL(), MaxRetries: 1, IdleTimeout: stallIdle})
	} else {
		o.Provider = providers.NewOpenAIChat(providers.OpenAIOptions{URL: srv.URL(), MaxRetries: 1, IdleTimeout: stallIdle})
	}
	return s, srv, o
}

// separator is what the client is shown where a stalled answer was cut.
const separator = "\n\n(the provider sent nothing for 250ms; answering again…)\n\n"

// A stall after part of the answer was shown is answered again, on both
// wires: the client keeps the part it saw, marked as cut, then gets the
// whole answer; the chat's file and the next request hold the whole
// answer once and nothing of the cut one.
func TestStallMidTextIsAnsweredAgain(t *testing.T) {
	for _, f := range []scripted.Format{scripted.Anthropic, scripted.OpenAIChat} {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			const id = "00000000000000d1"
			s, srv, o := stallingChat(t, f, id,
				stalledMidText(f, "A draft"),
				scripted.Response{Parts: []scripted.Part{{Text: "The whole answer."}}},
				scripted.Response{Parts: []scripted.Part{{Text: "Next."}}})
			c := NewChat(o)
			var u updates
			stop, err := c.Prompt(context.Background(), textPrompt("explain"), u.emit)
			c.Close()
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("stop %q, error %v", stop, err)
			}
			if got, want := u.text(), "A draft"+separator+"The whole answer."; got != want {
				t.Errorf("the client saw %q, want %q", got, want)
			}
			raw, err := os.ReadFile(filepath.Join(s.store.dir, id+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Count(string(raw), "The whole answer.") != 1 || strings.Contains(string(raw), "A draft") {
				t.Errorf("the chat's file:\n%s", raw)
			}
			r, err := ResumeChat(o, id)
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.Prompt(context.Background(), textPrompt("go on"), func(acp.SessionUpdate) {})
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model calls, want 3", len(reqs))
			}
			if string(reqs[1].Body) != string(reqs[0].Body) {
				t.Errorf("the retry was not the same request:\n%s\n%s", reqs[0].Body, reqs[1].Body)
			}
			if body := string(reqs[2].Body); strings.Count(body, "The whole answer.") != 1 || strings.Contains(body, "A draft") {
				t.Errorf("the next request: %s", body)
			}
		})
	}
}

// A provider that stalls mid-text on every attempt ends the turn after the
// retries with an error naming the setting; what the last attempt showed
// is kept, marked as cut.
func TestStallMidTextGivesUpAfterRetries(t *testing.T) {
	for _, f := range []scripted.Format{scripted.Anthropic, scripted.OpenAIChat} {
		t.Run(string(f), func(t *testing.T) {
			t.Parallel()
			const id = "00000000000000d2"
			s, srv, o := stallingChat(t, f, id, stalledMidText(f, "First try"), stalledMidText(f, "Second try"))
			c := NewChat(o)
			var u updates
			_, err := c.Prompt(context.Background(), textPrompt("explain"), u.emit)
			c.Close()
			if err == nil || !strings.Contains(err.Error(), "sent nothing for 250ms (gave up after 1 retries); send the prompt again") ||
				!strings.Contains(err.Error(), "raise agent.idleTimeoutSeconds") {
				t.Fatalf("error %v", err)
			}
			if got, want := u.text(), "First try"+separator+"Second try"; got != want {
				t.Errorf("the client saw %q, want %q", got, want)
			}
			_, msgs, err := s.store.Load(id)
			if err != nil || len(msgs) != 2 || len(msgs[1].Blocks) != 2 || msgs[1].Blocks[0].Text != "Second try" ||
				!strings.HasPrefix(msgs[1].Blocks[1].Text, "[cut: the model's answer failed: ") {
				t.Fatalf("the stored chat: %+v %v", msgs, err)
			}
			if n := len(srv.Requests()); n != 2 {
				t.Errorf("%d model calls, want 2", n)
			}
		})
	}
}

// Tool calls shown by an attempt a stall cut are marked failed and never
// run; only the retried answer's calls run.
func TestStallMidTextDropsTheCutCalls(t *testing.T) {
	s := newStoredChat(t, filepath.Join(t.TempDir(), "chats"))
	o := s.options("00000000000000d3")
	o.Provider = restartingAfter{}
	c := NewChat(o)
	defer c.Close()
	var u updates
	if _, err := c.Prompt(context.Background(), textPrompt("list"), u.emit); err != nil {
		t.Fatal(err)
	}
	if st := u.statuses("cut"); len(st) != 2 || st[1] != acp.ToolCallStatusFailed {
		t.Errorf("the cut call's statuses %v", statusText(st))
	}
	for _, m := range c.Messages() {
		for _, b := range m.Blocks {
			if b.ToolID == "cut" {
				t.Errorf("the cut call is in the chat: %+v", m)
			}
		}
	}
}

// restartingAfter shows text and a call, is cut by a stall and restarts,
// then answers with text alone.
type restartingAfter struct{}

func (restartingAfter) Stream(_ context.Context, _ providers.Request, emit func(providers.Event)) (providers.Response, error) {
	emit(providers.Event{Kind: providers.TextDelta, Text: "Listing. "})
	call := providers.Block{Kind: providers.ToolUse, ToolID: "cut", ToolName: "glob", Input: []byte(`{"pattern":"*"}`)}
	emit(providers.Event{Kind: providers.ToolCall, Call: &call})
	emit(providers.Event{Kind: providers.Retrying, Retry: &providers.RetryInfo{Attempt: 1, Reason: "the provider sent nothing for 1s", Restart: true}})
	emit(providers.Event{Kind: providers.TextDelta, Text: "Nothing to list."})
	return providers.Response{Message: providers.Message{Role: providers.Assistant, Blocks: []providers.Block{{Kind: providers.Text, Text: "Nothing to list."}}}, Stop: providers.EndTurn}, nil
}
