package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A tool call too small to need a collection runs none: the start's
// garbage (the initialisers', the session's) is left to the process's
// end instead of paying for a cycle before the call's first allocation.
// A one-file grep is the benchmark of tandem's start against rg's.
func TestASmallToolCallRunsNoCollection(t *testing.T) {
	bin := builtTandem(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		cmd := exec.Command(bin, "tool", "grep", `{"pattern":"zzz","literal":true}`)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GODEBUG=gctrace=1", "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "gc ") {
				t.Fatalf("a one-file grep ran a collection:\n%s", out)
			}
		}
	}
}
