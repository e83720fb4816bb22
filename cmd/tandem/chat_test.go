package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/scripted"
)

// tandem chat -p runs a whole turn headless against a real HTTP provider
// (the scripted one, in each wire format): it reads, writes, answers on
// standard output, reports each tool call on standard error, and sends the
// key from the environment to the provider — and nowhere else: not to a
// file it writes, its log, its chat file, or its output.
func TestChatHeadlessAgainstBothWires(t *testing.T) {
	const key = "tandem-test-key-4f1c9a7b2e6d0853"
	for _, format := range []scripted.Format{scripted.OpenAIChat, scripted.Anthropic} {
		t.Run(string(format), func(t *testing.T) {
			ws, home := t.TempDir(), t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "greet.txt"), []byte("helo\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			srv, err := scripted.Start(scripted.Script{Format: format, Responses: []scripted.Response{
				{Parts: []scripted.Part{{Tool: &scripted.ToolCall{Name: "read", Input: json.RawMessage(`{"path":"greet.txt"}`)}}}},
				{Parts: []scripted.Part{{Text: "Fixing the typo. "}, {Tool: &scripted.ToolCall{Name: "write", Input: json.RawMessage(`{"path":"greet.txt","content":"hello\n"}`)}}}},
				{Parts: []scripted.Part{{Text: "Fixed "}, {Text: "the greeting."}}, Usage: providers.Usage{Input: 120, Output: 12}},
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			cfg := writeUserSettings(t, home, fmt.Sprintf(`{"agent":{"model":"local/tester","providers":{"local":{"api":%q,"url":%q,"apiKeyEnv":"TANDEM_TEST_KEY"}}}}`, format, srv.URL()))
			cmd := exec.Command(builtTandem(t), "chat", "-p", "fix the greeting", "--cwd", ws)
			cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+filepath.Join(home, "state"), "TANDEM_TEST_KEY="+key)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("tandem chat: %v\n%s", err, stderr.String())
			}
			if got := stdout.String(); got != "Fixing the typo. \nFixed the greeting.\n" {
				t.Fatalf("stdout %q", got)
			}
			for _, want := range []string{"→ Read greet.txt", "✓ Write greet.txt"} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "greet.txt")); string(b) != "hello\n" {
				t.Fatalf("greet.txt %q", b)
			}
			reqs := srv.Requests()
			if len(reqs) != 3 {
				t.Fatalf("%d model calls, want 3", len(reqs))
			}
			if h := reqs[0].Header; h.Get("Authorization") != "Bearer "+key && h.Get("X-Api-Key") != key {
				t.Fatalf("the key did not reach the provider: %v", h)
			}
			if strings.Contains(stdout.String()+stderr.String(), key) {
				t.Fatal("the key reached tandem's output")
			}
			for _, dir := range []string{home, ws} {
				_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() && p != filepath.Join(cfg, "tandem", "config.json") {
						if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(key)) {
							t.Errorf("the key is in %s", p)
						}
					}
					return nil
				})
			}
			if _, err := os.Stat(filepath.Join(home, "state", "tandem", "chats")); err != nil {
				t.Errorf("the chat was not kept: %v", err)
			}
		})
	}
}

