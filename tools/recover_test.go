package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/documents"
)

// crashEnv makes the test binary a process that commits crashFiles new
// files in the workspace it names, in one edit call, and is killed by the
// test meanwhile.
const crashEnv = "TANDEM_TOOLS_CRASHING_EDIT"

const crashFiles, crashSize = 8, 2 << 20

func TestMain(m *testing.M) {
	if root := os.Getenv(crashEnv); root != "" {
		s := Open(Options{Roots: []string{root}})
		var files []map[string]string
		for i := range crashFiles {
			files = append(files, map[string]string{"path": fmt.Sprintf("new%d.txt", i), "create": crashContent(i)})
		}
		args, _ := json.Marshal(map[string]any{"files": files})
		Call(context.Background(), s, "edit", args)
		os.Exit(0)
	}
	if urls := os.Getenv(fetchLawEnv); urls != "" {
		os.Exit(fetchInChild(urls))
	}
	os.Exit(m.Run())
}

func crashContent(i int) string {
	line := fmt.Sprintf("line of file %d\n", i)
	return strings.Repeat(line, crashSize/len(line))
}

// A process killed in the middle of a multi-file edit leaves its commit cut
// short; the next session opened on the workspace, whichever door opens
// it, settles it before its first call: every file or none, no temporary
// file, no record, and the call's result says what was done.
func TestOpenSettlesACommitCutShortByAKill(t *testing.T) {
	for attempt := 1; attempt <= 10; attempt++ {
		root, state := t.TempDir(), t.TempDir()
		t.Setenv("XDG_STATE_HOME", state)
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), crashEnv+"="+root)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		// Kill it once its first temporary file exists: its record is
		// complete then, and no file is in place yet, or few.
		killed := false
		for !killed {
			select {
			case <-exited:
			default:
				if entries, _ := os.ReadDir(root); len(entries) > 0 && strings.HasPrefix(entries[0].Name(), documents.TempPrefix) {
					cmd.Process.Kill()
					killed = true
				}
				continue
			}
			break
		}
		<-exited
		records, _ := filepath.Glob(filepath.Join(state, "tandem", "journal", "*.commit"))
		if !killed || len(records) == 0 {
			continue // the edit finished first: try again
		}
		s := Open(Options{Roots: []string{root}})
		res := Call(context.Background(), s, "glob", json.RawMessage(`{"pattern":"*"}`))
		s.Close()
		if !strings.Contains(res.Text, "cut short by a crash and has been rolled") {
			t.Errorf("the first call's result does not say what was settled:\n%s", res.Text)
		}
		entries, _ := os.ReadDir(root)
		if len(entries) != 0 && len(entries) != crashFiles {
			t.Errorf("%d of %d files after recovery: %v", len(entries), crashFiles, entries)
		}
		for _, e := range entries {
			var i int
			b, _ := os.ReadFile(filepath.Join(root, e.Name()))
			if _, err := fmt.Sscanf(e.Name(), "new%d.txt", &i); err != nil || string(b) != crashContent(i) {
				t.Errorf("%s is not one of the edit's files whole (%d bytes)", e.Name(), len(b))
			}
		}
		if records, _ := filepath.Glob(filepath.Join(state, "tandem", "journal", "*")); len(records) > 0 {
			t.Errorf("records left: %v", records)
		}
		t.Logf("killed at attempt %d; after recovery %d of %d files", attempt, len(entries), crashFiles)
		return
	}
	t.Fatal("the edit finished before every kill in 10 attempts")
}
