package providers_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/scripted"
)

var formats = []scripted.Format{scripted.Anthropic, scripted.OpenAIChat}

// serve starts a scripted server for the test.
func serve(t *testing.T, f scripted.Format, responses ...scripted.Response) *scripted.Server {
	t.Helper()
	s, err := scripted.Start(scripted.Script{Format: f, Responses: responses})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// client is the format's client for url; key is "" unless a test checks
// how one is sent.
func client(f scripted.Format, url, key string, retries int) providers.Provider {
	return clientOver(nil, f, url, key, retries)
}

// clientOver is client calling through hc (nil is the providers' own).
func clientOver(hc *http.Client, f scripted.Format, url, key string, retries int) providers.Provider {
	if f == scripted.Anthropic {
		return providers.NewAnthropic(providers.AnthropicOptions{URL: url, APIKey: key, MaxRetries: retries, HTTPClient: hc})
	}
	return providers.NewOpenAIChat(providers.OpenAIOptions{URL: url, APIKey: key, MaxRetries: retries, HTTPClient: hc})
}

type result struct {
	resp   providers.Response
	events []providers.Event
	err    error
}

func run(ctx context.Context, p providers.Provider, req providers.Request) result {
	var r result
	r.resp, r.err = p.Stream(ctx, req, func(e providers.Event) { r.events = append(r.events, e) })
	return r
}

// kinds lists the events' kinds, to compare sequences.
func (r result) kinds() []providers.EventKind {
	var k []providers.EventKind
	for _, e := range r.events {
		k = append(k, e.Kind)
	}
	return k
}

func (r result) text() string {
	var b strings.Builder
	for _, e := range r.events {
		if e.Kind == providers.TextDelta {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func (r result) calls() []providers.Block {
	var c []providers.Block
	for _, e := range r.events {
		if e.Kind == providers.ToolCall {
			c = append(c, *e.Call)
		}
	}
	return c
}

func (r result) retries() []providers.RetryInfo {
	var c []providers.RetryInfo
	for _, e := range r.events {
		if e.Kind == providers.Retrying {
			c = append(c, *e.Retry)
		}
	}
	return c
}

func tool(name, input string) scripted.Part {
	return scripted.Part{Tool: &scripted.ToolCall{Name: name, Input: json.RawMessage(input)}}
}

func text(s string) scripted.Part { return scripted.Part{Text: s} }

var hello = providers.Request{
	Model:    "scripted-model",
	System:   "You are terse.",
	Messages: []providers.Message{{Role: providers.User, Blocks: []providers.Block{{Kind: providers.Text, Text: "hi"}}}},
	Tools:    []providers.Tool{{Name: "read", Description: "Reads a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
}

func jsonEqual(t *testing.T, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got %s, want %s", got, want)
	}
}

// body decodes the i-th request the server received.
func body(t *testing.T, s *scripted.Server, i int) map[string]any {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) <= i {
		t.Fatalf("%d requests, want more than %d", len(reqs), i)
	}
	var m map[string]any
	if err := json.Unmarshal(reqs[i].Body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMultiStep is the loop a turn runs: the model calls a tool, the
// result goes back, the model answers.
func TestMultiStep(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			s := serve(t, f,
				scripted.Response{Parts: []scripted.Part{text("Let me "), text("look."), tool("read", `{"path":"a.go"}`)},
					Usage: providers.Usage{Input: 100, Output: 20, CacheRead: 50}},
				scripted.Response{Parts: []scripted.Part{text("It is "), text("empty.")}, Usage: providers.Usage{Input: 30, Output: 5}},
			)
			p := client(f, s.URL(), "", 0)
			r := run(t.Context(), p, hello)
			if r.err != nil {
				t.Fatal(r.err)
			}
			wantKinds := []providers.EventKind{providers.TextDelta, providers.TextDelta, providers.ToolCall}
			if !reflect.DeepEqual(r.kinds(), wantKinds) {
				t.Fatalf("events %v, want %v", r.kinds(), wantKinds)
			}
			if r.resp.Stop != providers.StopToolUse {
				t.Errorf("stop %q", r.resp.Stop)
			}
			if r.resp.Usage != (providers.Usage{Input: 100, Output: 20, CacheRead: 50}) {
				t.Errorf("usage %+v", r.resp.Usage)
			}
			blocks := r.resp.Message.Blocks
			if len(blocks) != 2 || blocks[0].Text != "Let me look." || blocks[1].Kind != providers.ToolUse || blocks[1].ToolName != "read" || blocks[1].ToolID == "" {
				t.Fatalf("blocks %+v", blocks)
			}
			jsonEqual(t, blocks[1].Input, `{"path":"a.go"}`)
			if !reflect.DeepEqual(r.calls()[0], blocks[1]) {
				t.Errorf("emitted call %+v differs from the block %+v", r.calls()[0], blocks[1])
			}

			next := hello
			next.Messages = append(append([]providers.Message(nil), hello.Messages...), r.resp.Message,
				providers.Message{Role: providers.User, Blocks: []providers.Block{{Kind: providers.ToolResult, ToolID: blocks[1].ToolID, Text: "(empty)"}}})
			r2 := run(t.Context(), p, next)
			if r2.err != nil || r2.text() != "It is empty." || r2.resp.Stop != providers.EndTurn {
				t.Fatalf("second call: %v %q %q", r2.err, r2.text(), r2.resp.Stop)
			}
			if len(s.Requests()) != 2 {
				t.Errorf("%d requests", len(s.Requests()))
			}
		})
	}
}

func TestParallelToolCalls(t *testing.T) {
	quirks := map[string]scripted.Faults{
		"standard":           {},
		"whole args":         {WholeArgs: true},
		"no index":           {NoIndex: true},
		"zero index":         {ZeroIndex: true},
		"no id":              {NoID: true},
		"no index no id":     {NoIndex: true, NoID: true},
		"zero index no id":   {ZeroIndex: true, NoID: true},
		"zero, no id, whole": {ZeroIndex: true, NoID: true, WholeArgs: true},
	}
	for _, f := range formats {
		for name, q := range quirks {
			if f == scripted.Anthropic && name != "standard" {
				continue
			}
			t.Run(string(f)+"/"+name, func(t *testing.T) {
				s := serve(t, f, scripted.Response{
					Parts: []scripted.Part{
						tool("read", `{"path":"a.go"}`),
						tool("read", `{"path":"b.go"}`),
						tool("grep", `{"pattern":"func ","glob":"**/*.go"}`),
					},
					Faults: q,
				})
				r := run(t.Context(), client(f, s.URL(), "", 0), hello)
				if r.err != nil {
					t.Fatal(r.err)
				}
				calls := r.calls()
				if len(calls) != 3 {
					t.Fatalf("%d calls: %+v", len(calls), calls)
				}
				ids := map[string]bool{}
				for i, want := range []string{`{"path":"a.go"}`, `{"path":"b.go"}`, `{"pattern":"func ","glob":"**/*.go"}`} {
					jsonEqual(t, calls[i].Input, want)
					ids[calls[i].ToolID] = true
				}
				if calls[0].ToolName != "read" || calls[1].ToolName != "read" || calls[2].ToolName != "grep" {
					t.Errorf("names %q %q %q", calls[0].ToolName, calls[1].ToolName, calls[2].ToolName)
				}
				if len(ids) != 3 || ids[""] {
					t.Errorf("ids not distinct and set: %v", ids)
				}
				if r.resp.Stop != providers.StopToolUse {
					t.Errorf("stop %q", r.resp.Stop)
				}
			})
		}
	}
}

// TestOllamaStopWithToolCalls: a server that finishes tool calls with
// "stop" still asks for them to run.
func TestOllamaStopWithToolCalls(t *testing.T) {
	s := serve(t, scripted.OpenAIChat, scripted.Response{Parts: []scripted.Part{tool("read", `{}`)}, Stop: "stop"})
	r := run(t.Context(), client(scripted.OpenAIChat, s.URL(), "", 0), hello)
	if r.err != nil || r.resp.Stop != providers.StopToolUse || len(r.calls()) != 1 {
		t.Fatalf("%v %q %d calls", r.err, r.resp.Stop, len(r.calls()))
	}
}

func TestThinkingRoundTrip(t *testing.T) {
	s := serve(t, scripted.Anthropic,
		scripted.Response{Parts: []scripted.Part{
			{Thinking: "The user "}, {Thinking: "wants a file.", Signature: "c2lnbmF0dXJl"},
			{Redacted: "ZW5jcnlwdGVk"},
			tool("read", `{"path":"a.go"}`),
		}},
		scripted.Response{Parts: []scripted.Part{text("Done.")}},
	)
	p := client(scripted.Anthropic, s.URL(), "", 0)
	req := hello
	req.ThinkingBudget = 2048
	r := run(t.Context(), p, req)
	if r.err != nil {
		t.Fatal(r.err)
	}
	want := []providers.EventKind{providers.ThinkingDelta, providers.ThinkingDelta, providers.ToolCall}
	if !reflect.DeepEqual(r.kinds(), want) {
		t.Fatalf("events %v", r.kinds())
	}
	th := r.resp.Message.Blocks[0]
	if th.Kind != providers.Thinking || th.Text != "The user wants a file." || th.Signature != "c2lnbmF0dXJl" {
		t.Fatalf("thinking block %+v", th)
	}
	if rd := r.resp.Message.Blocks[1]; rd.Kind != providers.RedactedThinking || rd.Signature != "ZW5jcnlwdGVk" || rd.Text != "" {
		t.Fatalf("redacted thinking block %+v", rd)
	}
	first := body(t, s, 0)
	if th, _ := first["thinking"].(map[string]any); th["type"] != "enabled" || th["budget_tokens"] != 2048.0 {
		t.Errorf("thinking %v", first["thinking"])
	}
	if first["max_tokens"].(float64) <= 2048 {
		t.Errorf("max_tokens %v is not above the thinking budget", first["max_tokens"])
	}

	req.Messages = append(append([]providers.Message(nil), req.Messages...), r.resp.Message,
		providers.Message{Role: providers.User, Blocks: []providers.Block{{Kind: providers.ToolResult, ToolID: r.calls()[0].ToolID, Text: "package a"}}})
	if r := run(t.Context(), p, req); r.err != nil {
		t.Fatal(r.err)
	}
	msgs := body(t, s, 1)["messages"].([]any)
	sent := msgs[1].(map[string]any)["content"].([]any)
	if th := sent[0].(map[string]any); th["type"] != "thinking" || th["thinking"] != "The user wants a file." || th["signature"] != "c2lnbmF0dXJl" || th["cache_control"] != nil {
		t.Errorf("thinking sent back as %v", th)
	}
	if rd := sent[1].(map[string]any); rd["type"] != "redacted_thinking" || rd["data"] != "ZW5jcnlwdGVk" || len(rd) != 2 {
		t.Errorf("redacted thinking sent back as %v", rd)
	}
}

func TestReasoningContent(t *testing.T) {
	s := serve(t, scripted.OpenAIChat, scripted.Response{Parts: []scripted.Part{{Thinking: "Hmm, "}, {Thinking: "easy."}, text("4")}})
	r := run(t.Context(), client(scripted.OpenAIChat, s.URL(), "", 0), hello)
	if r.err != nil {
		t.Fatal(r.err)
	}
	b := r.resp.Message.Blocks
	if len(b) != 2 || b[0].Kind != providers.Thinking || b[0].Text != "Hmm, easy." || b[1].Text != "4" {
		t.Fatalf("blocks %+v", b)
	}
	if r.events[0].Kind != providers.ThinkingDelta {
		t.Errorf("events %v", r.kinds())
	}
}

func TestPingMidStream(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			s := serve(t, f, scripted.Response{Parts: []scripted.Part{{Ping: true}, text("a"), {Ping: true}, text("b")}})
			r := run(t.Context(), client(f, s.URL(), "", 0), hello)
			if r.err != nil || r.text() != "ab" || len(r.events) != 2 {
				t.Fatalf("%v %q %v", r.err, r.text(), r.kinds())
			}
		})
	}
}

