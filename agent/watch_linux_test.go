package agent

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/internal/prereq"
)

// With the per-user limit of inotify watches truly reached (a user
// namespace whose limit is 2: the test re-executes itself in one), fsnotify's
// Add really fails, and a file in the third directory is still told.
func TestChangedFileIsToldWhenTheKernelIsOutOfWatches(t *testing.T) {
	if os.Getenv("TANDEM_TEST_WATCH_LIMIT") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChangedFileIsToldWhenTheKernelIsOutOfWatches$", "-test.v")
		cmd.Env = append(os.Environ(), "TANDEM_TEST_WATCH_LIMIT=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}}
		out, err := cmd.CombinedOutput()
		var start *os.PathError
		if errors.As(err, &start) {
			prereq.Missing(t, "a user namespace ("+err.Error()+")", "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)")
			return
		}
		if err != nil || !bytes.Contains(out, []byte("--- PASS")) {
			t.Fatalf("in a namespace out of watches: %v\n%s", err, out)
		}
		return
	}
	if err := os.WriteFile("/proc/sys/user/max_inotify_watches", []byte("2"), 0); err != nil {
		t.Fatal("lowering the namespace's limit:", err)
	}
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a/one.txt": "one\n", "b/two.txt": "two\n", "c/three.txt": "three\n"})
	hub := NewWatches(DefaultMaxWatchedDirs)
	m := &fake.Model{}
	c := watchChat(t, ws, m, hub)
	note := readThenAsk(t, c, m, []string{"a/one.txt", "b/two.txt", "c/three.txt"}, func() {
		writeFiles(t, ws, map[string]string{"c/three.txt": "THREE\n"})
	})
	if want := changeNote([]string{"c/three.txt"}); note != want {
		t.Fatalf("want the model told %q, got %q", want, note)
	}
	if p := hub.Problem(); !strings.Contains(p, filepath.Join(ws, "c")) || !strings.Contains(p, "no space left on device") {
		t.Fatalf("the problem does not name the directory and the kernel's refusal: %q", p)
	}
}
