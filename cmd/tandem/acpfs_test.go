package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/acpserver/acptest"
)

// The TypeScript SDK's client, as an editor offering its buffers through
// fs/*, drives tandem acp through a read of an unsaved buffer and an edit
// of it: both requests pass the SDK's schema checks, the edit lands in the
// buffer, and the disk is untouched.
func TestACPFileSystemWithTheTypeScriptClient(t *testing.T) {
	sdk, err := filepath.Abs("../../.deps/acpclient/node_modules/@agentclientprotocol/sdk/dist/v1/stable/acp.js")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sdk); err != nil {
		t.Fatalf("the ACP TypeScript SDK is not installed (%v); run scripts/setup (make test runs it first)", err)
	}
	ws := t.TempDir()
	a := filepath.Join(ws, "a.txt")
	if err := os.WriteFile(a, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	xdg := t.TempDir()
	cmd := exec.Command("node", "testdata/acp-fs-client.mjs", sdk, puppetBinary(t), ws)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(xdg, "state"), "XDG_CONFIG_HOME="+filepath.Join(xdg, "config"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the client failed: %v\n%s", err, stderr.String())
	}
	var got struct {
		Text     string
		Served   []string
		Buffer   string
		ExitCode int
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(got.Text, "2:TWO unsaved") || !strings.Contains(got.Text, "Applied to a.txt") {
		t.Errorf("the model got:\n%s", got.Text)
	}
	if want := "read a.txt read a.txt read a.txt write a.txt"; strings.Join(got.Served, " ") != want {
		t.Errorf("fs requests: %v, want %s", got.Served, want)
	}
	if got.Buffer != "one\nTWO unsaved\n3\n" {
		t.Errorf("the buffer: %q", got.Buffer)
	}
	if disk, _ := os.ReadFile(a); string(disk) != "one\ntwo\nthree\n" || got.ExitCode != 0 {
		t.Errorf("the disk: %q; exit %d", disk, got.ExitCode)
	}
}

// Through the pipes of a real `tandem acp`, each client's own way of
// serving files: CodeCompanion's "" for a missing file is no buffer (the
// agent's new file is written), and avante's buffer without its final
// newline is the saved file (an edit keeps the newline).
func TestACPFileSystemAsTheClientsServeIt(t *testing.T) {
	t.Run("CodeCompanion", func(t *testing.T) {
		ws := t.TempDir()
		client := &acptest.Client{Files: &acptest.Editor{MissingAsEmpty: true}}
		p := startACP(t, puppetBinary(t), ws, client)
		if _, err := p.prompt(p.open(t, ws), `call write {"path":"docs/cc.md","content":"made\n"}`); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(ws, "docs", "cc.md")); err != nil || string(b) != "made\n" {
			t.Errorf("the new file: %q, %v\n%s", b, err, client.Text())
		}
	})
	t.Run("avante", func(t *testing.T) {
		ws := t.TempDir()
		a := filepath.Join(ws, "a.txt")
		if err := os.WriteFile(a, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ed := &acptest.Editor{JoinsLines: true}
		ed.Set(a, "one\ntwo\nthree\n")
		client := &acptest.Client{Files: ed}
		p := startACP(t, puppetBinary(t), ws, client)
		if _, err := p.prompt(p.open(t, ws), `call read {"path":"a.txt"}`+"\n"+`call edit {"files":[{"path":"a.txt","old":"three","new":"3"}]}`); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(client.Text(), "unsaved") {
			t.Errorf("the saved buffer was taken as unsaved:\n%s", client.Text())
		}
		if b, _ := os.ReadFile(a); string(b) != "one\ntwo\n3\n" {
			t.Errorf("the file after the edit: %q", b)
		}
	})
}