func TestStopReasons(t *testing.T) {
	cases := []struct {
		f    scripted.Format
		stop string
		want providers.StopReason
	}{
		{scripted.Anthropic, "end_turn", providers.EndTurn},
		{scripted.Anthropic, "max_tokens", providers.MaxTokens},
		{scripted.Anthropic, "refusal", providers.Refusal},
		{scripted.Anthropic, "context_window", providers.ContextWindow},
		{scripted.Anthropic, "pause_turn", providers.Paused},
		{scripted.Anthropic, "stop_sequence", providers.EndTurn},
		{scripted.OpenAIChat, "max_tokens", providers.MaxTokens},
		{scripted.OpenAIChat, "refusal", providers.Refusal},
		{scripted.OpenAIChat, "end_turn", providers.EndTurn},
	}
	for _, c := range cases {
		t.Run(string(c.f)+"/"+c.stop, func(t *testing.T) {
			s := serve(t, c.f, scripted.Response{Parts: []scripted.Part{text("partial")}, Stop: c.stop})
			r := run(t.Context(), client(c.f, s.URL(), "", 0), hello)
			if r.err != nil || r.resp.Stop != c.want {
				t.Fatalf("%v %q, want %q", r.err, r.resp.Stop, c.want)
			}
		})
	}
}

