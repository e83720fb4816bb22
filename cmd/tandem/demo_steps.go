package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// The files the demo's steps work on, in the sample workspace.
const (
	demoFile  = "internal/names/names.go" // the user types into it without saving
	demoCode  = "cmd/greet/main.go"
	demoNotes = "docs/notes.md" // CRLF line endings
)

// demoSteps is the demo, in order: each step is one scripted exchange a
// first-time user learns something from.
var demoSteps = []demoStep{
	{"The editor starts tandem and opens the workspace", (*demo).start},
	{"The user types into " + demoFile + " and does not save", (*demo).typeWithoutSaving},
	{"The agent opens a session and lists its tools", (*demo).openSession},
	{"read: numbered rows under a content tag; the unsaved buffer, not the disk", (*demo).readUnsaved},
	{"grep: finds text that exists only in the unsaved buffer", (*demo).grepUnsaved},
	{"grep over the workspace: ignored files are skipped, and said so", (*demo).grepWorkspace},
	{"glob: paths newest first, ignored files skipped", (*demo).glob},
	{"A refusal: repo:// paths may not leave the workspace", (*demo).refuseEscape},
	{"edit: two files in one call — all land, or on a conflict none", (*demo).editTwoFiles},
	{"A refused edit: it anchors on a line the agent was never shown", (*demo).editUnseenLine},
	{"The same call again: the refusal showed the line, so now it applies", (*demo).editRetry},
	{"bash: steps within the auto set run unasked, each with its status", (*demo).bashUnasked},
	{"bash: reading ~/.ssh is asked in the editor; the user denies it", (*demo).bashSecretDenied},
	{"bash: a secret read the user allows, this once", (*demo).bashSecretAllowed},
	{"The MCP bridge: a tool's result goes to a file, not into the model's context", (*demo).bridgeToFile},
	{"The user closes " + demoFile + " without saving", (*demo).closeUnsaved},
	{"tandem's agent at work: one prompt, the answer streamed, each tool call with its diff, a secret denied, the tests run", (*demo).agentTurn},
	{"Rewind: the agent's turn is restored, every file it changed put back", (*demo).rewind},
	{"The editor closes: shutdown, then exit", (*demo).close},
}

func (d *demo) start() error {
	var res struct {
		ServerInfo struct{ Name, Version string }
	}
	if err := d.call("initialize", map[string]any{
		"processId":        os.Getpid(),
		"clientInfo":       map[string]string{"name": "tandem demo"},
		"workspaceFolders": []map[string]string{{"uri": "file://" + d.ws, "name": "sample"}},
		"capabilities":     map[string]any{},
	}, &res); err != nil {
		return err
	}
	return d.notify("initialized", map[string]any{})
}

func (d *demo) typeWithoutSaving() error {
	text, err := os.ReadFile(filepath.Join(d.ws, demoFile))
	if err != nil {
		return err
	}
	if err := d.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": d.uri(demoFile), "languageId": "go", "version": 1, "text": string(text)}}); err != nil {
		return err
	}
	// Line 9 (0-based) is `		return "Hello, stranger!"`.
	return d.notify("textDocument/didChange", map[string]any{
		"textDocument": map[string]any{"uri": d.uri(demoFile), "version": 2},
		"contentChanges": []any{map[string]any{
			"range": map[string]any{"start": map[string]int{"line": 9, "character": 10}, "end": map[string]int{"line": 9, "character": 26}},
			"text":  "Hello there, whoever you are! 👋",
		}},
	})
}

func (d *demo) openSession() error {
	var s struct{ Session string }
	if err := d.call("tandem/openSession", map[string]any{}, &s); err != nil {
		return err
	}
	d.session = s.Session
	raw, err := d.request("tandem/listTools", map[string]any{"session": d.session})
	if err != nil {
		return err
	}
	var list struct {
		Tools []struct{ Name, Description string }
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return err
	}
	d.say("← {\"tools\": [%d tools, each with a description for the model and a JSON Schema]}", len(list.Tools))
	for _, t := range list.Tools {
		first, _, _ := strings.Cut(t.Description, ". ")
		d.say("   %-6s %s", t.Name, strings.TrimSuffix(first, "."))
	}
	return nil
}

func (d *demo) readUnsaved() error {
	_, err := d.tool("read", map[string]any{"path": demoFile})
	return err
}

