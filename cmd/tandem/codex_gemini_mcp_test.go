package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/agent/providers/scripted"
	"github.com/tandemdev/tandem/internal/tcpcatch"
	"github.com/tandemdev/tandem/tools"
)

// servedTools are the tools `tandem mcp serve` lists in a workspace.
var servedTools = []string{"bash", "edit", "fetch", "glob", "grep", "jobs", "read", "write"}

// modelRequest is what an agent's CLI sent the scripted model: tandem's
// tools it offered (by tandem's names) and the text of the tool results
// it passed back.
type modelRequest struct {
	tools   []string
	results string
}

// scriptedModel serves a script to an agent's CLI in the world, and
// catches any connection the CLI makes elsewhere: every proxy variable
// points at a catcher, only 127.0.0.1 goes direct.
func scriptedModel(t *testing.T, w *agentWorld, script string) (*scripted.Server, *tcpcatch.Catcher) {
	t.Helper()
	s, err := scripted.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	srv, err := scripted.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	catcher := tcpcatch.Listen(t)
	proxy := "http://127.0.0.1:" + catcher.Port
	for _, k := range []string{"HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"} {
		w.env = append(w.env, k+"="+proxy, strings.ToLower(k)+"="+proxy)
	}
	w.env = append(w.env, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost")
	return srv, catcher
}

// offline checks that the CLI reached nothing but the scripted model and
// sent it no credential.
func offline(t *testing.T, srv *scripted.Server, catcher *tcpcatch.Catcher) {
	t.Helper()
	if got := catcher.Received(t); len(got) > 0 {
		t.Errorf("the CLI reached for the network: %q", got)
	}
	for i, r := range srv.Requests() {
		for _, h := range []string{"Authorization", "X-Goog-Api-Key", "Api-Key"} {
			if v := r.Header.Get(h); v != "" {
				t.Errorf("model request %d carries a credential: %s: %s", i+1, h, v)
			}
		}
	}
}

// checkRequests asserts what every test of a CLI asserts: the first model
// request offered tandem's tools (those a read-only policy admits when
// readOnly), and the second passed the model read's tagged lines.
func checkRequests(t *testing.T, reqs []modelRequest, readOnly bool) {
	t.Helper()
	if len(reqs) < 2 {
		t.Fatalf("the CLI made %d model requests; want at least 2", len(reqs))
	}
	for _, name := range servedTools {
		tool, ok := tools.Lookup(name)
		if !ok {
			t.Fatalf("tandem has no tool %s", name)
		}
		want := !readOnly || tool.ReadOnly
		if got := slices.Contains(reqs[0].tools, name); got != want {
			t.Errorf("tandem's %s offered to the model: %v, want %v (read-only: %v); offered: %v", name, got, want, tool.ReadOnly, reqs[0].tools)
		}
	}
	if !strings.Contains(reqs[1].results, "[notes.txt#") || !strings.Contains(reqs[1].results, "1:hello from notes") {
		t.Errorf("the read's result is not tagged lines of notes.txt: %s", reqs[1].results)
	}
}

// codexRequests reads Codex's Responses requests: it offers an MCP
// server's tools inside one namespace tool, mcp__SERVER, and passes a
// result back as a function_call_output of text items.
func codexRequests(t *testing.T, srv *scripted.Server) []modelRequest {
	t.Helper()
	var out []modelRequest
	for _, r := range srv.Requests() {
		var body struct {
			Tools []struct {
				Type  string `json:"type"`
				Name  string `json:"name"`
				Tools []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"tools"`
			Input []struct {
				Type   string          `json:"type"`
				Output json.RawMessage `json:"output"`
			} `json:"input"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("Codex sent a body that is not JSON: %v", err)
		}
		var mr modelRequest
		for _, tl := range body.Tools {
			if tl.Type == "namespace" && tl.Name == "mcp__tandem" {
				for _, inner := range tl.Tools {
					mr.tools = append(mr.tools, inner.Name)
				}
			}
		}
		for _, in := range body.Input {
			if in.Type != "function_call_output" {
				continue
			}
			var items []struct {
				Text string `json:"text"`
			}
			var text string
			if json.Unmarshal(in.Output, &text) != nil {
				_ = json.Unmarshal(in.Output, &items)
			}
			for _, it := range items {
				text += it.Text + "\n"
			}
			mr.results += text
		}
		out = append(out, mr)
	}
	return out
}

// Codex 0.171, the real CLI, run offline against the scripted model
// through its own provider settings (Responses, the only wire it speaks to
// a custom provider), with tandem installed by `tandem mcp install`: its
// model is offered tandem's tools, and a plain `codex exec` (approval
// policy never) runs tandem's read, annotated read-only, without asking.
func TestCodexRunsTandemsTools(t *testing.T) {
	w := newAgentWorld(t)
	w.trust()
	w.tandem("--agent", "codex", "--scope", "project")
	w.write(filepath.Join(w.ws, "notes.txt"), "hello from notes\n", false)
	srv, catcher := scriptedModel(t, w, `{"format":"openai-responses","responses":[
		{"parts":[{"tool":{"namespace":"mcp__tandem","name":"read","input":{"path":"notes.txt"}}}]},
		{"parts":[{"text":"Done."}]}]}`)
	// The workspace is no git repository, which codex exec refuses
	// without --skip-git-repo-check, trusted or not.
	out := w.run(true, "codex", "exec", "--skip-git-repo-check", "-m", "scripted-model",
		"-c", "model_provider=scripted",
		"-c", `model_providers.scripted={name="scripted",base_url="`+srv.URL()+`",wire_api="responses",request_max_retries=0,stream_max_retries=0}`,
		// What Codex fetches besides the model: its analytics, and its
		// plugin marketplace from GitHub and chatgpt.com.
		"-c", "analytics.enabled=false", "--disable", "plugins",
		"Read notes.txt")
	mustContain(t, "codex exec", out, "mcp: tandem/read (completed)")
	checkRequests(t, codexRequests(t, srv), false)
	offline(t, srv, catcher)
}

// geminiRequests reads Gemini CLI's requests: it offers an MCP server's
// tools as mcp_SERVER_TOOL and passes a result back as a functionResponse
// whose response.output is the text.
func geminiRequests(t *testing.T, srv *scripted.Server) []modelRequest {
	t.Helper()
	var out []modelRequest
	for _, r := range srv.Requests() {
		var body struct {
			Tools []struct {
				FunctionDeclarations []struct {
					Name string `json:"name"`
				} `json:"functionDeclarations"`
			} `json:"tools"`
			Contents []struct {
				Parts []struct {
					FunctionResponse *struct {
						Response struct {
							Output string `json:"output"`
						} `json:"response"`
					} `json:"functionResponse"`
				} `json:"parts"`
			} `json:"contents"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatalf("Gemini CLI sent a body that is not JSON: %v", err)
		}
		var mr modelRequest
		for _, tl := range body.Tools {
			for _, f := range tl.FunctionDeclarations {
				if name, ok := strings.CutPrefix(f.Name, "mcp_tandem_"); ok {
					mr.tools = append(mr.tools, name)
				}
			}
		}
		for _, c := range body.Contents {
			for _, p := range c.Parts {
				if p.FunctionResponse != nil {
					mr.results += p.FunctionResponse.Response.Output
				}
			}
		}
		out = append(out, mr)
	}
	return out
}

// Gemini CLI 0.61, the real CLI, run offline against the scripted model
// through GOOGLE_GEMINI_BASE_URL (its "gateway" auth, which needs no key),
// with tandem installed by `tandem mcp install`. Headless, Gemini CLI
// offers its model no MCP tool that its policy would ask about; a policy
// rule admitting the tools of server tandem annotated readOnlyHint makes
// it offer exactly tandem's read-only tools, and run the read unasked.
func TestGeminiCLIRunsTandemsTools(t *testing.T) {
	w := newAgentWorld(t)
	w.trust()
	w.tandem("--agent", "gemini", "--scope", "project")
	w.write(filepath.Join(w.ws, "notes.txt"), "hello from notes\n", false)
	// useExternal: headless, Gemini CLI 0.61 validates the auth type and
	// knows no "gateway" there ("Invalid auth method selected."), though
	// it picks that type itself for GOOGLE_GEMINI_BASE_URL; external auth
	// skips the check. Usage statistics go to play.googleapis.com.
	w.write(filepath.Join(w.home, ".gemini", "settings.json"),
		`{"security": {"auth": {"useExternal": true}}, "privacy": {"usageStatisticsEnabled": false}}`, false)
	policy := filepath.Join(w.home, "tandem-read-only.toml")
	w.write(policy, `[[rule]]
mcpName = "tandem"
toolName = "*"
toolAnnotations = { readOnlyHint = true }
decision = "allow"
priority = 100
`, false)
	srv, catcher := scriptedModel(t, w, `{"format":"gemini","responses":[
		{"parts":[{"tool":{"name":"mcp_tandem_read","input":{"path":"notes.txt"}}}]},
		{"parts":[{"text":"Done."}]}]}`)
	w.env = append(w.env, "GOOGLE_GEMINI_BASE_URL="+srv.URL())
	w.run(true, "gemini", "-p", "Read notes.txt", "-m", "gemini-2.5-pro", "--policy", policy)
	checkRequests(t, geminiRequests(t, srv), true)
	offline(t, srv, catcher)
}