// TestMaxTokensInsideToolCall: a call cut off by the output limit is not
// run half-formed; Stop says why.
func TestMaxTokensInsideToolCall(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			s := serve(t, f, scripted.Response{
				Parts: []scripted.Part{text("Writing"), {Tool: &scripted.ToolCall{Name: "write", Input: json.RawMessage(`"{\"content\": \"cut"`)}}},
				Stop:  "max_tokens",
			})
			r := run(t.Context(), client(f, s.URL(), "", 0), hello)
			if r.err != nil || r.resp.Stop != providers.MaxTokens || len(r.calls()) != 0 {
				t.Fatalf("%v %q %d calls", r.err, r.resp.Stop, len(r.calls()))
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	cases := []struct {
		name string
		resp scripted.Response
		wait time.Duration
	}{
		{"429 retry-after-ms", scripted.Response{Status: 429, RetryAfterMs: 150}, 150 * time.Millisecond},
		{"529 retry-after seconds", scripted.Response{Status: 529, RetryAfter: "1"}, time.Second},
	}
	for _, f := range formats {
		for _, c := range cases {
			t.Run(string(f)+"/"+c.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					s, hc := servePiped(t, f, c.resp, scripted.Response{Parts: []scripted.Part{text("ok")}})
					start := time.Now()
					r := run(t.Context(), clientOver(hc, f, s.URL(), "", 0), hello)
					elapsed := time.Since(start) // on the bubble's clock: the wait is not spent
					if r.err != nil || r.text() != "ok" {
						t.Fatalf("%v %q", r.err, r.text())
					}
					retries := r.retries()
					if len(retries) != 1 || retries[0].Attempt != 1 || retries[0].Wait != c.wait || !strings.Contains(retries[0].Reason, "scripted") {
						t.Fatalf("retries %+v", retries)
					}
					if r.events[0].Kind != providers.Retrying {
						t.Errorf("the Retrying event does not come first: %v", r.kinds())
					}
					if elapsed < c.wait {
						t.Errorf("retried after %v, before the %v asked", elapsed, c.wait)
					}
				})
			})
		}
	}
}

func TestGiveUpAfterMaxRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		busy := scripted.Response{Status: 503, RetryAfterMs: 1}
		s, hc := servePiped(t, scripted.OpenAIChat, busy, busy, busy, busy)
		r := run(t.Context(), clientOver(hc, scripted.OpenAIChat, s.URL(), "", 2), hello)
		var e *providers.Error
		if !errors.As(r.err, &e) || e.Status != 503 || !e.Retryable {
			t.Fatalf("error %#v", r.err)
		}
		if len(r.retries()) != 2 || len(s.Requests()) != 3 {
			t.Errorf("%d retries, %d requests", len(r.retries()), len(s.Requests()))
		}
	})
}

func TestAuthFailsAtOnce(t *testing.T) {
	for _, f := range formats {
		for _, status := range []int{401, 403} {
			t.Run(fmt.Sprintf("%s/%d", f, status), func(t *testing.T) {
				s := serve(t, f, scripted.Response{Status: status}, scripted.Response{Parts: []scripted.Part{text("no")}})
				r := run(t.Context(), client(f, s.URL(), "", 0), hello)
				if !errors.Is(r.err, providers.ErrAuth) {
					t.Fatalf("error %v is not ErrAuth", r.err)
				}
				if len(s.Requests()) != 1 || len(r.events) != 0 {
					t.Errorf("%d requests, events %v", len(s.Requests()), r.kinds())
				}
			})
		}
	}
}

