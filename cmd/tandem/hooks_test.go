package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/acpserver/acptest"
	"github.com/tandemdev/tandem/agent/providers/scripted"
)

// Through the real binary under an ACP client, with hooks in the user's
// config file: a scripted model writes a file, and the afterEdit hook's
// output — its TANDEM_FILES, and no key — reaches the model with the
// write's reply; then a bash call the beforeBash hook refuses does not
// run, and the model gets the hook's output as the reason; the turnEnd
// hook runs once the turn ends. Nothing is asked: the default auto set
// allows every step.
func TestACPRunsHooks(t *testing.T) {
	onBothWires(t, acpRunsHooks)
}

func acpRunsHooks(t *testing.T, format scripted.Format) {
	srv := startScripted(t, scripted.Script{Format: format, Responses: []scripted.Response{
		{Parts: []scripted.Part{{Tool: &scripted.ToolCall{ID: "toolu_w", Name: "write", Input: json.RawMessage(`{"path":"a.txt","content":"x\n"}`)}}}},
		{Parts: []scripted.Part{{Tool: &scripted.ToolCall{ID: "toolu_b", Name: "bash", Input: json.RawMessage(`{"command":"touch made"}`)}}}},
		{Parts: []scripted.Part{{Text: "Done."}}},
	}})
	const key = "sk-test-hooks-7d1e"
	xdg := t.TempDir()
	settings := fakeProviderSettings(srv, format, `,
		"hooks": [{"on": "afterEdit", "run": "echo \"lint: $TANDEM_FILES key=[$FAKE_PROVIDER_KEY]\""},
		          {"on": "beforeBash", "run": "echo \"no: $TANDEM_COMMAND\"; exit 1"},
		          {"on": "turnEnd", "run": "echo $TANDEM_EVENT > ended"}]`, "")
	writeUserSettings(t, xdg, settings)
	ws := t.TempDir()
	client := &acptest.Client{Answer: acptest.Select("reject_once")}
	p := startACP(t, builtTandem(t), ws, client, "FAKE_PROVIDER_KEY="+key,
		"XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"))
	id := p.open(t, ws)
	if stop, err := p.prompt(id, "Write a.txt, then touch made."); err != nil || stop != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %q, %v\n%s", stop, err, p.stderr)
	}
	if asked := client.Asked(); len(asked) != 0 {
		t.Errorf("asked %d questions", len(asked))
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the provider got %d requests", len(reqs))
	}
	if !strings.Contains(string(reqs[1].Body), "lint: a.txt key=[]") {
		t.Errorf("the model did not get the afterEdit hook's output:\n%s", reqs[1].Body)
	}
	if !strings.Contains(string(reqs[2].Body), "no: touch made") || !strings.Contains(string(reqs[2].Body), "Not run: the beforeBash hook refused") {
		t.Errorf("the model did not get the beforeBash hook's refusal:\n%s", reqs[2].Body)
	}
	for i, r := range reqs {
		if strings.Contains(string(r.Body), key) {
			t.Errorf("request %d carries the key in its body", i)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "made")); err == nil {
		t.Error("the refused script ran")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "ended")); string(b) != "turnEnd\n" {
		t.Errorf("the turnEnd hook wrote %q", b)
	}
}
