package lspserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A didChange whose params do not decode (a version sent as a string) would
// leave the mirror one keystroke behind the editor for good. The document
// stops being mirrored instead: the editor is told once, reads show the disk
// and say why, edits and writes of it are refused, and opening it again
// resumes.
func TestE2E_UndecodableChangeStopsMirroring(t *testing.T) {
	ws := t.TempDir()
	path := filepath.Join(ws, "a.txt")
	if err := os.WriteFile(path, []byte("abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startLSP(t)
	p.initialize(t, ws, map[string]any{"workspace": map[string]any{"applyEdit": true}})
	uri := "file://" + path
	p.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 1, "text": "abc\n"}})
	insert := func(version any, text string) {
		p.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": uri, "version": version},
			"contentChanges": []any{change(0, 0, 0, 0, text)},
		})
	}
	insert(2, "1")
	insert(3, "2")
	insert("4", "3")
	insert(5, "4")
	session := p.openSession(t)
	text, isErr := p.tool(session, "read", map[string]any{"path": "a.txt"})
	if isErr || !strings.Contains(text, "\n1:abc\n") || !strings.Contains(text, "lost track of its unsaved text") {
		t.Fatalf("read after the lost change shows no disk with its reason:\n%s", text)
	}
	tag := text[strings.Index(text, "#")+1 : strings.Index(text, "]")]
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"edit", map[string]any{"files": []any{map[string]any{"path": "a.txt", "tag": tag, "ops": []any{map[string]any{"replace": "1", "text": "agent"}}}}}},
		{"write", map[string]any{"path": "a.txt", "content": "agent\n"}},
	} {
		res, isErr := p.tool(session, call.tool, call.args)
		if !isErr || !strings.Contains(res, "lost track of its unsaved text") || !strings.Contains(res, "close and reopen it") {
			t.Fatalf("%s of a lost document: %s", call.tool, res)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != "abc\n" {
		t.Fatalf("the disk changed: %q", b)
	}
	warnings := 0
	p.mu.Lock()
	for _, n := range p.notes {
		if n.Method == "window/showMessage" && strings.Contains(string(n.Params), "lost track of the unsaved text of "+path) {
			warnings++
		}
	}
	p.mu.Unlock()
	if warnings != 1 {
		t.Fatalf("the editor was told %d times, want once", warnings)
	}
	p.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 9, "text": "4321abc\n"}})
	if text, _ := p.tool(session, "read", map[string]any{"path": "a.txt"}); !strings.Contains(text, "\n1:4321abc\n") || strings.Contains(text, "lost track") {
		t.Fatalf("reopening did not resume mirroring:\n%s", text)
	}
}