// A provider that stalls never hangs tandem chat -p: stalled before its
// headers, after them, or mid-text, each call is cut after
// agent.idleTimeoutSeconds and tried again with the status shown (a
// mid-text cut marked on standard output); once the retries ran out the
// turn ends with an error naming the setting, the text kept on standard
// output, and tandem exits.
func TestChatExitsWhenTheProviderStalls(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	after := func(n int) *int { return &n }
	srv, err := scripted.Start(scripted.Script{Format: scripted.Anthropic, Responses: []scripted.Response{
		{Parts: []scripted.Part{{Text: "lost"}}, Faults: scripted.Faults{StallHeaders: true}},
		{Parts: []scripted.Part{{Text: "lost"}}, Faults: scripted.Faults{StallAfter: after(0)}},
		// message_start, content_block_start, the first text: then silence.
		{Parts: []scripted.Part{{Text: "Half an answer"}, {Text: " never ends"}}, Faults: scripted.Faults{StallAfter: after(3)}},
		{Parts: []scripted.Part{{Text: "Another half"}, {Text: " never ends"}}, Faults: scripted.Faults{StallAfter: after(3)}},
		{Parts: []scripted.Part{{Text: "A last half"}, {Text: " never ends"}}, Faults: scripted.Faults{StallAfter: after(3)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := writeUserSettings(t, home, fmt.Sprintf(`{"agent":{"model":"local/tester","idleTimeoutSeconds":0.2,"providers":{"local":{"api":"anthropic","url":%q}}}}`, srv.URL()))
	// The deadline only keeps a hanging tandem from hanging the suite.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, builtTandem(t), "chat", "-p", "answer", "--cwd", ws)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+filepath.Join(home, "state"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("tandem chat hung on a stalled provider:\n%s", stderr.String())
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1\n%s", err, stderr.String())
	}
	if got := strings.Count(stderr.String(), "the provider sent nothing for 200ms; trying again"); got != 4 {
		t.Errorf("%d retry statuses, want 4:\n%s", got, stderr.String())
	}
	if !strings.Contains(stderr.String(), "the provider sent nothing for 200ms (gave up after 4 retries); send the prompt again, or, if the model is slow to start answering, raise agent.idleTimeoutSeconds") {
		t.Errorf("no clear error:\n%s", stderr.String())
	}
	cut := "\n\n(the provider sent nothing for 200ms; answering again…)\n\n"
	if want := "Half an answer" + cut + "Another half" + cut + "A last half"; !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("stdout %q, want %q first", stdout.String(), want)
	}
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("%d model calls, want 5", n)
	}
}

// onBothWires runs a door test once per provider wire format.
func onBothWires(t *testing.T, test func(*testing.T, scripted.Format)) {
	for _, format := range []scripted.Format{scripted.Anthropic, scripted.OpenAIChat} {
		t.Run(string(format), func(t *testing.T) { test(t, format) })
	}
}

// startScripted starts a scripted model for the length of the test.
func startScripted(t *testing.T, s scripted.Script) *scripted.Server {
	t.Helper()
	srv, err := scripted.Start(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// fakeProviderSettings is a user's settings whose model is srv as provider
// "fake", its key in FAKE_PROVIDER_KEY; agentMore follows inside "agent"
// (`, "hooks": […]`), more at the top level (`, "shell": {…}`).
func fakeProviderSettings(srv *scripted.Server, format scripted.Format, agentMore, more string) string {
	return `{"agent": {"model": "fake/m1", "providers": {"fake": {"api": "` + string(format) + `", "url": "` + srv.URL() +
		`", "apiKeyEnv": "FAKE_PROVIDER_KEY"}}` + agentMore + `}` + more + `}`
}

// writeUserSettings writes settings as the user's tandem config under
// home and returns the directory to give as XDG_CONFIG_HOME.
func writeUserSettings(t *testing.T, home, settings string) string {
	t.Helper()
	cfg := filepath.Join(home, "config")
	if err := os.MkdirAll(filepath.Join(cfg, "tandem"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "tandem", "config.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Without a model, tandem chat names the two ways to give one, its own
// flag first, and exits 1 having sent nothing.
func TestChatWithoutAModelSaysWhatToPass(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	cmd := exec.Command(builtTandem(t), "chat", "-p", "answer", "--cwd", ws)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_STATE_HOME="+filepath.Join(home, "state"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1\n%s", err, stderr.String())
	}
	if want := "tandem chat: no model is set: pass --model PROVIDER/MODEL, or set agent.model in " + filepath.Join(home, "config", "tandem", "config.json"); !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr %q; want it to start %q", stderr.String(), want)
	}
}
