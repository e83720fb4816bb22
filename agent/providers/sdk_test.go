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
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is missing: run scripts/setup")
	}
	modules, err := filepath.Abs(sdkModules)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"@anthropic-ai/sdk", "openai"} {
		if _, err := os.Stat(filepath.Join(modules, pkg, "package.json")); err != nil {
			t.Fatalf("the npm package %s is missing from %s: run scripts/setup", pkg, modules)
		}
	}

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
		var names []string
		var responses []scripted.Response
		for _, set := range []map[string]scripted.Response{cases, only[f]} {
			for _, name := range slices.Sorted(maps.Keys(set)) {
				names = append(names, name)
				responses = append(responses, set[name])
			}
		}
		t.Run(string(f), func(t *testing.T) {
			sdkServer := serve(t, f, responses...)
			cmd := exec.CommandContext(t.Context(), node, "testdata/sdkcheck.cjs", modules, string(f), sdkServer.URL(), strconv.Itoa(len(responses)))
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

			ours := serve(t, f, responses...)
			p := client(f, ours.URL(), "", -1)
			for i, name := range names {
				r := run(t.Context(), p, hello)
				if r.err != nil {
					t.Fatalf("%s: %v", name, r.err)
				}
				got, err := json.Marshal(assembled(r.resp, f == scripted.Anthropic))
				if err != nil {
					t.Fatal(err)
				}
				var g, w any
				if err := json.Unmarshal(got, &g); err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(lines[i], &w); err != nil {
					t.Fatalf("%s: %v: %s", name, err, lines[i])
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("%s: tandem assembled\n%s\nthe SDK assembled\n%s", name, got, lines[i])
				}
			}
		})
	}
}

type sdkThinking struct {
	Text      string `json:"text"`
	Signature string `json:"signature"`
}

type sdkCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// assembled is a Response in sdkcheck.cjs's shape. Chat Completions
// reasoning is left out: the SDK does not assemble it.
func assembled(r providers.Response, thinking bool) any {
	out := struct {
		Text      string          `json:"text"`
		Thinking  []sdkThinking   `json:"thinking"`
		ToolCalls []sdkCall       `json:"toolCalls"`
		Stop      string          `json:"stop"`
		Usage     providers.Usage `json:"usage"`
	}{Thinking: []sdkThinking{}, ToolCalls: []sdkCall{}, Stop: string(r.Stop), Usage: r.Usage}
	for _, b := range r.Message.Blocks {
		switch b.Kind {
		case providers.Text:
			out.Text += b.Text
		case providers.Thinking:
			if thinking {
				out.Thinking = append(out.Thinking, sdkThinking{b.Text, b.Signature})
			}
		case providers.ToolUse:
			out.ToolCalls = append(out.ToolCalls, sdkCall{b.ToolID, b.ToolName, b.Input})
		}
	}
	return out
}
