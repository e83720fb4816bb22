package mcpserver

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/tools"
)

// questionWorld serves a standalone tandem on a workspace whose home holds
// a secret, to a go-sdk client of the given revision that answers every
// question with answer (or declares no elicitation when answer is "").
type questionWorld struct {
	root, home string
	cs         *mcp.ClientSession
	asked      []string     // the questions' messages
	wire       bytes.Buffer // the messages both ways
}

// retries counts the calls the client sent again with an answer.
func (w *questionWorld) retries() int { return strings.Count(w.wire.String(), `"inputResponses"`) }

func newQuestionWorld(t *testing.T, revision, answer string) *questionWorld {
	noEditor(t)
	w := &questionWorld{root: t.TempDir(), home: t.TempDir()}
	t.Setenv("HOME", w.home)
	if err := os.MkdirAll(filepath.Join(w.home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.home, ".ssh", "id_test"), []byte("KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	serverSide, clientSide := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, Options{Root: w.root, Version: "test", Standalone: func(door tools.Options) (*tools.Session, error) {
			door.Roots, door.Settings = []string{w.root}, config.New()
			return tools.Open(door), nil
		}}, serverSide)
	}()
	opts := &mcp.ClientOptions{}
	if answer == "by hand" {
		// The test makes the round trips itself.
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
		opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the server sent elicitation/create to a client of revision 2026-07-28")
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
	} else if answer != "" {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			w.asked = append(w.asked, req.Params.Message)
			if answer == "decline" {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": answer}}, nil
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "claude-code"}, opts)
	cs, err := client.Connect(ctx, &mcp.LoggingTransport{Transport: clientSide, Writer: &w.wire}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
	if err != nil {
		t.Fatal(err)
	}
	w.cs = cs
	t.Cleanup(func() {
		cs.Close()
		<-done
	})
	return w
}

func (w *questionWorld) bash(t *testing.T, script string) (text string, isError bool) {
	t.Helper()
	res, err := w.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "bash", Arguments: map[string]any{"command": script}})
	if err != nil {
		t.Fatalf("the call failed as a protocol error: %v", err)
	}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	return text, res.IsError
}

func (w *questionWorld) log(t *testing.T) string {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(w.root, "log.txt"))
	return string(b)
}

// A gated step in the middle of a script is asked of the MCP client on both
// revisions — as a multi round-trip on 2026-07-28, where the server sends
// no request, as elicitation/create before — and the answer decides that
// step alone: the steps before it ran once, never again when the answer
// comes back, and the steps after run only when it was allowed.
func TestQuestionsReachClientsOfBothRevisions(t *testing.T) {
	script := "echo before >> log.txt; cat ~/.ssh/id_test; echo after >> log.txt"
	for _, revision := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(revision+"/allowed", func(t *testing.T) {
			w := newQuestionWorld(t, revision, "allow")
			text, isError := w.bash(t, script)
			if isError || !strings.Contains(text, "KEY") {
				t.Errorf("the allowed step did not run (error %v):\n%s", isError, text)
			}
			if got := w.log(t); got != "before\nafter\n" {
				t.Errorf("log.txt holds %q; want each step once", got)
			}
			if len(w.asked) != 1 || !strings.Contains(w.asked[0], "Claude Code") || !strings.Contains(w.asked[0], "id_test") {
				t.Errorf("questions asked: %q; want one naming the client and the secret", w.asked)
			}
			if want := map[string]int{"2026-07-28": 1, "2025-11-25": 0}[revision]; w.retries() != want {
				t.Errorf("%d calls were sent again with an answer; want %d", w.retries(), want)
			}
		})
		t.Run(revision+"/declined", func(t *testing.T) {
			w := newQuestionWorld(t, revision, "decline")
			text, isError := w.bash(t, script)
			if !isError || strings.Contains(text, "KEY") || !strings.Contains(text, "denied") {
				t.Errorf("a declined step is not refused as denied (error %v):\n%s", isError, text)
			}
			if got := w.log(t); got != "before\n" {
				t.Errorf("log.txt holds %q; want the first step once and nothing after the refusal", got)
			}
		})
		t.Run(revision+"/no elicitation", func(t *testing.T) {
			w := newQuestionWorld(t, revision, "")
			text, isError := w.bash(t, script)
			if !isError || !strings.Contains(text, "unanswered") || len(w.asked) != 0 {
				t.Errorf("a client without elicitation was asked, or the step ran (error %v):\n%s", isError, text)
			}
		})
	}
}

// A round trip answers only the call it was asked in: an answer with a
// state tandem does not hold, or sent with another call, is refused and
// answers nothing; a retry without the answer is asked again; an answered
// question cannot be answered twice.
func TestRoundTripAnswersOnlyItsOwnCall(t *testing.T) {
	w := newQuestionWorld(t, "2026-07-28", "by hand")
	ctx := context.Background()
	args := map[string]any{"command": "echo before >> log.txt; cat ~/.ssh/id_test; echo after >> log.txt"}
	call := func(args map[string]any, state string, answers mcp.InputResponseMap) *mcp.CallToolResult {
		t.Helper()
		res, err := w.cs.CallTool(ctx, &mcp.CallToolParams{Name: "bash", Arguments: args, RequestState: state, InputResponses: answers})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	text := func(res *mcp.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	first := call(args, "", nil)
	if !first.NeedsInput() || len(first.InputRequests) != 1 || first.RequestState == "" {
		t.Fatalf("the gated step did not come back as input required: %+v", first)
	}
	var id string
	for id = range first.InputRequests {
	}
	allow := mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "allow"}}}

	if res := call(args, "0123456789abcdef0123456789abcdef", allow); !res.IsError || !strings.Contains(text(res), "no longer holds") {
		t.Errorf("a state tandem never gave is not refused: %q", text(res))
	}
	other := map[string]any{"command": "cat ~/.ssh/id_test"}
	if res := call(other, first.RequestState, allow); !res.IsError || !strings.Contains(text(res), "not the one the question was asked for") {
		t.Errorf("an answer sent with another call is not refused: %q", text(res))
	}
	again := call(args, first.RequestState, nil)
	if _, ok := again.InputRequests[id]; !again.NeedsInput() || !ok || again.RequestState != first.RequestState {
		t.Errorf("a retry without the answer is not asked the same question again: %+v", again)
	}
	if got := w.log(t); got != "before\n" {
		t.Fatalf("log.txt holds %q before the answer; want the first step once", got)
	}
	if res := call(args, first.RequestState, allow); res.IsError || !strings.Contains(text(res), "KEY") {
		t.Errorf("the answered call did not finish with the allowed step: %q", text(res))
	}
	if got := w.log(t); got != "before\nafter\n" {
		t.Errorf("log.txt holds %q; want each step once", got)
	}
	if res := call(args, first.RequestState, allow); !res.IsError || !strings.Contains(text(res), "no longer holds") {
		t.Errorf("a question was answered twice: %q", text(res))
	}
}
