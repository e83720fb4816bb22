package providers_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/scripted"
)

// sdkModules is where scripts/setup installs the official TypeScript SDKs.
const sdkModules = "../../.deps/sdkcheck/node_modules"

// TestOfficialSDKsAgree streams each script once with the provider's
// official SDK (through testdata/sdkcheck.cjs) and once with tandem's
// client, and compares what the two assembled. The SDKs parse the real
// services' streams, so agreement says the scripted streams are faithful
// and tandem parses them the same way.
func TestOfficialSDKsAgree(t *testing.T) {
	usage := providers.Usage{Input: 120, Output: 45, CacheRead: 800, CacheCreate: 60}
	cases := map[string]scripted.Response{
		"text": {Parts: []scripted.Part{text("Hello, "), text("wörld — ünïcode ✓")}, Usage: usage},
		"tool call": {Parts: []scripted.Part{text("Reading."), tool("read", `{"path":"dir/a.go","lines":[1,20],"deep":{"x":null}}`)},
			Usage: usage},
		"parallel tool calls": {Parts: []scripted.Part{
			tool("read", `{"path":"a.go"}`), tool("grep", `{"pattern":"\"quoted\"\n"}`), tool("glob", `{}`),
		}, Usage: usage},
		"ping":       {Parts: []scripted.Part{{Ping: true}, text("a"), {Ping: true}, text("b")}},
		"max tokens": {Parts: []scripted.Part{text("cut sh")}, Stop: "max_tokens", Usage: usage},
	}
	only := map[scripted.Format]map[string]scripted.Response{}
	only[scripted.OpenAIChat] = map[string]scripted.Response{
		"reasoning": {Parts: []scripted.Part{{Thinking: "Let me see."}, text("Yes."), tool("read", `{"path":"c"}`)}, Usage: usage},
	}
	only[scripted.Anthropic] = map[string]scripted.Response{
		"thinking": {Parts: []scripted.Part{
			{Thinking: "First "}, {Thinking: "thought."}, {Signature: "c2lnLTE="},
			{Thinking: "Second.", Signature: "c2lnLTI="}, {Redacted: "b3BhcXVl"},
			text("Answer."), tool("read", `{"path":"b"}`),
		}, Usage: usage},
		"refusal":        {Parts: []scripted.Part{text("No.")}, Stop: "refusal"},
		"context window": {Parts: []scripted.Part{text("…")}, Stop: "context_window"},
	}
	for _, f := range formats {
		names, responses := sortedCases(cases, only[f])
		t.Run(string(f), func(t *testing.T) {
			lines := sdkRead(t, f, responses)
			ours := serve(t, f, responses...)
			p := client(f, ours.URL(), "", -1)
			for i, name := range names {
				r := run(t.Context(), p, hello)
				if r.err != nil {
					t.Fatalf("%s: %v", name, r.err)
				}
				sameJSON(t, name, "tandem", assembled(r.resp, f == scripted.Anthropic), lines[i])
			}
		})
	}
}

// TestOfficialSDKsReadTheServedFormats streams each script with the
// official SDK of a format tandem only serves — OpenAI Responses, which
// Codex speaks, and Gemini, which Gemini CLI speaks — and compares what
// the SDK assembled with what the script says, so the streams those CLIs
// are tested against are the real services'.
func TestOfficialSDKsReadTheServedFormats(t *testing.T) {
	usage := providers.Usage{Input: 120, Output: 45, CacheRead: 800}
	call := func(id, name, input string) scripted.Part {
		p := tool(name, input)
		p.Tool.ID = id
		return p
	}
	cases := map[string]scripted.Response{
		"text": {Parts: []scripted.Part{text("Hello, "), text("wörld — ünïcode ✓")}, Usage: usage},
		"tool call": {Parts: []scripted.Part{text("Reading."), call("call_1", "read", `{"path":"dir/a.go","lines":[1,20],"deep":{"x":null}}`)},
			Usage: usage},
		"parallel tool calls": {Parts: []scripted.Part{
			call("call_1", "read", `{"path":"a.go"}`), call("call_2", "grep", `{"pattern":"\"quoted\"\n"}`), call("call_3", "glob", `{}`),
		}, Usage: usage},
		"thinking": {Parts: []scripted.Part{
			{Thinking: "First "}, {Thinking: "thought."}, {Signature: "c2lnLTE="}, text("Answer."), call("call_1", "read", `{"path":"b"}`),
		}, Usage: usage},
		"ping":       {Parts: []scripted.Part{{Ping: true}, text("a"), {Ping: true}, text("b")}},
		"max tokens": {Parts: []scripted.Part{text("cut sh")}, Stop: "max_tokens", Usage: usage},
		"refusal":    {Parts: []scripted.Part{text("No.")}, Stop: "refusal"},
	}
	namespaced := call("call_1", "read", `{"path":"a.go"}`)
	namespaced.Tool.Namespace = "mcp__tandem"
	only := map[scripted.Format]map[string]scripted.Response{
		scripted.OpenAIResponses: {"namespaced call": {Parts: []scripted.Part{namespaced}}},
	}
	for _, f := range []scripted.Format{scripted.OpenAIResponses, scripted.Gemini} {
		names, responses := sortedCases(cases, only[f])
		t.Run(string(f), func(t *testing.T) {
			lines := sdkRead(t, f, responses)
			for i, name := range names {
				sameJSON(t, name, "the script", meant(responses[i]), lines[i])
			}
		})
	}
}

