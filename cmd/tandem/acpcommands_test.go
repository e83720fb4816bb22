package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/acpserver/acptest"
	"github.com/tandemdev/tandem/agent/providers/scripted"
)

// The real binary advertises a workspace's prompt file after session/new;
// an unknown command is answered with the list and reaches no model; the
// prompt file runs with $ARGUMENTS replaced, through the real provider
// client.
func TestACPCommands(t *testing.T) {
	onBothWires(t, acpCommands)
}

func acpCommands(t *testing.T, format scripted.Format) {
	srv := startScripted(t, scripted.Script{Format: format, Responses: []scripted.Response{
		{Parts: []scripted.Part{{Text: "Reviewed."}}},
	}})
	xdg := t.TempDir()
	settings := fakeProviderSettings(srv, format, "", "")
	ws := t.TempDir()
	for path, text := range map[string]string{
		filepath.Join(xdg, "config", "tandem", "config.json"): settings,
		filepath.Join(ws, ".tandem", "commands", "review.md"): "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $ARGUMENTS for bugs.\n",
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	client := &acptest.Client{}
	p := startACP(t, builtTandem(t), ws, client, "FAKE_PROVIDER_KEY=sk-test",
		"XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"))
	id := p.open(t, ws)
	var review *acp.AvailableCommand
	acptest.Eventually(t, "the commands advertised", func() bool {
		for _, u := range client.Updates() {
			if u.AvailableCommandsUpdate != nil {
				for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
					if c.Name == "review" {
						review = &c
					}
				}
			}
		}
		return review != nil
	})
	if review.Description != "Review a file" || review.Input == nil || review.Input.Unstructured.Hint != "FILE" {
		t.Errorf("review is advertised as %+v", review)
	}
	if stop, err := p.prompt(id, "/nope"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("/nope: %q, %v\n%s", stop, err, p.stderr)
	}
	if text := client.Text(); !strings.Contains(text, "no command /nope") || !strings.Contains(text, "/review FILE") {
		t.Errorf("/nope was answered %q", text)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("/nope made %d model requests", n)
	}
	if stop, err := p.prompt(id, "/review main.go"); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("/review: %q, %v\n%s", stop, err, p.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "Review main.go for bugs.") {
		t.Fatalf("the provider got %d requests, the first %.300s", len(reqs), reqs[0].Body)
	}
}

// tandem chat -p runs commands too: an unknown one prints the list and
// asks the model nothing.
func TestChatPromptRunsCommands(t *testing.T) {
	srv, err := scripted.Start(scripted.Script{Format: scripted.Anthropic})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ws, home := t.TempDir(), t.TempDir()
	cfg := writeUserSettings(t, home, `{"agent":{"model":"local/tester","providers":{"local":{"api":"anthropic","url":"`+srv.URL()+`","apiKeyEnv":"TANDEM_TEST_KEY"}}}}`)
	cmd := exec.Command(builtTandem(t), "chat", "-p", "/nope", "--cwd", ws)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+filepath.Join(home, "state"), "TANDEM_TEST_KEY=k")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tandem chat: %v", err)
	}
	if !strings.Contains(string(out), "no command /nope") || !strings.Contains(string(out), "/init") {
		t.Errorf("stdout %q", out)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("/nope made %d model requests", n)
	}
}
