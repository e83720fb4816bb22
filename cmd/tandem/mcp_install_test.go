package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// agentsDir is where scripts/setup (scripts/get-agents) installs the agent
// CLIs; TANDEM_AGENTS_DIR names another install of the same versions.
func agentsDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TANDEM_AGENTS_DIR")
	if dir == "" {
		dir = "../../.deps/agents"
	}
	dir, err := filepath.Abs(filepath.Join(dir, "node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cli := range []string{"claude", "codex", "gemini"} {
		if _, err := os.Stat(filepath.Join(dir, cli)); err != nil {
			t.Fatalf("the %s CLI is not installed (%v); run scripts/setup (make test runs it first)", cli, err)
		}
	}
	return dir
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// agentWorld is a home directory and a workspace of their own, offline:
// no login, no token, nothing of the real user's.
type agentWorld struct {
	t        *testing.T
	home, ws string
	env      []string
	clis     string
}

func newAgentWorld(t *testing.T) *agentWorld {
	clis := agentsDir(t)
	tandem := builtTandem(t)
	w := &agentWorld{t: t, home: t.TempDir(), clis: clis}
	w.ws = filepath.Join(w.home, "ws")
	if err := os.Mkdir(w.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "CLAUDE_CONFIG_DIR", k == "CODEX_HOME", strings.HasPrefix(k, "XDG_"), strings.HasPrefix(k, "TANDEM_"),
			strings.HasSuffix(k, "_API_KEY"), k == "PATH", k == "HOME":
		default:
			w.env = append(w.env, kv)
		}
	}
	w.env = append(w.env, "HOME="+w.home, "XDG_CONFIG_HOME="+filepath.Join(w.home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(w.home, ".local", "state"),
		// The project entries run `tandem` from PATH.
		"PATH="+filepath.Dir(tandem)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	return w
}

// run runs a command in the workspace and returns what it printed.
func (w *agentWorld) run(wantOK bool, name string, args ...string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if name != builtTandem(w.t) {
		name = filepath.Join(w.clis, name)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = w.ws, w.env
	out, err := cmd.CombinedOutput()
	text := ansi.ReplaceAllString(string(out), "")
	w.t.Logf("$ %s %s\n%s", filepath.Base(name), strings.Join(args, " "), text)
	if (err == nil) != wantOK {
		w.t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, text)
	}
	return text
}

func (w *agentWorld) tandem(args ...string) string {
	w.t.Helper()
	return w.run(true, builtTandem(w.t), append([]string{"mcp", "install"}, args...)...)
}

// trust does what the user does once per workspace in each agent's own
// prompt (the installer never does it for them): trust the folder, and in
// Claude Code approve the workspace's .mcp.json server.
func (w *agentWorld) trust() {
	w.t.Helper()
	claude := filepath.Join(w.home, ".claude.json")
	cfg := map[string]any{}
	if b, err := os.ReadFile(claude); err == nil {
		if err := json.Unmarshal(b, &cfg); err != nil {
			w.t.Fatal(err)
		}
	}
	cfg["projects"] = map[string]any{w.ws: map[string]any{"hasTrustDialogAccepted": true, "enabledMcpjsonServers": []string{"tandem"}}}
	b, _ := json.Marshal(cfg)
	w.write(claude, string(b), false)
	w.write(filepath.Join(w.home, ".codex", "config.toml"), "[projects."+quoteJSON(w.ws)+"]\ntrust_level = \"trusted\"\n", true)
	w.write(filepath.Join(w.home, ".gemini", "trustedFolders.json"), "{"+quoteJSON(w.ws)+": \"TRUST_FOLDER\"}\n", false)
}

func quoteJSON(s string) string { b, _ := json.Marshal(s); return string(b) }

func (w *agentWorld) write(path, text string, appendTo bool) {
	w.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		w.t.Fatal(err)
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if appendTo {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		w.t.Fatal(err)
	}
}

func mustContain(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s does not show %q:\n%s", what, want, text)
		}
	}
}

