package lspserver

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandemdev/tandem/internal/mcptest"
)

// After `tandem mcp install` writes tandem's entry into the project's
// .mcp.json, `tandem mcp call tandem/glob` in the editor's terminal reaches
// it with no restart of the editor's tandem: the file's change re-reads the
// configs.
func TestBridgeE2E_a_server_installed_while_running_is_called(t *testing.T) {
	rt, err := os.MkdirTemp("", "rt") // a socket path must fit in 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	t.Setenv("XDG_RUNTIME_DIR", rt)
	t.Setenv("PATH", filepath.Dir(binary)+string(os.PathListSeparator)+os.Getenv("PATH"))
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "found.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startLSP(t)
	q := &questions{answer: "allow_once"}
	q.serve(p)
	p.initialize(t, root, richApprovals)
	env := terminalEnv(t, p)
	var out bytes.Buffer
	if stderr, code := client(t, env, &out, "mcp", "call", "tandem/glob", `{"pattern":"*.txt"}`); code == 0 || !strings.Contains(stderr, `no such MCP server "tandem"`) {
		t.Fatalf("before the install: exit %d, stderr %q", code, stderr)
	}
	install := exec.Command(binary, "mcp", "install", "--agent", "claude")
	install.Dir = root
	if b, err := install.CombinedOutput(); err != nil {
		t.Fatalf("tandem mcp install: %v\n%s", err, b)
	}
	// The log says when the configs were read again with the new server.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if log, _ := os.ReadFile(p.log); bytes.Contains(log, []byte("mcp configs read again")) && bytes.Contains(log, []byte("tandem")) {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(p.log)
			t.Fatalf("the installed config was not read again:\n%s", log)
		}
	}
	out.Reset()
	stderr, code := client(t, env, &out, "mcp", "call", "tandem/glob", `{"pattern":"*.txt"}`)
	if code != 0 || !strings.Contains(out.String(), "found.txt") {
		t.Fatalf("after the install: exit %d, stdout %q, stderr %q", code, out.String(), stderr)
	}
	if asked := q.texts(); len(asked) == 0 || !strings.HasPrefix(asked[0], "start MCP server tandem from "+filepath.Join(root, ".mcp.json")) {
		t.Fatalf("the workspace's new server was not asked to start: %q", asked)
	}
}

// A server added to the user's own settings file (mcp.servers) while tandem
// runs is reached too: the test binary is that server (mcptest).
func TestBridgeE2E_a_server_added_to_the_user_settings_is_called(t *testing.T) {
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	t.Setenv("XDG_RUNTIME_DIR", rt)
	dir, root := t.TempDir(), t.TempDir()
	settings := filepath.Join(dir, "config", "tandem", "config.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"mcp": {"servers": {}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startLSPIn(t, dir)
	(&questions{answer: "allow_once"}).serve(p)
	p.initialize(t, root, richApprovals)
	env := terminalEnv(t, p)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	entry := `{"mcp": {"servers": {"mine": {"command": "` + self + `", "env": {"` + mcptest.EnvServe + `": "1"}}}}}`
	if err := os.WriteFile(settings, []byte(entry), 0o600); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if log, _ := os.ReadFile(p.log); bytes.Contains(log, []byte("mcp configs read again")) && bytes.Contains(log, []byte("mine")) {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(p.log)
			t.Fatalf("the user's settings were not read again:\n%s", log)
		}
	}
	var out bytes.Buffer
	stderr, code := client(t, env, &out, "mcp", "call", "mine/echo", `{"message":"from the user's server"}`)
	if code != 0 || !strings.Contains(out.String(), "from the user's server") {
		t.Fatalf("the user's new server: exit %d, stdout %q, stderr %q", code, out.String(), stderr)
	}
}
