package shell

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

func TestIsCredential(t *testing.T) {
	for name, want := range map[string]bool{
		"OPENAI_API_KEY": true, "openai_apikey": true, "GITHUB_TOKEN": true, "NPM_TOKEN": true, "Secret_Sauce": true,
		"PGPASSWORD": true, "SSH_PASSPHRASE": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "MY_PASSWD": true,
		"AWS_ACCESS_KEY_ID": true, "AWS_SECRET_ACCESS_KEY": true, "AWS_SESSION_TOKEN": true, "OPENROUTER_KEY": true,
		"WORK_ANTHROPIC_KEY": true, "STRIPE_KEYS": true, "NPM_CONFIG__AUTH": true, "AZURE_DEVOPS_EXT_PAT": true,
		"ANTHROPIC_CUSTOM_HEADERS": true, "OTEL_EXPORTER_OTLP_HEADERS": true, "TANDEM_MCP_TOKEN": true,
		"PATH": false, "HOME": false, "KEYBOARD": false, "SSH_AUTH_SOCK": false, "GIT_AUTHOR_NAME": false,
		"AWS_REGION": false, "AWS_PROFILE": false, "TANDEM_MCP_SOCKET": false, "LANG": false,
	} {
		if got := IsCredential(name); got != want {
			t.Errorf("IsCredential(%q) = %v, want %v", name, got, want)
		}
	}
}

// heard is a listener on 127.0.0.1 that keeps every request's headers.
type heard struct {
	mu  sync.Mutex
	got strings.Builder
}

func (h *heard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	_ = r.Header.Write(&h.got)
	b, _ := io.ReadAll(r.Body)
	h.got.Write(b)
}

func (h *heard) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.got.String()
}

// No step sees a credential of the session's environment, a key the user's
// settings configure, however its name reads — not in env, printenv,
// Python's os.environ, /proc/self/environ, nor sent by curl to a listener.
// A value a step is handed on purpose (the bridge's token, a variable the
// user passes) arrives, and never shows in what the run shows: its output,
// its steps' texts.
func TestKeysNeverReachAStep(t *testing.T) {
	sb := newTestbed(t)
	h := &heard{}
	srv := httptest.NewServer(h)
	defer srv.Close()
	dropped := []string{"WORK_ANTHROPIC_KEY=sk-ant-work-0001", "WORK_SERVICE=svc-conf-0002", "OPENAI_API_KEY=sk-open-0003",
		"GH_TOKEN=ghp-000004x", "AWS_SECRET_ACCESS_KEY=aws-0005xxx", "db_password=pw-0006xxxx", "SOME_CREDENTIALS=cr-0007xxx"}
	o := sb.opts(approvals.DefaultAuto, nil)
	o.Env = append(append(o.Env, dropped...), "PASSED_TOKEN=passed-0008x", "PLAIN=kept")
	o.EnvRule = EnvRule{Keys: []string{"WORK_SERVICE"}, Pass: []string{"PASSED_TOKEN"}}
	o.ExtraEnv = []string{"TANDEM_MCP_TOKEN=bridge-token-0009", "TANDEM_MCP_SOCKET=/tmp/tandem-sock"}
	script := `env; printenv; /usr/bin/python3 -c 'import os; print(dict(os.environ))'; cat /proc/self/environ | tr '\0' '\n'
curl -s -H "probe: 1" -H "x: $WORK_ANTHROPIC_KEY$WORK_SERVICE$OPENAI_API_KEY$GH_TOKEN" -d "$AWS_SECRET_ACCESS_KEY$db_password$SOME_CREDENTIALS" ` + srv.URL + `
echo "in shell: $WORK_ANTHROPIC_KEY$GH_TOKEN token $TANDEM_MCP_TOKEN passed $PASSED_TOKEN"
printf %s "$TANDEM_MCP_TOKEN" > token; printf %s "$PASSED_TOKEN" > passed`
	res := runScript(t, script, o)
	if res.End != Finished {
		t.Fatalf("the script did not finish:\n%s", Render(res))
	}
	if !strings.Contains(h.String(), "Probe: 1") {
		t.Fatalf("curl reached no listener: %q\n%s", h.String(), Render(res))
	}
	shown := Render(res)
	for _, kv := range append(dropped, "PASSED_TOKEN=passed-0008x", "TANDEM_MCP_TOKEN=bridge-token-0009") {
		_, v, _ := strings.Cut(kv, "=")
		if strings.Contains(shown, v) {
			t.Errorf("%s shows in the run's result:\n%s", kv, shown)
		}
	}
	for _, kv := range dropped {
		_, v, _ := strings.Cut(kv, "=")
		if strings.Contains(h.String(), v) {
			t.Errorf("%s reached the listener: %q", kv, h.String())
		}
	}
	for _, want := range []string{"PLAIN=kept", "TANDEM_MCP_SOCKET=/tmp/tandem-sock", "TANDEM_MCP_TOKEN=[hidden: $TANDEM_MCP_TOKEN]",
		"PASSED_TOKEN=[hidden: $PASSED_TOKEN]", "token [hidden: $TANDEM_MCP_TOKEN] passed [hidden: $PASSED_TOKEN]"} {
		if !strings.Contains(res.Output.Text, want) {
			t.Errorf("the output lacks %q:\n%s", want, res.Output.Text)
		}
	}
	for file, want := range map[string]string{"token": "bridge-token-0009", "passed": "passed-0008x"} {
		if b, _ := os.ReadFile(filepath.Join(sb.root, file)); string(b) != want {
			t.Errorf("the step got %s = %q, want %q", file, b, want)
		}
	}
}

// A value is hidden wherever the output cuts it: written a byte at a time,
// beside a longer value that holds it, or at the very end.
func TestHiddenAcrossWrites(t *testing.T) {
	h := newHider(map[string]string{"abcdefgh": "A", "abcdefghij": "LONG", "zzzzzzzz": "Z"})
	in := "x abcdefghij y abcdefgh abcdefgX zzzzzzz zzzzzzzz"
	want := "x [hidden: $LONG] y [hidden: $A] abcdefgX zzzzzzz [hidden: $Z]"
	var out, held []byte
	for i := 0; i < len(in); i++ {
		var shown []byte
		shown, held = h.scan(append(held, in[i]), false)
		out = append(out, shown...)
	}
	rest, _ := h.scan(held, true)
	if got := string(append(out, rest...)); got != want {
		t.Errorf("byte by byte: %q, want %q", got, want)
	}
	if got := h.text(in); got != want {
		t.Errorf("at once: %q, want %q", got, want)
	}
	if got := h.text("abcdefg"); got != "abcdefg" {
		t.Errorf("a cut-short value at the end: %q", got)
	}
}
