package mcpinstall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/tailscale/hujson"
)

func testEnv(t *testing.T) Env {
	t.Helper()
	return Env{Root: t.TempDir(), Home: t.TempDir(), Getenv: func(string) string { return "" }, Command: "tandem"}
}

func agent(t *testing.T, name string) Agent {
	t.Helper()
	a, ok := AgentNamed(name)
	if !ok {
		t.Fatalf("no agent %q", name)
	}
	return a
}

// write puts text at agent a's project file and returns its path.
func write(t *testing.T, a Agent, e Env, text string) string {
	t.Helper()
	p, _ := a.Path(Project, e)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func apply(t *testing.T, a Agent, e Env, remove bool, want Action) Result {
	t.Helper()
	r := Apply(a, Project, e, remove)
	if r.Action != want {
		t.Fatalf("%s remove=%v: %s (%s), want %s", a.Name, remove, r.Action, r.Reason, want)
	}
	return r
}

// roundTrip installs into a file holding before, checks the result with
// check, installs again (no byte may change), then removes and expects
// before back exactly.
func roundTrip(t *testing.T, name, before string, check func(after string)) {
	t.Helper()
	a, e := agent(t, name), testEnv(t)
	p := write(t, a, e, before)
	apply(t, a, e, false, Added)
	after := read(t, p)
	check(after)
	apply(t, a, e, false, Already)
	if again := read(t, p); again != after {
		t.Fatalf("second install changed the file:\n%s\nthen:\n%s", after, again)
	}
	apply(t, a, e, true, Removed)
	if got := read(t, p); got != before {
		t.Fatalf("remove did not restore the file:\n%q\nwant:\n%q", got, before)
	}
	apply(t, a, e, true, NotThere)
}

func TestNewFilesAreCreatedThenRemovedWhole(t *testing.T) {
	for _, a := range Agents {
		t.Run(a.Name, func(t *testing.T) {
			e := testEnv(t)
			p, _ := a.Path(Project, e)
			apply(t, a, e, false, Added)
			first := read(t, p)
			if !strings.Contains(first, `"tandem"`) && !strings.Contains(first, "[mcp_servers.tandem]") {
				t.Fatalf("no tandem entry:\n%s", first)
			}
			apply(t, a, e, false, Already)
			if read(t, p) != first {
				t.Fatal("second install changed the file")
			}
			apply(t, a, e, true, Removed)
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Fatalf("a file that held only tandem's entry is still there: %v", err)
			}
			if dir := filepath.Dir(p); dir != e.Root {
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Fatalf("the emptied directory %s is still there", dir)
				}
			}
			if _, err := os.Stat(e.Root); err != nil {
				t.Fatalf("the workspace went with it: %v", err)
			}
		})
	}
}

