package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/refusal"
)

// The documents tools go through the session's gate (the path policy's
// access table): reading, searching or listing a secret asks, and without a
// yes nothing of it is shown; a plain read asks nothing.
func TestDocumentToolsAskBeforeSecrets(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	for p, body := range map[string]string{
		filepath.Join(home, ".ssh", "id_ed25519"): "PRIVATE KEY\n",
		filepath.Join(ws, "a.txt"):                "alpha\n",
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(ws, "keys")); err != nil {
		t.Fatal(err)
	}
	var asked []approvals.Question
	answer := approvals.Unanswered
	s := Open(Options{Roots: []string{ws}, Asker: approvals.AskerFunc(func(_ context.Context, q approvals.Question) approvals.Answer {
		asked = append(asked, q)
		return answer
	})})
	call := func(name, args string) Result {
		return Call(context.Background(), s, name, json.RawMessage(args))
	}
	key := filepath.Join(home, ".ssh", "id_ed25519")
	for _, c := range []struct{ tool, args, verb string }{
		{"read", `{"path":"keys/id_ed25519"}`, "read " + key},
		{"read", `{"path":"` + key + `"}`, "read " + key},
		{"read", `{"path":"` + home + `/.ssh"}`, "list " + home + "/.ssh"},
		{"grep", `{"pattern":"KEY","path":"` + home + `"}`, "search " + home},
		{"glob", `{"pattern":"*","path":"` + home + `/.ssh"}`, "list " + home + "/.ssh"},
	} {
		asked = nil
		res := call(c.tool, c.args)
		if !res.IsError || res.Code != refusal.Unanswered || strings.Contains(res.Text, "PRIVATE") ||
			!strings.HasPrefix(res.Text, "(read+secret) it needs the user's approval") {
			t.Errorf("%s %s unanswered: %+v", c.tool, c.args, res)
		}
		if len(asked) != 1 || asked[0].Kind != approvals.KindDocument || asked[0].Steps[0].Text != c.verb {
			t.Errorf("%s %s asked %+v, want one document question %q", c.tool, c.args, asked, c.verb)
		}
	}
	answer = approvals.AllowOnce
	if res := call("read", `{"path":"keys/id_ed25519"}`); res.IsError || !strings.Contains(res.Text, "PRIVATE KEY") {
		t.Errorf("allowed read: %+v", res)
	}
	asked = nil
	if res := call("read", `{"path":"a.txt"}`); res.IsError || len(asked) != 0 {
		t.Errorf("a plain read asked %v: %+v", asked, res)
	}
	if res := call("grep", `{"pattern":"alpha"}`); res.IsError || len(asked) != 0 {
		t.Errorf("a workspace grep asked %v: %+v", asked, res)
	}
}
