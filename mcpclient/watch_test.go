package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A server added to a workspace's .mcp.json, changed, or taken out while
// tandem runs is reached, restarted or gone at the next call: the file's
// change is what re-reads the configs, no restart.
func TestConfigChangesAreSeenWithoutARestart(t *testing.T) {
	root := t.TempDir()
	m := NewManager(Load([]string{root}, nil, ""), Options{Ask: func(context.Context, Def) (bool, error) { return true, nil }})
	t.Cleanup(m.Close)
	reread := make(chan struct{}, 64)
	w, err := WatchConfig([]string{root}, "", func(bool) {
		m.Reconfigure(Load([]string{root}, nil, ""))
		reread <- struct{}{}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	ctx := context.Background()
	if _, err := m.Call(ctx, "t", "pid", nil); !errors.Is(err, ErrUnknownServer) {
		t.Fatalf("before the config names it: %v", err)
	}
	// awaitConfig waits for the re-read that gives server t the env x.
	awaitConfig := func(x string) {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			d, ok := m.Config().Servers["t"]
			if ok && d.Env["X"] == x || !ok && x == "" {
				return
			}
			select {
			case <-reread:
			case <-timeout:
				t.Fatalf("the config was not read again: %+v", m.Config().Servers)
			}
		}
	}
	entry := func(x string) string {
		b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"t": map[string]any{
			"command": os.Args[0], "env": map[string]string{envServe: "1", "X": x}}}})
		return string(b)
	}
	// `tandem mcp install` writes the file whole; an editor may save by rename.
	writeFile(t, filepath.Join(root, ".mcp.json"), entry("one"))
	awaitConfig("one")
	first, err := m.Call(ctx, "t", "pid", nil)
	if err != nil {
		t.Fatalf("the added server: %v", err)
	}
	tmp := filepath.Join(root, ".mcp.json.tmp")
	writeFile(t, tmp, entry("two"))
	if err := os.Rename(tmp, filepath.Join(root, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	awaitConfig("two")
	second, err := m.Call(ctx, "t", "pid", nil)
	if err != nil || string(second.Bytes) == string(first.Bytes) {
		t.Fatalf("the changed server was not started anew: %q then %q, %v", first.Bytes, second.Bytes, err)
	}
	if pid, err := strconv.Atoi(string(first.Bytes)); err != nil || syscall.Kill(pid, 0) == nil && !zombie(pid) {
		t.Fatalf("the server of the old definition (%s) still runs", first.Bytes)
	}
	if err := os.Remove(filepath.Join(root, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	awaitConfig("")
	if _, err := m.Call(ctx, "t", "pid", nil); !errors.Is(err, ErrUnknownServer) {
		t.Fatalf("a server taken out of the config still answers: %v", err)
	}
	// A .vscode made after the start is watched too.
	writeFile(t, filepath.Join(root, ".vscode", "mcp.json"), strings.Replace(entry("three"), "mcpServers", "servers", 1))
	awaitConfig("three")
	if _, err := m.Call(ctx, "t", "pid", nil); err != nil {
		t.Fatalf("a server of a .vscode/mcp.json made later: %v", err)
	}
}

func zombie(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || strings.Contains(string(stat), ") Z ")
}