func (d *demo) grepUnsaved() error {
	d.say("(on disk the file still says %q)", "Hello, stranger!")
	_, err := d.tool("grep", map[string]any{"pattern": "whoever"})
	return err
}

func (d *demo) grepWorkspace() error {
	_, err := d.tool("grep", map[string]any{"pattern": `Hello|hello`})
	return err
}

func (d *demo) glob() error {
	_, err := d.tool("glob", map[string]any{"pattern": "**/*.go"})
	return err
}

func (d *demo) refuseEscape() error {
	_, err := d.tool("read", map[string]any{"path": "repo://../../etc/passwd"})
	return err
}

// The edit steps: two files in one all-or-nothing call, then an edit that
// anchors on a line the agent was never shown, refused with that line, and
// the same call again, which now applies.
func (d *demo) editTwoFiles() error {
	a, err := d.tool("read", map[string]any{"path": demoCode, "lines": "11-15"})
	if err != nil {
		return err
	}
	b, err := d.tool("read", map[string]any{"path": demoNotes})
	if err != nil {
		return err
	}
	_, err = d.tool("edit", map[string]any{"files": []any{
		map[string]any{"path": demoCode, "tag": tagOf(a), "ops": []any{
			map[string]any{"replace": "13", "text": "\t\tfmt.Println(names.Greeting(n), \"(from greet)\")"}}},
		map[string]any{"path": demoNotes, "tag": tagOf(b), "ops": []any{
			map[string]any{"append": "The agent added this line; it got the file's CRLF ending."}}},
	}})
	return err
}

func (d *demo) editUnseenLine() error {
	a, err := d.tool("read", map[string]any{"path": demoCode, "lines": "11-15"})
	if err != nil {
		return err
	}
	d.say("(the agent has seen lines 11-15 only; it replaces line 1, which it never saw)")
	d.retry = map[string]any{"files": []any{map[string]any{"path": demoCode, "tag": tagOf(a), "ops": []any{
		map[string]any{"replace": "1", "text": "// Command greet prints a friendly greeting for each name it is given."}}}}}
	_, err = d.tool("edit", d.retry)
	return err
}

func (d *demo) editRetry() error {
	_, err := d.tool("edit", d.retry)
	return err
}

// The shell and bridge steps: a script within the auto set runs unasked; a
// step reading a secret is asked in the editor, denied once and allowed
// once; and an MCP tool called from a shell step writes its result to a
// file, so only the step's small output reaches the model.
func (d *demo) bashUnasked() error {
	return d.answering(nil, func() error {
		_, err := d.tool("bash", map[string]any{"command": "ls internal && grep -c Hello README.md"})
		return err
	})
}

func (d *demo) bashSecretDenied() error {
	d.say("(~/.ssh holds secrets: a step touching it always asks, whatever the settings)")
	return d.answering([]string{"Deny"}, func() error {
		_, err := d.tool("bash", map[string]any{"command": "echo checking the key && cat ~/.ssh/id_demo && echo done"})
		return err
	})
}

func (d *demo) bashSecretAllowed() error {
	return d.answering([]string{"Allow"}, func() error {
		_, err := d.tool("bash", map[string]any{"command": "head -n 1 ~/.ssh/id_demo"})
		return err
	})
}

func (d *demo) bridgeToFile() error {
	d.say("(the workspace's .mcp.json names the server \"tandem\"; a shell step calls its glob tool as tandem/glob.\n Starting a server a workspace file names is asked once, and so is the call itself)")
	err := d.answering([]string{"Allow", "Allow"}, func() error {
		_, err := d.tool("bash", map[string]any{"command": `tandem mcp call tandem/glob '{"pattern":"**/*.go"}' > glob.json && wc -c glob.json`})
		return err
	})
	if err != nil {
		return err
	}
	b, err := os.ReadFile(filepath.Join(d.ws, "glob.json"))
	if err != nil {
		return err
	}
	d.say("(glob.json on disk, which the model never saw: %d bytes)", len(b))
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		d.say("   %s", line)
	}
	return nil
}

func (d *demo) close() error {
	if err := d.call("shutdown", nil, nil); err != nil {
		return err
	}
	return d.notify("exit", nil)
}

// tagOf is the tag in the first [path#TAG] line of a read's text.
func tagOf(text string) string {
	if _, rest, ok := strings.Cut(text, "#"); ok {
		if tag, _, ok := strings.Cut(rest, "]"); ok {
			return tag
		}
	}
	return ""
}
