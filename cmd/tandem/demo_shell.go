package main

import (
	"os"
	"path/filepath"
	"strings"
)

// The shell and bridge steps: a script within the auto set runs unasked; a
// step reading a secret is asked in the editor, denied once and allowed
// once; and an MCP tool called from a shell step writes its result to a
// file, so only the step's small output reaches the model.
func init() {
	addDemoStep(demoStep{order: 90, title: "bash: steps within the auto set run unasked, each with its status", run: func(d *demo) error {
		return d.answering(nil, func() error {
			_, err := d.tool("bash", map[string]any{"command": "ls internal && grep -c Hello README.md"})
			return err
		})
	}})
	addDemoStep(demoStep{order: 92, title: "bash: reading ~/.ssh is asked in the editor; the user denies it", run: func(d *demo) error {
		d.say("(~/.ssh holds secrets: a step touching it always asks, whatever the settings)")
		return d.answering([]string{"Deny"}, func() error {
			_, err := d.tool("bash", map[string]any{"command": "echo checking the key && cat ~/.ssh/id_demo && echo done"})
			return err
		})
	}})
	addDemoStep(demoStep{order: 94, title: "bash: a secret read the user allows, this once", run: func(d *demo) error {
		return d.answering([]string{"Allow"}, func() error {
			_, err := d.tool("bash", map[string]any{"command": "head -n 1 ~/.ssh/id_demo"})
			return err
		})
	}})
	addDemoStep(demoStep{order: 96, title: "The MCP bridge: a tool's result goes to a file, not into the model's context", run: func(d *demo) error {
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
	}})
}
