package main

import (
	"strings"
	"testing"
)

// `tandem COMMAND --help` explains the command wherever the flag stands
// among its words, and runs nothing: `mcp serve --help` must not start
// serving and wait on stdin.
func TestHelpAnywhereAmongACommandsWords(t *testing.T) {
	for _, args := range [][]string{
		{"mcp", "serve", "--help"},
		{"mcp", "call", "--help"},
		{"tool", "read", "--help"},
		{"tool", "-h"},
		{"demo", "--help"},
		{"acp", "--help"},
	} {
		out, code := runTandem(t, t.TempDir(), nil, args...)
		if code != 0 || !strings.HasPrefix(out, "Usage: tandem "+args[0]) {
			t.Errorf("tandem %s: status %d\n%s", strings.Join(args, " "), code, out)
		}
	}
	// A JSON argument that merely contains the words is an argument.
	out, code := runTandem(t, t.TempDir(), nil, "tool", "glob", `{"pattern":"--help"}`)
	if strings.HasPrefix(out, "Usage:") {
		t.Errorf("a JSON argument containing --help was taken for the flag: status %d\n%s", code, out)
	}
}
