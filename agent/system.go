package agent

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tandemdev/tandem/config"
)

// guarantees is what the model must know of tandem's tools to use them
// well, in a few lines; the tools' descriptions hold the rest.
const guarantees = `You are tandem's coding agent, working in the user's editor on the workspace below.
How the tools work:
- read shows a file as [path#TAG] and numbered rows; the editor's unsaved text when the file is open there.
- edit names the TAG it is based on and may only anchor on rows you have seen; a refusal shows what you missed, so the same call can then apply. A multi-file edit lands whole or not at all, and the reply says exactly which files landed.
- bash runs each step gated: steps outside the user's auto set, and any step touching a secret, are asked in the editor; a denied step is not retried unless the user asks.
- Every refusal ends with the next valid action: do that.
Keep answers short; say what you changed and what is left.`

// maxInstructions bounds each instructions file in the system prompt.
const maxInstructions = 64 << 10

// SystemPrompt is a chat's system prompt: what the tools guarantee, the
// workspace roots, the workspace's AGENTS.md (else CLAUDE.md) and the
// user's own instructions ($XDG_CONFIG_HOME/tandem/instructions.md). It is
// built once per chat, so compaction and every later turn keep it.
func SystemPrompt(roots []string) string {
	var b strings.Builder
	b.WriteString(guarantees)
	fmt.Fprintf(&b, "\n\nWorkspace roots: %s\n", strings.Join(roots, ", "))
	if len(roots) > 0 {
		for _, name := range []string{"AGENTS.md", "CLAUDE.md"} {
			if text, ok := instructions(filepath.Join(roots[0], name), os.ReadFile); ok {
				fmt.Fprintf(&b, "\n<instructions source=%q>\n%s\n</instructions>\n", name, text)
				break
			}
		}
	}
	if text, ok := userInstructions(); ok {
		fmt.Fprintf(&b, "\n<instructions source=\"the user's own instructions\">\n%s\n</instructions>\n", text)
	}
	return b.String()
}

// userInstructions are the user's own instructions, read only from a file
// only the user can have written (config.Trusted): a planted one would
// speak to the model in the user's name.
func userInstructions() (string, bool) {
	if config.Dir() == "" {
		return "", false
	}
	return instructions(filepath.Join(config.Dir(), "instructions.md"), config.ReadTrusted)
}

// instructions reads an instructions file with read, cut to maxInstructions.
func instructions(path string, read func(string) ([]byte, error)) (string, bool) {
	b, err := read(path)
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return "", false
	}
	if len(b) > maxInstructions {
		b = append(b[:maxInstructions:maxInstructions], "\n(cut: the file is longer than 64 KiB)"...)
	}
	return strings.TrimSpace(string(b)), true
}