// sortedCases is the cases of the sets, each set sorted by name.
func sortedCases(sets ...map[string]scripted.Response) ([]string, []scripted.Response) {
	var names []string
	var responses []scripted.Response
	for _, set := range sets {
		for _, name := range slices.Sorted(maps.Keys(set)) {
			names = append(names, name)
			responses = append(responses, set[name])
		}
	}
	return names, responses
}

// sdkRead streams the responses from a scripted server of format f with
// the format's official SDK and returns what it assembled, one JSON line
// per response.
func sdkRead(t *testing.T, f scripted.Format, responses []scripted.Response) [][]byte {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is missing: run scripts/setup")
	}
	modules, err := filepath.Abs(sdkModules)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"@anthropic-ai/sdk", "openai", "@google/genai"} {
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			t.Fatalf("the npm package %s is missing from %s: run scripts/setup", pkg, modules)
		}
	}
	srv := serve(t, f, responses...)
	cmd := exec.CommandContext(t.Context(), node, "testdata/sdkcheck.cjs", modules, string(f), srv.URL(), strconv.Itoa(len(responses)))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the SDK failed: %v\n%s", err, stderr.Bytes())
	}
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	if len(lines) != len(responses) {
		t.Fatalf("the SDK printed %d results for %d responses:\n%s", len(lines), len(responses), out)
	}
	return lines
}

// sameJSON reports a case whose value, as JSON, is not what the SDK
// assembled.
func sameJSON(t *testing.T, name, whose string, v any, sdk []byte) {
	t.Helper()
	got, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(sdk, &w); err != nil {
		t.Fatalf("%s: %v: %s", name, err, sdk)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: %s assembled\n%s\nthe SDK assembled\n%s", name, whose, got, sdk)
	}
}

type sdkThinking struct {
	Text      string `json:"text"`
	Signature string `json:"signature"`
}

type sdkCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Namespace string          `json:"namespace,omitempty"`
}

type sdkMessage struct {
	Text      string          `json:"text"`
	Thinking  []sdkThinking   `json:"thinking"`
	ToolCalls []sdkCall       `json:"toolCalls"`
	Stop      string          `json:"stop"`
	Usage     providers.Usage `json:"usage"`
}

// assembled is a Response in sdkcheck.cjs's shape. Chat Completions
// reasoning is left out: the SDK does not assemble it.
func assembled(r providers.Response, thinking bool) sdkMessage {
	out := sdkMessage{Thinking: []sdkThinking{}, ToolCalls: []sdkCall{}, Stop: string(r.Stop), Usage: r.Usage}
	for _, b := range r.Message.Blocks {
		switch b.Kind {
		case providers.Text:
			out.Text += b.Text
		case providers.Thinking:
			if thinking {
				out.Thinking = append(out.Thinking, sdkThinking{b.Text, b.Signature})
			}
		case providers.ToolUse:
			out.ToolCalls = append(out.ToolCalls, sdkCall{ID: b.ToolID, Name: b.ToolName, Input: b.Input})
		}
	}
	return out
}

// meant is what a response's script says, in sdkcheck.cjs's shape: its
// text, its thinking blocks (consecutive thinking parts up to a
// signature), its calls, its stop, and the usage as the served formats
// count it, the cache writes in the input (they have no count of their
// own).
func meant(r scripted.Response) sdkMessage {
	u := r.Usage
	out := sdkMessage{Thinking: []sdkThinking{}, ToolCalls: []sdkCall{}, Stop: r.Stop,
		Usage: providers.Usage{Input: u.Input + u.CacheCreate, Output: u.Output, CacheRead: u.CacheRead}}
	open := false
	for _, p := range r.Parts {
		switch {
		case p.Thinking != "" || p.Signature != "":
			if !open {
				out.Thinking = append(out.Thinking, sdkThinking{})
			}
			last := &out.Thinking[len(out.Thinking)-1]
			last.Text += p.Thinking
			last.Signature = p.Signature
			open = p.Signature == ""
			continue
		case p.Text != "":
			out.Text += p.Text
		case p.Tool != nil:
			out.ToolCalls = append(out.ToolCalls, sdkCall{p.Tool.ID, p.Tool.Name, p.Tool.Input, p.Tool.Namespace})
		}
		open = false
	}
	if out.Stop == "" {
		out.Stop = string(providers.EndTurn)
		if len(out.ToolCalls) > 0 {
			out.Stop = string(providers.StopToolUse)
		}
	}
	return out
}
