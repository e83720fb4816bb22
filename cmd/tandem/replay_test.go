package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// tandem replay serves a script as a provider a user config can name: a
// chat against it gets the script's answer, and the server ends when its
// standard input closes.
func TestReplayServesAScriptAsAProvider(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "script.json")
	if err := os.WriteFile(script, []byte(`{"format":"openai-chat","responses":[{"parts":[{"text":"Replayed "},{"text":"answer."}]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	replay := exec.Command(builtTandem(t), "replay", script)
	stdin, _ := replay.StdinPipe()
	stdout, _ := replay.StdoutPipe()
	if err := replay.Start(); err != nil {
		t.Fatal(err)
	}
	var served struct{ URL, API string }
	line, err := bufio.NewReader(stdout).ReadBytes('\n')
	if err != nil || json.Unmarshal(line, &served) != nil || served.API != "openai-chat" {
		t.Fatalf("first line %q: %v", line, err)
	}
	cfg := filepath.Join(dir, "config")
	if err := os.MkdirAll(filepath.Join(cfg, "tandem"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := fmt.Sprintf(`{"agent":{"model":"replay/any","providers":{"replay":{"api":%q,"url":%q}}}}`, served.API, served.URL)
	if err := os.WriteFile(filepath.Join(cfg, "tandem", "config.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	chat := exec.Command(builtTandem(t), "chat", "-p", "hello", "--cwd", dir)
	chat.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	var out, errOut bytes.Buffer
	chat.Stdout, chat.Stderr = &out, &errOut
	if err := chat.Run(); err != nil || out.String() != "Replayed answer.\n" {
		t.Fatalf("tandem chat: %v, stdout %q\n%s", err, out.String(), errOut.String())
	}
	_ = stdin.Close()
	ended := make(chan error, 1)
	go func() { ended <- replay.Wait() }()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("tandem replay ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		_ = replay.Process.Kill()
		t.Fatal("tandem replay outlived its standard input")
	}
}

// A script that cannot be read is a clear error, status 1.
func TestReplayRefusesABadScript(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format":"smoke-signals"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(builtTandem(t), "replay", bad)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !bytes.Contains(errOut.Bytes(), []byte("bad.json")) {
		t.Fatalf("exit %v, stderr %q", err, errOut.String())
	}
}
