package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/scripted"
	"github.com/tandemdev/tandem/config"
)

// scriptedChat is a chat whose model is a scripted server in format f,
// reached as any provider is.
func scriptedChat(t *testing.T, ws string, f scripted.Format, responses ...scripted.Response) (*Chat, *scripted.Server) {
	t.Helper()
	srv, err := scripted.Start(scripted.Script{Format: f, Responses: responses})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	api := APIAnthropic
	if f == scripted.OpenAIChat {
		api = APIOpenAIChat
	}
	end := Endpoint{Provider: "scripted", API: api, URL: srv.URL(), Model: "m"}
	c := NewChat(Options{Session: openSession(ws), Provider: NewProvider(end, 0), Endpoint: end})
	t.Cleanup(c.Close)
	return c, srv
}

// A call whose arguments are not JSON goes back to the model as a failed
// call naming the parse error, on both wires; the other calls run, the
// text streamed before stays, and the turn goes on.
func TestUnreadableArgumentsGoBackToTheModel(t *testing.T) {
	for _, f := range []scripted.Format{scripted.Anthropic, scripted.OpenAIChat} {
		t.Run(string(f), func(t *testing.T) {
			c, srv := scriptedChat(t, t.TempDir(), f,
				scripted.Response{Parts: []scripted.Part{
					{Text: "Looking. "},
					{Tool: &scripted.ToolCall{ID: "bad", Name: "glob", Input: json.RawMessage(`"{\"pattern\": \"*.go\","`)}},
					{Tool: &scripted.ToolCall{ID: "good", Name: "glob", Input: json.RawMessage(`{"pattern":"*"}`)}},
				}},
				scripted.Response{Parts: []scripted.Part{{Text: "Sorry, fixed."}}})
			var u updates
			stop, err := c.Prompt(context.Background(), textPrompt("find go files"), u.emit)
			if err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("stop %q, error %v", stop, err)
			}
			if got := u.text(); got != "Looking. Sorry, fixed." {
				t.Errorf("answer %q", got)
			}
			if s := u.statuses("bad"); len(s) == 0 || s[len(s)-1] != acp.ToolCallStatusFailed {
				t.Errorf("the unreadable call's statuses %v", statusText(s))
			}
			if s := u.statuses("good"); len(s) == 0 || s[len(s)-1] != acp.ToolCallStatusCompleted {
				t.Errorf("the other call's statuses %v", statusText(s))
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls", len(reqs))
			}
			body := string(reqs[1].Body)
			for _, want := range []string{"not a JSON object", "unexpected end of JSON input", "Call glob again"} {
				if !strings.Contains(body, want) {
					t.Errorf("the model was not told %q: %s", want, body)
				}
			}
			msgs := c.Messages()
			if len(msgs) != 4 || msgs[1].Blocks[0].Text != "Looking. " || !msgs[2].Blocks[0].IsError || msgs[2].Blocks[1].IsError {
				t.Errorf("conversation %+v", msgs)
			}
			if msgs[1].Blocks[1].Kind != providers.ToolUse || string(msgs[1].Blocks[1].Input) != "{}" {
				t.Errorf("the unreadable call is kept as %+v", msgs[1].Blocks[1])
			}
		})
	}
}

// agent.idleTimeoutSeconds is read from any settings layer; a value that
// is not a positive number leaves the default and is reported.
func TestIdleTimeoutSetting(t *testing.T) {
	for raw, want := range map[string]time.Duration{
		`{}`: providers.DefaultIdleTimeout,
		`{"agent": {"idleTimeoutSeconds": 0.25}}`: 250 * time.Millisecond,
		`{"agent": {"idleTimeoutSeconds": 600}}`:  10 * time.Minute,
		`{"agent": {"idleTimeoutSeconds": 0}}`:    providers.DefaultIdleTimeout,
		`{"agent": {"idleTimeoutSeconds": "1m"}}`: providers.DefaultIdleTimeout,
	} {
		st := config.New()
		if err := st.Set(config.SourceConfiguration, json.RawMessage(raw)); err != nil {
			t.Fatal(err)
		}
		got, err := idleTimeout(st)
		problems := SettingsProblems(st)
		bad := want == providers.DefaultIdleTimeout && raw != `{}`
		if got != want || (err != nil) != bad || (len(problems) > 0) != bad {
			t.Errorf("%s: %v, %v, problems %v", raw, got, err, problems)
		}
	}
}