func TestNewJSONFileContent(t *testing.T) {
	a, e := agent(t, "vscode"), testEnv(t)
	apply(t, a, e, false, Added)
	p, _ := a.Path(Project, e)
	want := `{
  "servers": {
    "tandem": {
      "type": "stdio",
      "command": "tandem",
      "args": [
        "mcp",
        "serve"
      ]
    }
  }
}
`
	if got := read(t, p); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestJSONCCommentsAndTrailingCommasSurvive(t *testing.T) {
	before := `// Servers for this workspace.
{
	/* the ones we share */
	"servers": {
		// local build
		"mine": { "command": "./mine", "args": [], }, // keep
	},
	"inputs": [ { "id": "token", "type": "promptString" }, ],
}
`
	roundTrip(t, "vscode", before, func(after string) {
		for _, s := range []string{"// Servers for this workspace.", "/* the ones we share */", "// local build", "// keep", `"args": [], },`, `"promptString" }, ],`} {
			if !strings.Contains(after, s) {
				t.Errorf("lost %q:\n%s", s, after)
			}
		}
		if !strings.Contains(after, "\t\t\"tandem\": {\n\t\t\t\"type\": \"stdio\",") {
			t.Errorf("the entry does not follow the file's tab indentation:\n%s", after)
		}
	})
}

func TestStrictJSONStaysStrict(t *testing.T) {
	// Like ~/.claude.json: other settings and servers, no comments.
	before := `{
  "numStartups": 3,
  "mcpServers": {
    "github": {
      "command": "gh-mcp"
    }
  },
  "projects": {}
}
`
	roundTrip(t, "claude", before, func(after string) {
		var v struct{ MCPServers map[string]any }
		if err := json.Unmarshal([]byte(after), &v); err != nil {
			t.Fatalf("not JSON any more: %v\n%s", err, after)
		}
		if v.MCPServers["github"] == nil || v.MCPServers["tandem"] == nil {
			t.Fatalf("servers: %v", v.MCPServers)
		}
	})
}

func TestOneLineJSONAndAbsentContainer(t *testing.T) {
	roundTrip(t, "cursor", `{"mcpServers":{"a":{"command":"x"}}}`, func(after string) {
		if want := `{"mcpServers":{"tandem":{"command":"tandem","args":["mcp","serve"]},"a":{"command":"x"}}}`; after != want {
			t.Fatalf("got %s", after)
		}
	})
	roundTrip(t, "gemini", "{\n  \"theme\": \"dark\"\n}\n", func(after string) {
		if !strings.HasPrefix(after, "{\n  \"mcpServers\": {\n    \"tandem\": {\n") || !strings.HasSuffix(after, "  },\n  \"theme\": \"dark\"\n}\n") {
			t.Fatalf("got\n%s", after)
		}
	})
}

func TestRemoveKeepsTrailingCommaStyle(t *testing.T) {
	// An earlier installer sorted the keys, so tandem can be last.
	a, e := agent(t, "vscode"), testEnv(t)
	entry := `{"type": "stdio", "command": "tandem", "args": ["mcp", "serve"]}`
	for before, want := range map[string]string{
		`{"servers": {"a": {}, "tandem": ` + entry + `,},}`: `{"servers": {"a": {},},}`,
		`{"servers": {"a": {} , "tandem": ` + entry + `}}`:  `{"servers": {"a": {} }}`,
	} {
		p := write(t, a, e, before)
		apply(t, a, e, true, Removed)
		if got := read(t, p); got != want {
			t.Errorf("from %s\ngot  %s\nwant %s", before, got, want)
		}
	}
}

func TestUnparsableFilesAreRefusedUnchanged(t *testing.T) {
	cases := []struct{ agent, text, where string }{
		{"claude", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}\n  \n", "line 5, column 1"},
		{"vscode", "{\n  \"servers\": {\n    \"a\": {\"command\": x}\n  }\n}\n", "line 3, column 22"},
		{"codex", "model = \"o3\"\n[mcp_servers.a\ncommand = \"x\"\n", "line 2, column"},
		{"gemini", "[1, 2]\n", "top level is not a JSON object"},
		{"cursor", `{"mcpServers": []}`, `"mcpServers" is not an object`},
	}
	for _, c := range cases {
		t.Run(c.agent, func(t *testing.T) {
			a, e := agent(t, c.agent), testEnv(t)
			p := write(t, a, e, c.text)
			for _, remove := range []bool{false, true} {
				r := apply(t, a, e, remove, Skipped)
				if !strings.Contains(r.Reason, p) || !strings.Contains(r.Reason, c.where) || !strings.HasSuffix(r.Reason, "then run the command again") {
					t.Errorf("reason %q should name %s and %q and end with what to do", r.Reason, p, c.where)
				}
				if read(t, p) != c.text {
					t.Fatal("the file changed")
				}
			}
		})
	}
}

func TestSomeoneElsesTandemEntryIsLeftAlone(t *testing.T) {
	for name, text := range map[string]string{
		"claude": `{"mcpServers": {"tandem": {"command": "npx", "args": ["tandem-mcp"]}}}`,
		"vscode": `{"servers": {"tandem": {"type": "stdio", "command": "tandem", "args": ["mcp", "serve"], "env": {"A": "1"}}}}`,
		"codex":  "[mcp_servers.tandem]\ncommand = \"tandem\"\nargs = [\"mcp\", \"serve\", \"--root\", \"/\"]\n",
	} {
		a, e := agent(t, name), testEnv(t)
		p := write(t, a, e, text)
		for _, remove := range []bool{false, true} {
			r := apply(t, a, e, remove, Skipped)
			if !strings.Contains(r.Reason, "tandem did not write") {
				t.Errorf("%s: %s", name, r.Reason)
			}
			if read(t, p) != text {
				t.Fatalf("%s: the file changed", name)
			}
		}
	}
}

func TestMovedTandemIsUpdated(t *testing.T) {
	a, e := agent(t, "claude"), testEnv(t)
	p := write(t, a, e, "{\n  \"mcpServers\": {\n    \"tandem\": {\"command\": \"/old/bin/tandem\", \"args\": [\"mcp\", \"serve\"]}\n  }\n}\n")
	r := apply(t, a, e, false, Updated)
	if r.Reason != "the command was /old/bin/tandem, and its tools were not loaded up front" {
		t.Errorf("reason %q", r.Reason)
	}
	want := "{\n  \"mcpServers\": {\n    \"tandem\": {\n      \"command\": \"tandem\",\n      \"args\": [\n        \"mcp\",\n        \"serve\"\n      ],\n      \"alwaysLoad\": true\n    }\n  }\n}\n"
	if got := read(t, p); got != want {
		t.Fatalf("got\n%s", got)
	}
}

func TestTOMLCommentsSurvive(t *testing.T) {
	before := "# my codex\nmodel = \"o3\" # fast\n\n[mcp_servers.github]\ncommand = \"gh-mcp\" # the real one\n\n# projects I trust\n[projects.\"/w\"]\ntrust_level = \"trusted\"\n"
	roundTrip(t, "codex", before, func(after string) {
		if want := before + "\n[mcp_servers.tandem]\ncommand = \"tandem\"\nargs = [\"mcp\", \"serve\"]\n"; after != want {
			t.Fatalf("got\n%s", after)
		}
	})
	// No final newline: one is added before the table.
	a, e := agent(t, "codex"), testEnv(t)
	p := write(t, a, e, `model = "o3"`)
	apply(t, a, e, false, Added)
	if got := read(t, p); !strings.HasPrefix(got, "model = \"o3\"\n\n[mcp_servers.tandem]\n") {
		t.Fatalf("got\n%s", got)
	}
}

func TestTOMLTableInTheMiddle(t *testing.T) {
	a, e := agent(t, "codex"), testEnv(t)
	head := "model = \"o3\"\n\n"
	tail := "\n# next\n[mcp_servers.other]\ncommand = \"o\"\n"
	p := write(t, a, e, head+"[mcp_servers.tandem] # ours\ncommand = \"/old/tandem\"\nargs = [\n  \"mcp\",\n  \"serve\",\n]\n"+tail)
	apply(t, a, e, false, Updated)
	if got, want := read(t, p), head+"[mcp_servers.tandem]\ncommand = \"tandem\"\nargs = [\"mcp\", \"serve\"]\n"+tail; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	apply(t, a, e, true, Removed)
	if got, want := read(t, p), head+"# next\n[mcp_servers.other]\ncommand = \"o\"\n"; got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	var doc map[string]any
	if err := toml.Unmarshal([]byte(read(t, p)), &doc); err != nil {
		t.Fatal(err)
	}
}

func TestTOMLInlineFormsAreEditedOrRefused(t *testing.T) {
	a, e := agent(t, "codex"), testEnv(t)
	// One key-value line under [mcp_servers] is cut like a table.
	before := "[mcp_servers]\nother = { command = \"o\" }\n"
	p := write(t, a, e, before+"tandem = { command = \"tandem\", args = [\"mcp\", \"serve\"] }\n")
	apply(t, a, e, false, Already)
	apply(t, a, e, true, Removed)
	if got := read(t, p); got != before {
		t.Fatalf("got\n%q", got)
	}
	// A whole inline table cannot take another table: refused, unchanged.
	inline := "mcp_servers = { other = { command = \"o\" } }\n"
	write(t, a, e, inline)
	r := apply(t, a, e, false, Skipped)
	if !strings.Contains(r.Reason, "by hand") || read(t, p) != inline {
		t.Fatalf("%s\n%s", r.Reason, read(t, p))
	}
}

func TestUserScopePathsAndModes(t *testing.T) {
	e := testEnv(t)
	env := map[string]string{}
	e.Getenv = func(k string) string { return env[k] }
	p, _ := agent(t, "claude").Path(User, e)
	if p != filepath.Join(e.Home, ".claude.json") {
		t.Errorf("claude user file %s", p)
	}
	env["CLAUDE_CONFIG_DIR"], env["CODEX_HOME"] = "/c", "/x"
	if p, _ := agent(t, "claude").Path(User, e); p != "/c/.claude.json" {
		t.Errorf("CLAUDE_CONFIG_DIR: %s", p)
	}
	if p, _ := agent(t, "codex").Path(User, e); p != "/x/config.toml" {
		t.Errorf("CODEX_HOME: %s", p)
	}
	delete(env, "CODEX_HOME")
	r := Apply(agent(t, "codex"), User, e, false)
	if r.Action != Added || r.Path != filepath.Join(e.Home, ".codex", "config.toml") {
		t.Fatalf("%+v", r)
	}
	if st, err := os.Stat(r.Path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("a new user file should be private: %v %v", st.Mode(), err)
	}
}

func TestLinkedFileIsEditedWhereItLives(t *testing.T) {
	a, e := agent(t, "cursor"), testEnv(t)
	target := filepath.Join(t.TempDir(), "dotfiles-mcp.json")
	if err := os.WriteFile(target, []byte("{}\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	p, _ := a.Path(Project, e)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	apply(t, a, e, false, Added)
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced")
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 || !strings.Contains(read(t, target), `"tandem"`) {
		t.Fatalf("target %v:\n%s", st.Mode(), read(t, target))
	}
	// Emptied again, the linked file stays so the link is not left dangling.
	apply(t, a, e, true, Removed)
	if got := read(t, p); got != "{}\n" {
		t.Fatalf("through the link: %q", got)
	}
}

// A file whose lines end in CRLF gets tandem's lines ending in CRLF too,
// and a removal gives back its very bytes.
func TestCRLFFilesKeepTheirLineEnds(t *testing.T) {
	for name, before := range map[string]string{
		"claude": "{\r\n  \"mcpServers\": {\r\n    \"other\": {\"command\": \"o\"}\r\n  }\r\n}\r\n",
		"vscode": "{\r\n  // mine\r\n  \"servers\": {\r\n    \"other\": {\"command\": \"o\"},\r\n  },\r\n}\r\n",
		"codex":  "model = \"o3\"\r\n\r\n[mcp_servers.other]\r\ncommand = \"o\"\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			roundTrip(t, name, before, func(after string) {
				if bare := strings.Count(after, "\n") - strings.Count(after, "\r\n"); bare != 0 || !strings.Contains(after, "tandem") {
					t.Fatalf("%d lines end in a bare LF:\n%q", bare, after)
				}
			})
		})
	}
}

