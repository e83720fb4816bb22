package main

import (
	"os"
	"strings"
	"testing"
)

// demoSection is the output of the demo step whose title contains title,
// up to the next step.
func demoSection(t *testing.T, out, title string) string {
	t.Helper()
	for _, s := range strings.Split(out, "\n── ")[1:] {
		if head, _, _ := strings.Cut(s, "\n"); strings.Contains(head, title) {
			return s
		}
	}
	t.Fatalf("the demo has no step titled %q", title)
	return ""
}

// agentText is what the boxed lines of a section show the model.
func agentText(section string) string {
	var b strings.Builder
	for _, line := range strings.Split(section, "\n") {
		if rest, ok := strings.CutPrefix(line, "   │ "); ok {
			b.WriteString(rest + "\n")
		}
	}
	return b.String()
}

// The demo's shell and bridge steps, as a first-time user reads them: a
// script within the auto set runs without a question; a secret read is
// asked in the editor, and once denied it does not run and the model is
// told so; the MCP bridge asks to start the workspace's server and to call
// its tool, and the tool's result lands in a file while the model sees only
// the step's small output. The demo's HOME is its own: the caller's home
// is not touched.
func TestDemoShowsGatedShellAndBridge(t *testing.T) {
	home := t.TempDir()
	out, code := runTandem(t, t.TempDir(), []string{"HOME=" + home}, "demo")
	if code != 0 {
		t.Fatalf("tandem demo: status %d\n%s", code, out)
	}
	defer func() {
		if t.Failed() {
			t.Log(out)
		}
	}()
	const question = "⇐ window/showMessageRequest"

	unasked := demoSection(t, out, "bash: steps within the auto set run unasked")
	if strings.Contains(unasked, question) {
		t.Errorf("the auto-set step was asked")
	}
	for _, want := range []string{"finished: exit status 0", "1. ls internal  → 0", "2. grep -c Hello README.md  → 0", "names\n"} {
		if !strings.Contains(agentText(unasked), want) {
			t.Errorf("the auto-set step's result lacks %q", want)
		}
	}

	denied := demoSection(t, out, "the user denies it")
	seen := agentText(denied)
	for _, want := range []string{question, "asks to run:", "/.ssh/id_demo", "effects: read, secret", "[Allow] [Deny] [Allow for this session]", `⇒ {"title":"Deny"}`, "refusal (code denied)"} {
		if !strings.Contains(denied, want) {
			t.Errorf("the denied step lacks %q", want)
		}
	}
	for _, want := range []string{"refused at step 2 (denied)", "the user denied it", "did not run. Do not try it again unless the user asks for it.", "1. echo checking the key  → 0", "/.ssh/id_demo  → refused"} {
		if !strings.Contains(seen, want) {
			t.Errorf("the model's refusal lacks %q", want)
		}
	}
	if strings.Contains(seen, "not a real key") || strings.Contains(seen, "3. echo done") {
		t.Errorf("the denied step or what follows it ran:\n%s", seen)
	}

	allowed := demoSection(t, out, "a secret read the user allows")
	if !strings.Contains(allowed, `⇒ {"title":"Allow"}`) || !strings.Contains(agentText(allowed), "/.ssh/id_demo  → 0") || !strings.Contains(agentText(allowed), "not a real key") {
		t.Errorf("the allowed secret step did not ask and run")
	}

	bridge := demoSection(t, out, "The MCP bridge")
	if n := strings.Count(bridge, question); n != 2 {
		t.Errorf("the bridge step asked %d questions, want 2 (the server's start, the call)", n)
	}
	for _, want := range []string{"start MCP server tandem from ", "/.mcp.json: run `", ` mcp serve`, `tandem/glob '{"pattern":"**/*.go"}'`} {
		if !strings.Contains(bridge, want) {
			t.Errorf("the bridge step's questions lack %q", want)
		}
	}
	seen = agentText(bridge)
	if !strings.Contains(seen, "finished: exit status 0") || !strings.Contains(seen, " glob.json\n") {
		t.Errorf("the bridge step did not finish with wc's count")
	}
	if strings.Contains(seen, "names.go") || strings.Contains(seen, "main.go") {
		t.Errorf("the MCP result reached the model:\n%s", seen)
	}
	_, disk, ok := strings.Cut(bridge, "(glob.json on disk")
	if !ok || !strings.Contains(disk, "internal/names/names.go") || !strings.Contains(disk, "cmd/greet/main.go") {
		t.Errorf("glob.json does not hold the glob result:\n%s", disk)
	}

	if entries, err := os.ReadDir(home); err != nil || len(entries) != 0 {
		t.Errorf("the demo wrote into the caller's HOME: %v %v", entries, err)
	}
}

