package agent

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/internal/prereq"
	"github.com/tandemdev/tandem/tools"
)

// watchChat is a chat on ws whose changed files come from hub.
func watchChat(t *testing.T, ws string, m *fake.Model, hub *Watches) *Chat {
	t.Helper()
	c := NewChat(Options{Session: tools.Open(tools.Options{Roots: []string{ws}}), Provider: m, Watches: hub,
		Endpoint: Endpoint{Provider: "test", Model: "m"}, System: SystemPrompt([]string{ws}), Model: ModelInfo{Window: 200000}})
	t.Cleanup(c.Close)
	return c
}

// writeFiles writes each relative path under ws with its text.
func writeFiles(t *testing.T, ws string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readThenAsk makes the chat read paths in one turn, lets change happen,
// and returns the note the model's next request carried ("" for none).
func readThenAsk(t *testing.T, c *Chat, m *fake.Model, paths []string, change func()) string {
	t.Helper()
	parts := make([]any, len(paths))
	for i, p := range paths {
		parts[i] = p
	}
	m.Responses = append(m.Responses,
		fake.Call(fake.Use("r1", "read", map[string]any{"paths": parts})), fake.Say("read"), fake.Say("noted"))
	if _, err := c.Prompt(context.Background(), textPrompt("read them"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	change()
	if _, err := c.Prompt(context.Background(), textPrompt("again"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	user := m.Requests[len(m.Requests)-1].Messages[len(m.Requests[len(m.Requests)-1].Messages)-1]
	for _, b := range user.Blocks {
		if strings.HasPrefix(b.Text, "(") && strings.Contains(b.Text, "by someone else") {
			return b.Text
		}
	}
	return ""
}

var errNoSpace = fmt.Errorf("inotify_add_watch: %w", syscall.ENOSPC)

// The changed-files law: a file the chat read that someone else changes is
// named at the next model request even when no watch holds its directory —
// the kernel's watches ran out, or the bound dropped it — and why is logged
// once.
func TestLaw_changed_file_is_told_without_a_watch(t *testing.T) {
	t.Run("the kernel refuses every watch", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"a/one.txt": "one\n", "b/two.txt": "two\n"})
		hub := NewWatches(DefaultMaxWatchedDirs)
		hub.addDir = func(string) error { return errNoSpace }
		var log bytes.Buffer
		hub.SetLog(slog.New(slog.NewTextHandler(&log, nil)))
		m := &fake.Model{}
		c := watchChat(t, ws, m, hub)
		note := readThenAsk(t, c, m, []string{"a/one.txt", "b/two.txt"}, func() {
			writeFiles(t, ws, map[string]string{"a/one.txt": "one, changed\n", "b/two.txt": "TWO\n"})
		})
		if want := changeNote([]string{"a/one.txt", "b/two.txt"}); note != want {
			t.Fatalf("want the model told %q, got %q", want, note)
		}
		if n := strings.Count(log.String(), "not watched"); n != 1 {
			t.Errorf("want the fallback logged once, logged %d times:\n%s", n, log.String())
		}
		if p := hub.Problem(); !strings.Contains(p, "no space left on device") || !strings.Contains(p, "max_user_watches") {
			t.Errorf("the problem does not say why and what to raise: %q", p)
		}
	})
	t.Run("the bound drops the least recently read", func(t *testing.T) {
		ws := t.TempDir()
		writeFiles(t, ws, map[string]string{"a/one.txt": "one\n", "b/two.txt": "two\n", "c/three.txt": "three\n"})
		hub := NewWatches(1)
		m := &fake.Model{}
		c := watchChat(t, ws, m, hub)
		note := readThenAsk(t, c, m, []string{"a/one.txt", "b/two.txt", "c/three.txt"}, func() {
			hub.mu.Lock()
			defer hub.mu.Unlock()
			if hub.lru.Len() != 1 {
				t.Errorf("want 1 directory watched, %d are", hub.lru.Len())
			}
			// The two dropped: only a stat check can find these.
			writeFiles(t, ws, map[string]string{"a/one.txt": "ONE\n", "b/two.txt": "TWO\n"})
		})
		if want := changeNote([]string{"a/one.txt", "b/two.txt"}); note != want {
			t.Fatalf("want the model told %q, got %q", want, note)
		}
		if !strings.Contains(hub.Problem(), "more than 1 directories") {
			t.Errorf("the bound is not the problem told: %q", hub.Problem())
		}
	})
}

// A branch switch that changes many files the chat read gives a note of
// bounded size: the count, the first few by path, and how to see the rest.
// Real git, real inotify events.
func TestBranchSwitchNoteIsCapped(t *testing.T) {
	prereq.Program(t, "git", "install git")
	ws := t.TempDir()
	files := map[string]string{}
	var paths []string
	for i := range 40 {
		rel := fmt.Sprintf("pkg%d/file%02d.go", i%4, i)
		files[rel] = fmt.Sprintf("package pkg // %d\n", i)
		paths = append(paths, rel)
	}
	writeFiles(t, ws, files)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-qm", "one")
	git("checkout", "-qb", "other")
	for rel := range files {
		files[rel] = "package pkg // other\n"
	}
	writeFiles(t, ws, files)
	git("commit", "-qam", "other")
	git("checkout", "-q", "main")

	hub := NewWatches(DefaultMaxWatchedDirs)
	m := &fake.Model{}
	c := watchChat(t, ws, m, hub)
	note := readThenAsk(t, c, m, paths, func() {
		git("checkout", "-q", "other")
		waitDirty(t, c, len(paths))
	})
	if !strings.HasPrefix(note, "(40 files you read changed since") {
		t.Fatalf("the note does not lead with the count: %q", note)
	}
	if !strings.Contains(note, "pkg0/file00.go, pkg0/file04.go") || !strings.Contains(note, "and 30 more") || !strings.Contains(note, "git status") {
		t.Fatalf("want the first 10 by path, the rest counted and how to list them: %q", note)
	}
	if strings.Contains(note, "pkg3/file39.go") || len(note) > 600 {
		t.Fatalf("the note names more than its first ten (%d bytes): %q", len(note), note)
	}
}

// waitDirty waits until events have named n of the chat's files. It looks
// at the watcher's state until it shows them: the events themselves decide.
func waitDirty(t *testing.T, c *Chat, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		c.watch.mu.Lock()
		got := len(c.watch.dirty)
		c.watch.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("events named %d of %d changed files", got, n)
		}
	}
}

