package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce  sync.Once
	builtPath  string
	builtError error
)

// builtTandem builds the tandem binary once for this package's tests: the
// demo starts `tandem lsp` through os.Executable, so it needs the real one.
func builtTandem(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "tandem-cmd-test")
		if err != nil {
			builtError = err
			return
		}
		builtPath = filepath.Join(dir, "tandem")
		out, err := exec.Command("go", "build", "-o", builtPath, ".").CombinedOutput()
		if err != nil {
			builtError = err
			t.Logf("go build: %s", out)
		}
	})
	if builtError != nil {
		t.Fatalf("building tandem: %v", builtError)
	}
	return builtPath
}

var goCacheDir = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	return strings.TrimSpace(string(out)), err
})

func goCache(t *testing.T) string {
	dir, err := goCacheDir()
	if err != nil {
		t.Fatalf("go env GOCACHE: %v", err)
	}
	return dir
}

// runTandem runs the binary with private XDG directories.
func runTandem(t *testing.T, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(builtTandem(t), args...)
	cmd.Dir = dir
	home := t.TempDir()
	// The go build cache of whoever runs the tests: the demo's agent runs
	// go test, which must neither build from nothing nor write into a HOME
	// a test gives it.
	cmd.Env = append(append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "GOCACHE="+goCache(t)), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// The demo drives a real `tandem lsp` over its pipes: the agent's read and
// grep see the text typed into the editor and not saved, and the server
// exits cleanly.
func TestDemoShowsUnsavedBufferToTheAgent(t *testing.T) {
	out, code := runTandem(t, t.TempDir(), nil, "demo")
	if code != 0 {
		t.Fatalf("tandem demo: status %d\n%s", code, out)
	}
	for _, want := range []string{
		"→ initialize",
		"(unsaved editor buffer, version 2: this text is not on disk yet)",
		"│ 10:\t\treturn \"Hello there, whoever you are! 👋\"",
		"(unsaved editor buffer, version 2: searched in place of the disk)",
		"refusal (code escapes)",
		"`tandem lsp` exited with status 0.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo output lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(out)
	}
}

func TestLSPCommandLine(t *testing.T) {
	out, code := runTandem(t, t.TempDir(), nil, "lsp", "--help")
	if code != 0 || !strings.Contains(out, "--log FILE") || !strings.Contains(out, "docs/protocol.md") {
		t.Errorf("tandem lsp --help: status %d\n%s", code, out)
	}
	out, code = runTandem(t, t.TempDir(), nil, "lsp", "--no-such-flag")
	if code != 2 || !strings.Contains(out, "tandem lsp --help") {
		t.Errorf("tandem lsp with a bad flag: status %d, want 2 and a pointer to --help\n%s", code, out)
	}
	out, code = runTandem(t, t.TempDir(), nil, "lsp", "--log-level", "loud")
	if code != 2 || !strings.Contains(out, "debug, info, warn or error") {
		t.Errorf("tandem lsp with a bad level: status %d\n%s", code, out)
	}
	// Editors pass --stdio by habit; the input ending without shutdown is status 1.
	cmd := exec.Command(builtTandem(t), "lsp", "--stdio", "--log", "-")
	cmd.Stdin = strings.NewReader("")
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("tandem lsp --stdio on empty input: %v, want status 1", err)
	}
}

// A shell.autoEffects the tools refuse is a problem doctor names, with the
// allowed names, not an ok.
func TestDoctorNamesARefusedSetting(t *testing.T) {
	ws := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "config")
	if err := os.MkdirAll(filepath.Join(cfg, "tandem"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "tandem", "config.json"), []byte(`{"shell": {"autoEffects": ["read", "wirte"]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runTandem(t, ws, []string{"XDG_CONFIG_HOME=" + cfg}, "doctor")
	want := `MISSING  user settings: shell.autoEffects (the user config file): unknown effect "wirte"; allowed names: read, write, exec, net, outside, protected;`
	if code != 1 || !strings.Contains(out, want) {
		t.Fatalf("doctor with a bad auto set: status %d\n%s", code, out)
	}
}

// doctor says whether the kernel holds the programs of bash steps here
// (this machine has Landlock), and says so when the user turned it off.
func TestDoctorSaysWhetherTheKernelHoldsTheSteps(t *testing.T) {
	ws := t.TempDir()
	out, _ := runTandem(t, ws, nil, "doctor")
	if !strings.Contains(out, "ok       kernel sandbox: the programs of bash steps run held to what their step was allowed") {
		t.Fatalf("doctor on a Landlock kernel:\n%s", out)
	}
	// Each layer that holds is named, with the user the programs run as.
	for _, layer := range []string{"Landlock ABI", "signals it only to its own processes", "user and mount namespaces", fmt.Sprintf("each program as uid %d", os.Getuid())} {
		if !strings.Contains(out, layer) {
			t.Errorf("doctor does not name %q:\n%s", layer, out)
		}
	}
	cfg := filepath.Join(t.TempDir(), "config")
	if err := os.MkdirAll(filepath.Join(cfg, "tandem"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "tandem", "config.json"), []byte(`{"shell": {"sandbox": false}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ = runTandem(t, ws, []string{"XDG_CONFIG_HOME=" + cfg}, "doctor")
	if !strings.Contains(out, "kernel sandbox: the sandbox is off in the user's settings (shell.sandbox)") {
		t.Fatalf("doctor with the sandbox turned off:\n%s", out)
	}
}

// doctor names each missing thing with its fix and fails; on a machine with
// everything it passes.
func TestDoctorNamesWhatIsMissingAndTheFix(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, ".mcp.json"), []byte(`{"mcpServers": {"files": {"command": "npx", "args": ["-y", "some-server"]}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runTandem(t, ws, []string{"PATH=" + t.TempDir()}, "doctor")
	if code != 1 {
		t.Fatalf("doctor without git or npx: status %d, want 1\n%s", code, out)
	}
	for _, want := range []string{
		"MISSING  git", "sudo apt-get install git",
		`MISSING  MCP server "files"`, `its program "npx" is not on PATH`, "apt-get install nodejs npm",
		"2 problem(s) found.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q\n%s", want, out)
		}
	}

	bin := t.TempDir()
	for _, p := range []string{"git", "npx"} {
		if err := os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out, code = runTandem(t, ws, []string{"PATH=" + bin}, "doctor")
	if code != 0 || !strings.Contains(out, "Everything tandem needs is here.") {
		t.Errorf("doctor with everything present: status %d\n%s", code, out)
	}
}
