package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/internal/prereq"
	"github.com/tandemdev/tandem/tools"
)

// Real MCP clients no one here wrote, against the real `tandem mcp serve`:
// the TypeScript SDK's clients v1 and v2 (mcpserve_test.go's mcpClient) and
// the MCP Inspector's CLI. Their versions are pinned by scripts/setup and
// recorded in docs/evidence/bridge.md.

// taggedRead is what a read of a.txt holding "hello" shows.
var taggedRead = regexp.MustCompile(`^\[a\.txt#[0-9A-F]{8}\]\n1:hello\n$`)

// helloWorkspace is a workspace holding a.txt, and a private home for
// tandem whose ~/.ssh holds a key: reading it is a secret step, which is
// always asked.
func helloWorkspace(t *testing.T) (ws string, env []string) {
	t.Helper()
	ws = t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env = testHome(t, "")
	home := envOf(env, "HOME")
	if home == "" || home == os.Getenv("HOME") {
		t.Fatalf("the test's home %q is not a private one", home)
	}
	ssh := filepath.Join(home, ".ssh")
	if err := os.Mkdir(ssh, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ssh, "id_test"), []byte("KEY-4711\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return ws, env
}

// envOf is key's value in env: the last one, as a process started with env
// gets it.
func envOf(env []string, key string) string {
	for _, kv := range slices.Backward(env) {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// registryTools are the tools as tandem's registry defines them for a
// standalone session on ws, as MCP JSON values.
func registryTools(t *testing.T, ws string) map[string]any {
	t.Helper()
	s := tools.Open(tools.Options{Roots: []string{ws}, Settings: config.New()})
	defer s.Close()
	out := map[string]any{}
	for _, tl := range tools.MCPTools(s) {
		out[tl.Name] = jsonValue(t, tl)
	}
	return out
}

// jsonValue is v as JSON decodes it, for comparing what two programs sent.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// The TypeScript SDK's clients, v1 on revision 2025-11-25 and v2 on
// 2026-07-28, list tandem's tools, read a file tagged, and answer a gated
// step through their elicitation handlers: v1's handler gets tandem's
// elicitation/create in the middle of the call; v2's call comes back input
// required, the SDK asks its handler and sends the call again with the
// answer. Either way the step before the question ran once, the answer
// decides the step, and the question names the client.
func TestMCPServe_TypeScript_SDK_clients_on_both_revisions(t *testing.T) {
	script := `echo before >> log.txt; cat ~/.ssh/id_test; echo after >> log.txt`
	for _, sdk := range []struct {
		name, dir, revision string
		sent                int // tools/call requests a call with one question takes
	}{
		{"v1", sdkV1, "2025-11-25", 1},
		{"v2", sdkV2, "2026-07-28", 2},
	} {
		for _, answer := range []string{"allow", "decline"} {
			t.Run(sdk.name+"/"+answer, func(t *testing.T) {
				ws, env := helloWorkspace(t)
				c := startSDKClient(t, sdk.dir, ws, env, answer)
				if c.Protocol != sdk.revision {
					t.Errorf("the client negotiated revision %q; want %s", c.Protocol, sdk.revision)
				}
				var want []string
				for name := range registryTools(t, ws) {
					want = append(want, name)
				}
				slices.Sort(want)
				if !slices.Equal(c.Tools, want) {
					t.Errorf("the client lists %v; the registry defines %v", c.Tools, want)
				}

				r, asked := c.call("read", `{"path":"a.txt"}`)
				if r.Result.IsError || !taggedRead.MatchString(r.text()) || len(asked) != 0 {
					t.Errorf("the read (asked %q): %+v", asked, r)
				}

				args, _ := json.Marshal(map[string]string{"command": script})
				r, asked = c.call("bash", string(args))
				if len(asked) != 1 || !strings.HasPrefix(asked[0], "tandem: tandem-test (session ") || !strings.Contains(asked[0], "id_test") {
					t.Errorf("questions asked: %q; want one naming the client (tandem-test) and the key", asked)
				}
				if r.Sent != sdk.sent {
					t.Errorf("the call took %d tools/call requests; want %d", r.Sent, sdk.sent)
				}
				log, _ := os.ReadFile(filepath.Join(ws, "log.txt"))
				switch answer {
				case "allow":
					if r.Result.IsError || !strings.Contains(r.text(), "KEY-4711") || string(log) != "before\nafter\n" {
						t.Errorf("allowed: log.txt holds %q (want each step once); the result: %s", log, r.text())
					}
				case "decline":
					if !r.Result.IsError || r.Result.Meta["code"] != "denied" || strings.Contains(r.text(), "KEY-4711") || string(log) != "before\n" {
						t.Errorf("declined: log.txt holds %q (want the step before once, none after); the result: %+v", log, r)
					}
				}
			})
		}
	}
}

// inspectorReply is what the MCP Inspector's CLI prints with --format
// json: the result, and with --strict what its lint of the tools' schemas
// found.
type inspectorReply struct {
	Result         json.RawMessage
	SchemaFindings []any
}

// inspector runs the MCP Inspector's CLI on `tandem mcp serve` in ws,
// speaking the protocol era given (legacy or modern), and returns its
// reply and the revision spoken: the one tandem's initialize answered, or
// the one the client's requests name in their _meta.
func inspector(t *testing.T, ws string, env []string, era string, args ...string) (reply inspectorReply, revision string) {
	t.Helper()
	prereq.Program(t, "node", "install Node.js 20 or later (README)")
	cli, err := filepath.Abs("../../.deps/mcpclients/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cli); err != nil {
		prereq.Missing(t, "the MCP Inspector in .deps/mcpclients", "scripts/setup installs it")
	}
	// The server the Inspector starts records both directions on its way
	// to tandem.
	dir := t.TempDir()
	sent, got, serve := filepath.Join(dir, "sent"), filepath.Join(dir, "got"), filepath.Join(dir, "serve")
	if err := os.WriteFile(serve, []byte("#!/bin/sh\ntee -a \"$1\" | \"$3\" mcp serve | tee -a \"$2\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmdline := []string{cli, "--cli", "--format", "json", "--protocol-era", era}
	// The Inspector gives a server only a few variables of its own (HOME,
	// PATH…); tandem's private state goes with -e.
	for _, key := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"} {
		cmdline = append(cmdline, "-e", key+"="+envOf(env, key))
	}
	cmdline = append(append(cmdline, args...), serve, sent, got, builtTandem(t))
	cmd := exec.Command("node", cmdline...)
	cmd.Dir, cmd.Env = ws, env
	out, err := cmd.Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		t.Fatalf("the Inspector %v: %v\n%s", args, err, ee.Stderr)
	} else if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &reply); err != nil || reply.Result == nil {
		t.Fatalf("the Inspector printed no result (%v): %s", err, out)
	}
	return reply, spokenRevision(t, sent, got)
}

// spokenRevision is the revision in the messages recorded in the files
// sent and got.
func spokenRevision(t *testing.T, sent, got string) string {
	t.Helper()
	type message struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	read := func(path string) []message {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var out []message
		for line := range strings.Lines(string(b)) {
			var m message
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("%s: a line that is not JSON: %q", filepath.Base(path), line)
			}
			out = append(out, m)
		}
		return out
	}
	replies := read(got)
	for _, m := range read(sent) {
		if v, ok := m.Params.Meta["io.modelcontextprotocol/protocolVersion"].(string); ok && strings.HasPrefix(m.Method, "tools/") {
			return v
		}
		if m.Method == "initialize" {
			for _, r := range replies {
				if r.ID == m.ID && r.Method == "" {
					return r.Result.ProtocolVersion
				}
			}
		}
	}
	return ""
}

// The MCP Inspector's CLI, on the 2025 handshake (its default) and on
// revision 2026-07-28, lists exactly the tools tandem's registry defines —
// titles, the four hints and `_meta` anthropic/alwaysLoad included — whose
// schemas its strict lint finds portable, and a read through it comes back
// tagged.
func TestMCPServe_MCP_Inspector_CLI(t *testing.T) {
	ws, env := helloWorkspace(t)
	registry := registryTools(t, ws)
	for era, want := range map[string]string{"legacy": "2025-11-25", "modern": "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			listed, revision := inspector(t, ws, env, era, "--method", "tools/list", "--strict")
			if revision != want {
				t.Errorf("tools/list spoke revision %q; want %s", revision, want)
			}
			if len(listed.SchemaFindings) != 0 {
				t.Errorf("the Inspector's strict lint finds the schemas unportable: %v", listed.SchemaFindings)
			}
			var list struct{ Tools []map[string]any }
			if err := json.Unmarshal(listed.Result, &list); err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, tl := range list.Tools {
				name, _ := tl["name"].(string)
				names[name] = true
				if !reflect.DeepEqual(any(tl), registry[name]) {
					t.Errorf("the Inspector lists %s as\n%v\nthe registry defines\n%v", name, tl, registry[name])
				}
				if meta, _ := tl["_meta"].(map[string]any); meta["anthropic/alwaysLoad"] != true {
					t.Errorf("%s: _meta %v lacks anthropic/alwaysLoad", name, tl["_meta"])
				}
			}
			for name := range registry {
				if !names[name] {
					t.Errorf("the Inspector does not list %s", name)
				}
			}
			// What a client decides by, as the Inspector shows it.
			hints := func(name string) map[string]any {
				for _, tl := range list.Tools {
					if tl["name"] == name {
						a, _ := tl["annotations"].(map[string]any)
						return a
					}
				}
				return nil
			}
			if a := hints("read"); a["readOnlyHint"] != true || a["title"] != "Read a file" {
				t.Errorf("read's annotations: %v", a)
			}
			if a := hints("bash"); a["readOnlyHint"] != false || a["destructiveHint"] != true || a["openWorldHint"] != true {
				t.Errorf("bash's annotations: %v", a)
			}

			called, revision := inspector(t, ws, env, era, "--method", "tools/call", "--tool-name", "read", "--tool-args-json", `{"path":"a.txt"}`)
			if revision != want {
				t.Errorf("tools/call spoke revision %q; want %s", revision, want)
			}
			var read struct {
				Content []struct{ Text string }
				IsError bool
			}
			if err := json.Unmarshal(called.Result, &read); err != nil || read.IsError || len(read.Content) != 1 || !taggedRead.MatchString(read.Content[0].Text) {
				t.Errorf("the read through the Inspector (%v): %s", err, called.Result)
			}
		})
	}
}