// Under roots the editor reports changes for, tandem adds no watch of its
// own and the editor's report is what tells the model; elsewhere it
// watches, and the watches of chats on one process share one bound.
func TestEditorEventsComeFirst(t *testing.T) {
	ws, other := t.TempDir(), t.TempDir()
	writeFiles(t, ws, map[string]string{"in/editor.txt": "one\n"})
	writeFiles(t, other, map[string]string{"out.txt": "one\n"})
	hub := NewWatches(DefaultMaxWatchedDirs)
	hub.EditorReports([]string{ws})
	m := &fake.Model{}
	c := watchChat(t, ws, m, hub)
	note := readThenAsk(t, c, m, []string{"in/editor.txt"}, func() {
		if got := len(hub.dirs); got != 0 {
			t.Errorf("a directory the editor reports on got %d watches of tandem's", got)
		}
		writeFiles(t, ws, map[string]string{"in/editor.txt": "two\n"})
		hub.Changed([]string{filepath.Join(ws, "in/editor.txt")})
	})
	if want := changeNote([]string{"in/editor.txt"}); note != want {
		t.Fatalf("want the editor's event told %q, got %q", want, note)
	}
	c2 := watchChat(t, other, &fake.Model{}, hub)
	c2.watch.add(filepath.Join(other, "out.txt"))
	// Editors leave node_modules' packages and .git out of their events.
	pkg := filepath.Join(ws, "node_modules", "left")
	writeFiles(t, ws, map[string]string{"node_modules/left/index.js": "x\n"})
	c.watch.add(filepath.Join(pkg, "index.js"))
	hub.mu.Lock()
	defer hub.mu.Unlock()
	for _, dir := range []string{other, pkg} {
		if _, ok := hub.dirs[dir]; !ok {
			t.Errorf("%s, where the editor reports nothing, is not watched: %v", dir, hub.dirs)
		}
	}
}

func TestChangeNoteNamesAllOfAFew(t *testing.T) {
	if got := changeNote([]string{"a.go", "b.go"}); got != "(Changed since you last read them, by someone else: a.go, b.go. Read them again before you edit them.)" {
		t.Fatalf("a short list is not named whole: %q", got)
	}
	many := make([]string, 402)
	for i := range many {
		many[i] = fmt.Sprintf("drivers/gpu/drm/amd/display/file%03d.c", i)
	}
	got := changeNote(many)
	if !strings.Contains(got, "402 files") || !strings.Contains(got, "file009.c, and 392 more") || strings.Contains(got, "file010.c") {
		t.Fatalf("402 files are not capped to the count and the first ten: %q", got)
	}
}