func TestOverloadedMidStream(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f)+"/before any text", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { // the retry's backoff passes on the bubble's clock
				s, hc := servePiped(t, f,
					scripted.Response{Parts: []scripted.Part{{Ping: true}, {Error: "overloaded_error"}}},
					scripted.Response{Parts: []scripted.Part{text("fine")}})
				r := run(t.Context(), clientOver(hc, f, s.URL(), "", 0), hello)
				if r.err != nil || r.text() != "fine" || len(r.retries()) != 1 {
					t.Fatalf("%v %q %v", r.err, r.text(), r.kinds())
				}
				if !strings.Contains(r.retries()[0].Reason, "overloaded") {
					t.Errorf("reason %q", r.retries()[0].Reason)
				}
			})
		})
		t.Run(string(f)+"/after text", func(t *testing.T) {
			s := serve(t, f,
				scripted.Response{Parts: []scripted.Part{text("half"), {Error: "overloaded_error"}}},
				scripted.Response{Parts: []scripted.Part{text("fine")}})
			r := run(t.Context(), client(f, s.URL(), "", 0), hello)
			var e *providers.Error
			if !errors.As(r.err, &e) || !e.Retryable {
				t.Fatalf("error %#v", r.err)
			}
			if r.text() != "half" || len(s.Requests()) != 1 || r.resp.Message.Blocks[0].Text != "half" {
				t.Errorf("text %q, %d requests, blocks %+v", r.text(), len(s.Requests()), r.resp.Message.Blocks)
			}
		})
	}
}

func TestStreamCut(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f)+"/mid-message", func(t *testing.T) {
			s := serve(t, f,
				scripted.Response{Parts: []scripted.Part{text("one "), text("two "), text("three")}, Faults: scripted.Faults{CutAfter: 3}},
				scripted.Response{Parts: []scripted.Part{text("again")}})
			r := run(t.Context(), client(f, s.URL(), "", 0), hello)
			if r.err == nil || !strings.Contains(r.err.Error(), "cut") {
				t.Fatalf("error %v", r.err)
			}
			if r.text() == "" || strings.Contains(r.text(), "three") || len(s.Requests()) != 1 {
				t.Errorf("text %q, %d requests", r.text(), len(s.Requests()))
			}
		})
		t.Run(string(f)+"/before any text", func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { // the retry's backoff passes on the bubble's clock
				s, hc := servePiped(t, f,
					scripted.Response{Parts: []scripted.Part{text("lost")}, Faults: scripted.Faults{CutAfter: 1}},
					scripted.Response{Parts: []scripted.Part{text("again")}})
				r := run(t.Context(), clientOver(hc, f, s.URL(), "", 0), hello)
				if r.err != nil || r.text() != "again" || len(r.retries()) != 1 {
					t.Fatalf("%v %q %v", r.err, r.text(), r.kinds())
				}
			})
		})
	}
}

// TestConnectionRefused: nothing listening is retried, then reported.
func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close()
	// A refused dial returns at once, so the bubble's clock can pass the
	// backoff; the bubble's own transport keeps its connections apart.
	synctest.Test(t, func(t *testing.T) {
		hc := &http.Client{Transport: &http.Transport{}}
		r := run(t.Context(), clientOver(hc, scripted.Anthropic, url, "", 1), hello)
		var e *providers.Error
		if !errors.As(r.err, &e) || !strings.Contains(e.Message, "cannot reach") || len(r.retries()) != 1 {
			t.Fatalf("%v, %v", r.err, r.kinds())
		}
	})
}

