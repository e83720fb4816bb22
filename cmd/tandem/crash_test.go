package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/documents"
)

// `tandem tool edit` killed in the middle of a commit of eight new files;
// the next tandem started in the workspace (`tandem tool glob`) settles
// it before its call: none of the files or all of them whole, no
// temporary file, no record, and the output says what was done.
func TestToolSettlesAnEditKilledMidCommit(t *testing.T) {
	const files, size = 8, 2 << 20
	content := func(i int) string {
		line := fmt.Sprintf("line of file %d\n", i)
		return strings.Repeat(line, size/len(line))
	}
	var entries []map[string]string
	for i := range files {
		entries = append(entries, map[string]string{"path": fmt.Sprintf("new%d.txt", i), "create": content(i)})
	}
	args, _ := json.Marshal(map[string]any{"files": entries})
	for attempt := 1; attempt <= 10; attempt++ {
		root, home := t.TempDir(), t.TempDir()
		env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CONFIG_HOME="+filepath.Join(home, "config"))
		journal := filepath.Join(home, "state", "tandem", "journal")
		cmd := exec.Command(builtTandem(t), "tool", "edit", "-")
		cmd.Dir, cmd.Env, cmd.Stdin = root, env, strings.NewReader(string(args))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		// Kill it once its first temporary file exists: its record is
		// complete then.
		killed := false
	watch:
		for {
			select {
			case <-exited:
				break watch
			default:
			}
			if es, _ := os.ReadDir(root); len(es) > 0 && strings.HasPrefix(es[0].Name(), documents.TempPrefix) {
				cmd.Process.Kill()
				killed = true
				break
			}
		}
		<-exited
		if records, _ := filepath.Glob(filepath.Join(journal, "*.commit")); !killed || len(records) == 0 {
			continue // the edit finished first: try again
		}
		next := exec.Command(builtTandem(t), "tool", "glob", `{"pattern":"*"}`)
		next.Dir, next.Env = root, env
		out, _ := next.CombinedOutput()
		if !strings.Contains(string(out), "cut short by a crash and has been rolled") {
			t.Errorf("tandem tool glob does not say what it settled:\n%s", out)
		}
		es, _ := os.ReadDir(root)
		if len(es) != 0 && len(es) != files {
			t.Errorf("%d of %d files after recovery: %v", len(es), files, es)
		}
		for _, e := range es {
			var i int
			b, _ := os.ReadFile(filepath.Join(root, e.Name()))
			if _, err := fmt.Sscanf(e.Name(), "new%d.txt", &i); err != nil || string(b) != content(i) {
				t.Errorf("%s is not one of the edit's files whole (%d bytes)", e.Name(), len(b))
			}
		}
		if left, _ := os.ReadDir(journal); len(left) > 0 {
			t.Errorf("records left: %v", left)
		}
		t.Logf("killed at attempt %d; after recovery %d of %d files:\n%s", attempt, len(es), files, out)
		return
	}
	t.Fatal("the edit finished before every kill in 10 attempts")
}