// A TOML file without a final newline comes back byte for byte after an
// install and a removal, and keeps having none meanwhile.
func TestTOMLWithoutFinalNewlineComesBackWhole(t *testing.T) {
	for _, before := range []string{"model = \"o3\"", "[mcp_servers.other]\ncommand = \"o\"", "# only a comment"} {
		roundTrip(t, "codex", before, func(after string) {
			if strings.HasSuffix(after, "\n") {
				t.Fatalf("the install added a final newline:\n%q", after)
			}
			var doc map[string]any
			if err := toml.Unmarshal([]byte(after), &doc); err != nil || doc["mcp_servers"].(map[string]any)["tandem"] == nil {
				t.Fatalf("%v:\n%s", err, after)
			}
		})
	}
}

// A user-scope removal takes away every directory the install made and
// left empty (VS Code's Code/User, Codex's .codex), never the directory
// the file is under (the config or home directory) nor one holding
// anything.
func TestUserScopeRemovalTakesAwayTheDirectoriesItMade(t *testing.T) {
	e := testEnv(t)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(e.Home, ".config"))
	if err := os.MkdirAll(filepath.Join(e.Home, ".config"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"vscode", "codex", "gemini"} {
		a := agent(t, name)
		r := Apply(a, User, e, false)
		if r.Action != Added {
			t.Fatalf("%s: %+v", name, r)
		}
		if r := Apply(a, User, e, true); r.Action != Removed {
			t.Fatalf("%s remove: %+v", name, r)
		}
	}
	for _, gone := range []string{".config/Code", ".codex", ".gemini"} {
		if _, err := os.Stat(filepath.Join(e.Home, gone)); !os.IsNotExist(err) {
			t.Errorf("~/%s is left behind: %v", gone, err)
		}
	}
	if _, err := os.Stat(filepath.Join(e.Home, ".config")); err != nil {
		t.Errorf("~/.config went with it: %v", err)
	}
	// A directory holding something of the user's stays.
	a := agent(t, "vscode")
	Apply(a, User, e, false)
	keep := filepath.Join(e.Home, ".config", "Code", "settings.json")
	if err := os.WriteFile(keep, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	Apply(a, User, e, true)
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("the user's file went: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.Home, ".config", "Code", "User")); !os.IsNotExist(err) {
		t.Errorf("the emptied Code/User is left behind: %v", err)
	}
}

// An entry as an earlier tandem wrote it for Claude Code is brought up to
// date: Claude Code hides a server's tools behind its tool search unless the
// entry says to load them up front.
func TestEarlierClaudeEntryLoadsItsToolsUpFront(t *testing.T) {
	a, e := agent(t, "claude"), testEnv(t)
	p := write(t, a, e, `{"mcpServers": {"tandem": {"command": "tandem", "args": ["mcp", "serve"]}}}`+"\n")
	if r := apply(t, a, e, false, Updated); r.Reason != "its tools were not loaded up front" {
		t.Errorf("reason %q", r.Reason)
	}
	if got, want := read(t, p), `{"mcpServers": {"tandem": {"command":"tandem","args":["mcp","serve"],"alwaysLoad":true}}}`+"\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	apply(t, a, e, false, Already)
	// The other agents know no such key: theirs stays without it.
	g := agent(t, "gemini")
	apply(t, g, e, false, Added)
	if b, _ := os.ReadFile(filepath.Join(e.Root, ".gemini", "settings.json")); strings.Contains(string(b), "alwaysLoad") {
		t.Errorf("gemini's entry has alwaysLoad:\n%s", b)
	}
}

// An empty server list the user had stays through install and removal, in
// every JSON agent's file and whatever its layout; one the install made
// goes again (TestOneLineJSONAndAbsentContainer).
func TestEmptyServerListThatWasThereStays(t *testing.T) {
	for _, a := range Agents {
		f, ok := a.format.(jsonFormat)
		if !ok {
			continue
		}
		for _, layout := range []string{
			`{"C": {}}`,
			"{\n  \"C\": {}\n}\n",
			"{\n  \"C\": {\n  }\n}\n",
			"{\n\t\"theme\": \"dark\",\n\t\"C\": { }\n}\n",
			"{\n  \"C\": { /* none yet */ },\n}\n",
			"{\r\n  \"C\": {\r\n  }\r\n}\r\n",
		} {
			before := strings.ReplaceAll(layout, `"C"`, `"`+f.container+`"`)
			t.Run(a.Name, func(t *testing.T) {
				roundTrip(t, a.Name, before, func(after string) {
					v, err := hujson.Parse([]byte(after))
					if err != nil {
						t.Fatalf("the file does not parse: %v\n%s", err, after)
					}
					v.Standardize()
					var doc map[string]json.RawMessage
					var servers map[string]map[string]any
					if json.Unmarshal(v.Pack(), &doc) != nil || json.Unmarshal(doc[f.container], &servers) != nil || servers[Key]["command"] != "tandem" {
						t.Fatalf("no tandem entry in its %s:\n%s", f.container, after)
					}
				})
			})
		}
	}
}

// An entry updated in an empty list the file had (tandem moved) keeps the
// layout that tells the list was there, so the removal still keeps it.
func TestUpdatedEntryInAListThatWasThereStillLeavesIt(t *testing.T) {
	a, e := agent(t, "vscode"), testEnv(t)
	before := "{\n  \"servers\": {\n  }\n}\n"
	p := write(t, a, e, before)
	e.Command = "/old/bin/tandem"
	apply(t, a, e, false, Added)
	e.Command = "tandem"
	if r := apply(t, a, e, false, Updated); r.Reason != "the command was /old/bin/tandem" {
		t.Fatalf("reason %q", r.Reason)
	}
	if got := read(t, p); !strings.Contains(got, `"command":"tandem"`) {
		t.Fatalf("not updated:\n%s", got)
	}
	apply(t, a, e, true, Removed)
	if got := read(t, p); got != before {
		t.Fatalf("remove did not restore the file:\n%q\nwant:\n%q", got, before)
	}
}