func TestCancelMidStream(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			parts := []scripted.Part{}
			for range 50 {
				parts = append(parts, text("tick "))
			}
			synctest.Test(t, func(t *testing.T) {
				const delay = 100 * time.Millisecond
				s, hc := servePiped(t, f, scripted.Response{Parts: parts, Faults: scripted.Faults{DelayMs: int(delay / time.Millisecond)}})
				ctx, cancel := context.WithCancel(t.Context())
				var cancelled time.Time
				n := 0
				resp, err := clientOver(hc, f, s.URL(), "", 0).Stream(ctx, hello, func(e providers.Event) {
					if n++; n == 2 {
						cancelled = time.Now()
						cancel()
					}
				})
				// On the bubble's clock no time passes unless the client
				// waits for the server's next event, one delay away.
				if took := time.Since(cancelled); took >= delay {
					t.Errorf("returned %v after the cancel", took)
				}
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("error %v", err)
				}
				if resp.Message.Blocks[0].Text != "tick tick " {
					t.Errorf("partial response %+v", resp.Message)
				}
			})
		})
	}
}

// TestNothingEmittedAfterCancel: events already buffered when the caller
// cancels are dropped, not shown.
func TestNothingEmittedAfterCancel(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			parts := []scripted.Part{}
			for range 200 {
				parts = append(parts, text("x"))
			}
			s := serve(t, f, scripted.Response{Parts: parts})
			ctx, cancel := context.WithCancel(t.Context())
			n := 0
			_, err := client(f, s.URL(), "", 0).Stream(ctx, hello, func(providers.Event) {
				n++
				cancel()
			})
			if !errors.Is(err, context.Canceled) || n != 1 {
				t.Fatalf("error %v, %d events", err, n)
			}
		})
	}
}

// TestRetryAfterTooLong: a provider asking for minutes is reported, not
// waited for behind a status line.
func TestRetryAfterTooLong(t *testing.T) {
	s := serve(t, scripted.Anthropic, scripted.Response{Status: 429, RetryAfter: "3600"})
	r := run(t.Context(), client(scripted.Anthropic, s.URL(), "", 0), hello)
	if r.err == nil || !strings.Contains(r.err.Error(), "wait 1h0m0s") || len(r.events) != 0 {
		t.Fatalf("%v %v", r.err, r.kinds())
	}
}

func TestCancelDuringRetryWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, hc := servePiped(t, scripted.Anthropic, scripted.Response{Status: 429, RetryAfter: "30"})
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		_, err := clientOver(hc, scripted.Anthropic, s.URL(), "", 0).Stream(ctx, hello, func(e providers.Event) {
			if e.Kind == providers.Retrying {
				cancel()
			}
		})
		// On the bubble's clock a call that sat out the wait took 30 s.
		if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
			t.Fatalf("error %v after %v", err, time.Since(start))
		}
	})
}