// The sample workspace ships files its own .gitignore excludes, so the
// demo's grep and glob show a first-time user that ignored files are
// skipped and counted. They must be in the repository (added by force),
// not only in a working tree that once had them.
func TestDemoShowsIgnoredFilesSkipped(t *testing.T) {
	out, code := runTandem(t, t.TempDir(), nil, "demo")
	if code != 0 {
		t.Fatalf("tandem demo: status %d\n%s", code, out)
	}
	for _, title := range []string{"grep over the workspace", "glob: paths newest first"} {
		seen := agentText(demoSection(t, out, title))
		for _, want := range []string{"(skipped: 1 file excluded by .gitignore, .ignore or git's exclude files, e.g. debug.log)",
			"(not entered: 1 directory excluded by .gitignore, .ignore or git's exclude files, e.g. build)"} {
			if !strings.Contains(seen, want) {
				t.Errorf("the %q step lacks %q:\n%s", title, want, seen)
			}
		}
	}
}

// The demo's agent part, as a first-time user reads it: one prompt to
// tandem's agent streams its thinking and answer, a subagent's calls under
// its task's call, each tool call with its
// status, the edit as a diff, the secret step asked and denied, the tests
// run green, the usage with a cost; then the turn is rewound and the file
// is as it was.
func TestDemoShowsTheAgentAtWork(t *testing.T) {
	out, code := runTandem(t, t.TempDir(), nil, "demo")
	if code != 0 {
		t.Fatalf("tandem demo: status %d\n%s", code, out)
	}
	turn := demoSection(t, out, "tandem's agent at work")
	for _, want := range []string{
		"◂ commands: /compact /cost /init /model /plan /restore /add-test", `"text":"/add-test Greeting of a blank name`,
		"◂ thinking: The greeting lives in internal/names",
		"◂ tool call [other] Subagent: find Greeting's blank case",
		"◂   ↳ tool call [search] Search for func Greeting", "◂ usage (the subagent's call; the context stays the chat's): context 4290 of 200000", "◂   ↳ tool call [read] Read internal/names/names.go", "◂     ↳ completed",
		"◂ tool call [read] Read internal/names/names_test.go",
		"◂   diff of internal/names/names_test.go:", "◂     + func TestGreetingBlank(t *testing.T) {",
		"◂ tool call [execute] cat ~/.netrc", "effects: read, secret", `⇒ {"title":"Deny"}`, "◂   failed (refusal denied)",
		"◂ tool call [execute] go test ./internal/names/", "ok  \texample.com/greet/internal/names",
		"of 200000 tokens", "the chat so far $", `← {"_meta":{"tandem":{"turn":0}},"stopReason":"end_turn"}`,
	} {
		if !strings.Contains(turn, want) {
			t.Errorf("the agent's turn lacks %q", want)
		}
	}
	rewind := demoSection(t, out, "Rewind")
	if !strings.Contains(rewind, "Restored internal/names/names_test.go") || !strings.Contains(rewind, "has 1 test(s) again") {
		t.Errorf("the rewind did not restore the test file:\n%s", rewind)
	}
	if t.Failed() {
		t.Log(out)
	}
}
