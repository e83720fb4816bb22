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

// edit and write through the registry: strict schemas, and every path they
// would write passes the session's gate first, so a secret is never written
// without a yes (and a session nobody can answer for refuses it at once).
func TestEditAndWriteThroughTheGate(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	answer := approvals.Unanswered
	s := Open(Options{Roots: []string{ws}, Asker: approvals.AskerFunc(func(context.Context, approvals.Question) approvals.Answer { return answer })})
	ctx := context.Background()
	call := func(name, args string) Result { return Call(ctx, s, name, json.RawMessage(args)) }

	secret := filepath.Join(home, ".ssh", "authorized_keys")
	res := call("write", `{"path":`+quote(secret)+`,"content":"ssh-ed25519 AAAA agent\n"}`)
	if !res.IsError || res.Code != refusal.Unanswered {
		t.Fatalf("write to a secret with nobody to ask: %+v", res)
	}
	if _, err := os.Stat(secret); !os.IsNotExist(err) {
		t.Fatalf("the secret was written: %v", err)
	}
	res = call("edit", `{"files":[{"path":`+quote(secret)+`,"create":"x"}]}`)
	if !res.IsError || res.Code != refusal.Unanswered {
		t.Fatalf("edit creating a secret: %+v", res)
	}

	// Inside the workspace the default auto set writes unasked.
	if res := call("write", `{"path":"notes.txt","content":"one\n"}`); res.IsError {
		t.Fatalf("write inside: %+v", res)
	}
	res = call("edit", `{"files":[{"path":"notes.txt","ops":[{"append":"two"}]}]}`)
	if res.IsError || !strings.HasPrefix(res.Text, "Applied to notes.txt.") {
		t.Fatalf("edit inside: %+v", res)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(b) != "one\ntwo\n" {
		t.Errorf("notes.txt %q", b)
	}

	// With someone to answer yes, the secret is written.
	answer = approvals.AllowOnce
	if res := call("write", `{"path":`+quote(secret)+`,"content":"key\n"}`); res.IsError {
		t.Fatalf("write to a secret after a yes: %+v", res)
	}

	if res := call("edit", `{"files":[{"path":"notes.txt","opz":[]}]}`); !res.IsError || res.Code != refusal.Invalid {
		t.Errorf("unknown field: %+v", res)
	}
	if res := call("write", `{"path":"x.txt"}`); !res.IsError || res.Code != refusal.Invalid {
		t.Errorf("write without content: %+v", res)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// edit and write report the files they changed with their bytes before and
// after (nil before for a created file); a refused call reports none.
func TestEditAndWriteReportTheirChanges(t *testing.T) {
	ws := t.TempDir()
	s := Open(Options{Roots: []string{ws}})
	defer s.Close()
	ctx := context.Background()
	res := Call(ctx, s, "write", json.RawMessage(`{"path":"new.txt","content":"one\n"}`))
	if res.IsError || len(res.Changes) != 1 || res.Changes[0].Path != filepath.Join(ws, "new.txt") || res.Changes[0].Before != nil || string(res.Changes[0].After) != "one\n" {
		t.Fatalf("write: %+v", res)
	}
	read := Call(ctx, s, "read", json.RawMessage(`{"path":"new.txt"}`))
	tag := read.Text[strings.Index(read.Text, "#")+1 : strings.Index(read.Text, "]")]
	res = Call(ctx, s, "edit", json.RawMessage(`{"files":[{"path":"new.txt","tag":"`+tag+`","ops":[{"append":"two"}]}]}`))
	if res.IsError || len(res.Changes) != 1 || string(res.Changes[0].Before) != "one\n" || string(res.Changes[0].After) != "one\ntwo\n" {
		t.Fatalf("edit: %+v", res)
	}
	res = Call(ctx, s, "edit", json.RawMessage(`{"files":[{"path":"new.txt","tag":"`+tag+`","ops":[{"replace":"9","text":"x"}]}]}`))
	if !res.IsError || len(res.Changes) != 0 {
		t.Fatalf("a refused edit: %+v", res)
	}
}

// The document tools follow the shell's policy: a write through a
// workspace symlink to a file outside every root is an outside write, asked
// under the default auto set and named by the real path; nothing is written
// without a yes.
func TestWriteThroughALinkLeadingOutsideAsks(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	// Not under the temporary directory: a write there is no outside write.
	out, err := os.MkdirTemp("/var/tmp", "tandem-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	target := filepath.Join(out, "passwd")
	if err := os.WriteFile(target, []byte("root:x:0:0::/root:/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, to := range map[string]string{"passwd": target, "etc-passwd": "/etc/passwd"} {
		if err := os.Symlink(to, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	var asked []approvals.Question
	s := Open(Options{Roots: []string{ws}, Asker: approvals.AskerFunc(func(_ context.Context, q approvals.Question) approvals.Answer {
		asked = append(asked, q)
		return approvals.Unanswered
	})})
	ctx := context.Background()
	call := func(name, args string) Result { return Call(ctx, s, name, json.RawMessage(args)) }
	if res := call("read", `{"path":"passwd"}`); res.IsError || len(asked) != 0 {
		t.Fatalf("a read through the link asked %v: %+v", asked, res)
	}
	for _, c := range []struct{ tool, args string }{
		{"write", `{"path":"passwd","content":"root::0:0::/root:/bin/sh\n"}`},
		{"edit", `{"files":[{"path":"passwd","ops":[{"append":"agent::0:0::/:/bin/sh"}]}]}`},
	} {
		asked = nil
		res := call(c.tool, c.args)
		if !res.IsError || res.Code != refusal.Unanswered || !strings.HasPrefix(res.Text, "(write+outside)") {
			t.Errorf("%s through a link leading outside: %+v", c.tool, res)
		}
		if len(asked) != 1 || asked[0].Steps[0].Text != "write "+target {
			t.Errorf("%s asked %+v, want one question naming %s", c.tool, asked, target)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "root:x:0:0::/root:/bin/sh\n" {
		t.Fatalf("the file behind the link changed: %q", b)
	}
	// The gate judges /etc/passwd behind a link the same way (only judged
	// here: the asker says no one answers, so nothing is written).
	asked = nil
	if _, err := s.Gate().Access(ctx, approvals.AccessWrite, ws, filepath.Join(ws, "etc-passwd")); err == nil ||
		len(asked) != 1 || asked[0].Steps[0].Text != "write /etc/passwd" || asked[0].Steps[0].Effects.String() != "write+outside" {
		t.Errorf("a write through a link to /etc/passwd: %v, asked %+v", err, asked)
	}
}