// conversation has every kind of block, for the request shape tests.
var conversation = providers.Request{
	Model:  "scripted-model",
	System: "You are terse.",
	Tools: []providers.Tool{
		{Name: "read", Description: "Reads a file.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "grep", Description: "Searches.", InputSchema: json.RawMessage(`{"type":"object"}`)},
	},
	Messages: []providers.Message{
		{Role: providers.User, Blocks: []providers.Block{{Kind: providers.Text, Text: "read a and b"}}},
		{Role: providers.Assistant, Blocks: []providers.Block{
			{Kind: providers.Text, Text: "Reading."},
			{Kind: providers.ToolUse, ToolID: "t1", ToolName: "read", Input: json.RawMessage(`{"path":"a"}`)},
			{Kind: providers.ToolUse, ToolID: "t2", ToolName: "read", Input: json.RawMessage(`{"path":"b"}`)},
		}},
		{Role: providers.User, Blocks: []providers.Block{
			{Kind: providers.ToolResult, ToolID: "t1", Text: "A"},
			{Kind: providers.ToolResult, ToolID: "t2", Text: "no such file", IsError: true},
		}},
	},
}

func TestAnthropicRequestShape(t *testing.T) {
	s := serve(t, scripted.Anthropic, scripted.Response{Parts: []scripted.Part{text("ok")}}, scripted.Response{Parts: []scripted.Part{text("ok")}})
	if r := run(t.Context(), client(scripted.Anthropic, s.URL(), "", 0), conversation); r.err != nil {
		t.Fatal(r.err)
	}
	req := s.Requests()[0]
	if req.Path != "/v1/messages" || req.Header.Get("Anthropic-Version") != "2023-06-01" || req.Header.Get("X-Api-Key") != "" {
		t.Errorf("path %q, headers %v", req.Path, req.Header)
	}
	jsonEqual(t, req.Body, `{
		"model": "scripted-model", "max_tokens": 8192, "stream": true,
		"system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}],
		"tools": [
			{"name": "read", "description": "Reads a file.", "input_schema": {"type": "object"}},
			{"name": "grep", "description": "Searches.", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}
		],
		"messages": [
			{"role": "user", "content": [{"type": "text", "text": "read a and b"}]},
			{"role": "assistant", "content": [
				{"type": "text", "text": "Reading."},
				{"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a"}},
				{"type": "tool_use", "id": "t2", "name": "read", "input": {"path": "b"}}
			]},
			{"role": "user", "content": [
				{"type": "tool_result", "tool_use_id": "t1", "content": "A"},
				{"type": "tool_result", "tool_use_id": "t2", "content": "no such file", "is_error": true, "cache_control": {"type": "ephemeral"}}
			]}
		]
	}`)

	keyed := providers.NewAnthropic(providers.AnthropicOptions{URL: s.URL(), APIKey: "placeholder"})
	if r := run(t.Context(), keyed, hello); r.err != nil {
		t.Fatal(r.err)
	}
	if got := s.Requests()[1].Header.Get("X-Api-Key"); got != "placeholder" {
		t.Errorf("x-api-key %q", got)
	}
}

func TestOpenAIRequestShape(t *testing.T) {
	s := serve(t, scripted.OpenAIChat, scripted.Response{Parts: []scripted.Part{text("ok")}}, scripted.Response{Parts: []scripted.Part{text("ok")}})
	if r := run(t.Context(), client(scripted.OpenAIChat, s.URL(), "", 0), conversation); r.err != nil {
		t.Fatal(r.err)
	}
	req := s.Requests()[0]
	if _, ok := req.Header["Authorization"]; ok || req.Path != "/v1/chat/completions" {
		t.Errorf("path %q, authorization header sent without a key: %v", req.Path, req.Header)
	}
	jsonEqual(t, req.Body, `{
		"model": "scripted-model", "stream": true, "stream_options": {"include_usage": true},
		"tools": [
			{"type": "function", "function": {"name": "read", "description": "Reads a file.", "parameters": {"type": "object"}}},
			{"type": "function", "function": {"name": "grep", "description": "Searches.", "parameters": {"type": "object"}}}
		],
		"messages": [
			{"role": "system", "content": "You are terse."},
			{"role": "user", "content": "read a and b"},
			{"role": "assistant", "content": "Reading.", "tool_calls": [
				{"id": "t1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}},
				{"id": "t2", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"b\"}"}}
			]},
			{"role": "tool", "tool_call_id": "t1", "content": "A"},
			{"role": "tool", "tool_call_id": "t2", "content": "Error: no such file"}
		]
	}`)

	keyed := providers.NewOpenAIChat(providers.OpenAIOptions{URL: s.URL(), APIKey: "placeholder"})
	if r := run(t.Context(), keyed, hello); r.err != nil {
		t.Fatal(r.err)
	}
	if got := s.Requests()[1].Header.Get("Authorization"); got != "Bearer placeholder" {
		t.Errorf("authorization %q", got)
	}
}

// TestAssistantOnlyToolCalls: an assistant message of only tool calls has
// "content": null, which every server takes.
func TestAssistantOnlyToolCalls(t *testing.T) {
	s := serve(t, scripted.OpenAIChat, scripted.Response{Parts: []scripted.Part{text("ok")}})
	req := hello
	req.Messages = append(append([]providers.Message(nil), hello.Messages...),
		providers.Message{Role: providers.Assistant, Blocks: []providers.Block{{Kind: providers.ToolUse, ToolID: "t", ToolName: "read"}}},
		providers.Message{Role: providers.User, Blocks: []providers.Block{{Kind: providers.ToolResult, ToolID: "t", Text: "x"}}})
	if r := run(t.Context(), client(scripted.OpenAIChat, s.URL(), "", 0), req); r.err != nil {
		t.Fatal(r.err)
	}
	msgs := body(t, s, 0)["messages"].([]any)
	asst := msgs[2].(map[string]any)
	if c, ok := asst["content"]; !ok || c != nil || len(msgs) != 4 {
		t.Errorf("messages %v", msgs)
	}
	if args := asst["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"]; args != "{}" {
		t.Errorf("arguments %v", args)
	}
}

// TestJSONInsteadOfStream: a server that ignores stream: true is reported
// at once, not retried as a cut stream.
func TestJSONInsteadOfStream(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_, _ = w.Write([]byte(`{"error":{"message":"streaming is not supported"}}`))
	}))
	defer srv.Close()
	for _, f := range formats {
		r := run(t.Context(), client(f, srv.URL, "", 0), hello)
		if r.err == nil || !strings.Contains(r.err.Error(), "streaming is not supported") || len(r.events) != 0 {
			t.Errorf("%s: %v %v", f, r.err, r.kinds())
		}
	}
	if calls != 2 {
		t.Errorf("%d calls, want one per format", calls)
	}
}