// Claude Code, Codex and Gemini CLI, installed from npm, read what
// `tandem mcp install` wrote: each lists tandem, and Claude Code and Gemini
// CLI, which health-check their servers, start `tandem mcp serve` and
// connect to it. After --remove none of them knows tandem any more.
// Cursor and VS Code have no CLI on npm that reads their files; their
// formats are covered by the mcpinstall tests.
func TestMCPInstallWithTheAgentsOwnCLIs(t *testing.T) {
	for _, scope := range []string{"project", "user"} {
		t.Run(scope, func(t *testing.T) {
			w := newAgentWorld(t)
			command := "tandem"
			if scope == "user" {
				command = builtTandem(t)
			}
			w.trust()
			out := w.tandem("--scope", scope)
			for _, a := range []string{"claude", "codex", "gemini", "cursor", "vscode"} {
				mustContain(t, "tandem mcp install", out, a+": added to ")
			}
			// Claude Code: listed and connected, from the file of this scope.
			mustContain(t, "claude mcp list", w.run(true, "claude", "mcp", "list"), "tandem: "+command+" mcp serve - ✔ Connected")
			where := map[string]string{"project": "Scope: Project config", "user": "Scope: User config"}[scope]
			mustContain(t, "claude mcp get tandem", w.run(true, "claude", "mcp", "get", "tandem"), where, "Status: ✔ Connected", "Command: "+command, "Args: mcp serve")
			// Codex lists its servers without starting them.
			list := w.run(true, "codex", "mcp", "list")
			if !regexp.MustCompile(`(?m)^tandem\s+` + regexp.QuoteMeta(command) + `\s+mcp serve\s+-\s+-\s+enabled`).MatchString(list) {
				t.Errorf("codex mcp list does not show tandem enabled:\n%s", list)
			}
			mustContain(t, "codex mcp get tandem", w.run(true, "codex", "mcp", "get", "tandem"), "command: "+command, "args: mcp serve")
			mustContain(t, "gemini mcp list", w.run(true, "gemini", "mcp", "list"), "✓ tandem: "+command+" mcp serve (stdio) - Connected")

			// The agents have written their own state since; a second
			// install still finds everything in place and writes nothing.
			out = w.tandem("--scope", scope)
			for _, a := range []string{"claude", "codex", "gemini", "cursor", "vscode"} {
				mustContain(t, "the second install", out, a+": already there in ")
			}
			out = w.tandem("--scope", scope, "--remove")
			for _, a := range []string{"claude", "codex", "gemini", "cursor", "vscode"} {
				mustContain(t, "tandem mcp install --remove", out, a+": removed from ")
			}
			w.run(false, "claude", "mcp", "get", "tandem")
			if list := w.run(true, "codex", "mcp", "list"); strings.Contains(list, "tandem") {
				t.Errorf("codex still lists tandem:\n%s", list)
			}
			if list := w.run(true, "gemini", "mcp", "list"); strings.Contains(list, "tandem") {
				t.Errorf("gemini still lists tandem:\n%s", list)
			}
			// What the agents and the trust step wrote is still there.
			if b, err := os.ReadFile(filepath.Join(w.home, ".codex", "config.toml")); err != nil || !strings.Contains(string(b), "trust_level") {
				t.Errorf("the rest of Codex's config is gone: %v\n%s", err, b)
			}
		})
	}
}

func TestMCPInstallCommandLine(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	t.Setenv("CODEX_HOME", "")
	ws := filepath.Join(home, "ws")
	if err := os.MkdirAll(filepath.Join(ws, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	broken := "{\n  \"mcpServers\": {,\n}\n"
	if err := os.WriteFile(filepath.Join(ws, ".cursor", "mcp.json"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(wantCode int, args ...string) (string, string) {
		t.Helper()
		var stdout, stderr strings.Builder
		if code := mcpInstall(args, &stdout, &stderr); code != wantCode {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, wantCode, stdout.String(), stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	t.Chdir(home)
	_, errText := run(exitError)
	mustContain(t, "project scope in the home directory", errText, "is not a workspace; run it in the workspace's root directory, or say --scope user")
	t.Chdir(ws)
	_, errText = run(exitUsage, "--agent", "emacs")
	mustContain(t, "an unknown agent", errText, `unknown agent "emacs"; say claude, codex, gemini, cursor, vscode or all`)
	_, errText = run(exitUsage, "--scope", "global")
	mustContain(t, "an unknown scope", errText, `unknown scope "global"; say project or user`)
	// This test's binary is a go-build temporary, as `go run`'s is.
	_, errText = run(exitError, "--scope", "user")
	mustContain(t, "user scope from a temporary build", errText, "temporary `go run` build")
	_, errText = run(exitUsage, "claude")
	mustContain(t, "a stray argument", errText, `unexpected "claude"`)

	out, _ := run(exitError)
	mustContain(t, "install with one broken file", out,
		"claude: added to "+filepath.Join(ws, ".mcp.json")+"\n",
		"cursor: skipped: "+filepath.Join(ws, ".cursor", "mcp.json")+": line 2, column 18: ",
		"vscode: added to ",
		"vscode: added to "+filepath.Join(ws, ".vscode", "mcp.json")+"\nAGENTS.md: created\n")
	if b, _ := os.ReadFile(filepath.Join(ws, ".cursor", "mcp.json")); string(b) != broken {
		t.Errorf("the broken file was changed:\n%s", b)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "AGENTS.md")); err != nil || !strings.HasPrefix(string(b), "<!-- tandem:begin -->\n## tandem\n") {
		t.Errorf("AGENTS.md does not hold the working rule: %v\n%s", err, b)
	}
	out, _ = run(exitOK, "--agent", "claude")
	if want := "claude: already there in " + filepath.Join(ws, ".mcp.json") + "\nAGENTS.md: unchanged\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	out, _ = run(exitOK, "--agent", "claude", "--remove")
	if want := "claude: removed from " + filepath.Join(ws, ".mcp.json") + "\n"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	out, _ = run(exitOK, "--agent", "claude", "--remove")
	mustContain(t, "a second removal", out, "claude: not there in ")
}