// TestScriptFromJSON plays a script loaded from JSON, as tandem demo
// embeds one, through both clients.
func TestScriptFromJSON(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			script, err := scripted.Parse([]byte(`{"format": "` + string(f) + `", "responses": [
				{"status": 503, "retryAfterMs": 10},
				{"parts": [{"text": "Reading."}, {"tool": {"name": "read", "input": {"path": "main.go"}}}],
				 "usage": {"input": 10, "output": 5}},
				{"parts": [{"text": "Done."}]}
			]}`))
			if err != nil {
				t.Fatal(err)
			}
			s, err := scripted.Start(script)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			p := client(f, s.URL(), "", 0)
			r := run(t.Context(), p, hello)
			want := []providers.EventKind{providers.Retrying, providers.TextDelta, providers.ToolCall}
			if r.err != nil || !reflect.DeepEqual(r.kinds(), want) || r.resp.Usage.Output != 5 {
				t.Fatalf("%v %v %+v", r.err, r.kinds(), r.resp.Usage)
			}
			if r := run(t.Context(), p, hello); r.err != nil || r.text() != "Done." {
				t.Fatalf("%v %q", r.err, r.text())
			}
			if r := run(t.Context(), p, hello); r.err == nil || !strings.Contains(r.err.Error(), "no response for request 4") {
				t.Fatalf("past the script's end: %v", r.err)
			}
		})
	}
}

// TestUnreadableToolArguments: a call whose arguments are not a JSON
// object does not end the response: it arrives with Input "{}" and the
// parse error, in its place among the others, and what streamed is kept.
func TestUnreadableToolArguments(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			s := serve(t, f, scripted.Response{Parts: []scripted.Part{
				text("Reading both. "),
				tool("read", `"{\"path\": \"a.go\", \"lines\": "`),
				tool("read", `{"path":"b.go"}`),
				tool("grep", `"[\"x\"]"`),
			}})
			r := run(t.Context(), client(f, s.URL(), "", 0), hello)
			if r.err != nil || r.resp.Stop != providers.StopToolUse || r.text() != "Reading both. " {
				t.Fatalf("%v %q %q", r.err, r.resp.Stop, r.text())
			}
			calls := r.calls()
			if len(calls) != 3 {
				t.Fatalf("%d calls: %+v", len(calls), calls)
			}
			for i, want := range []string{"unexpected end of JSON input", "", "not an object"} {
				c := calls[i]
				if want == "" {
					if c.InputError != "" || string(c.Input) != `{"path":"b.go"}` {
						t.Errorf("call %d: %+v", i, c)
					}
					continue
				}
				if !strings.Contains(c.InputError, want) || string(c.Input) != "{}" {
					t.Errorf("call %d: input %s, error %q, want one saying %q", i, c.Input, c.InputError, want)
				}
			}
			if !strings.Contains(calls[0].InputError, `they began: {"path": "a.go", "lines":`) {
				t.Errorf("the error does not show what came: %q", calls[0].InputError)
			}
			if got := r.resp.Message.Blocks; len(got) != 4 || got[1].InputError == "" || got[0].Text != "Reading both. " {
				t.Errorf("response blocks %+v", got)
			}
		})
	}
}
