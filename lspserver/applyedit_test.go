package lspserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/tandemdev/tandem/documents"
)

// editorModel is the document state of a fake editor that speaks the real
// protocol: it applies workspace/applyEdit to its own copy of each open
// document (refusing a stale version, as editors do), reports each change
// back with an incremental didChange, and saves on tandem/saveDocument.
type editorModel struct {
	c      *rpc
	docs   *documents.Overlay
	mu     sync.Mutex
	refuse map[string]bool // URIs whose edit the editor refuses
	edits  []protocol.ApplyWorkspaceEditParams
}

func newEditorModel(c *rpc) *editorModel {
	m := &editorModel{c: c, docs: documents.NewOverlay(), refuse: map[string]bool{}}
	c.onRequest(m.answer)
	return m
}

func (m *editorModel) open(path, text string) {
	m.docs.Open(path, 1, []byte(text))
	m.c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": fileURI(path), "languageId": "go", "version": 1, "text": text}})
}

// typeText is the user typing at the start of line 0, unsaved.
func (m *editorModel) typeText(path, text string) {
	b, _ := m.docs.Get(path)
	r := documents.Range{}
	m.docs.Change(path, b.Version+1, []documents.Change{{Range: &r, Text: text}})
	m.c.notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": fileURI(path), "version": b.Version + 1},
		"contentChanges": []any{map[string]any{"range": protocol.Range{}, "text": text}},
	})
}

func (m *editorModel) text(path string) string {
	b, _ := m.docs.Get(path)
	return string(b.Text)
}

func (m *editorModel) answer(method string, params json.RawMessage) any {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch method {
	case "workspace/applyEdit":
		var p protocol.ApplyWorkspaceEditParams
		if err := json.Unmarshal(params, &p); err != nil {
			return map[string]any{"applied": false, "failureReason": err.Error()}
		}
		m.edits = append(m.edits, p)
		for _, d := range p.Edit.DocumentChanges {
			path, _ := filePath(string(d.TextDocument.URI))
			b, _ := m.docs.Get(path)
			if m.refuse[string(d.TextDocument.URI)] || d.TextDocument.Version == nil || *d.TextDocument.Version != b.Version {
				return map[string]any{"applied": false, "failureReason": "the document changed"}
			}
		}
		for _, d := range p.Edit.DocumentChanges {
			path, _ := filePath(string(d.TextDocument.URI))
			edits := append([]protocol.TextEdit(nil), d.Edits...)
			sort.SliceStable(edits, func(i, j int) bool { // last first, as they apply to the original
				a, b := edits[i].Range.Start, edits[j].Range.Start
				return a.Line > b.Line || (a.Line == b.Line && a.Character > b.Character)
			})
			var changes []documents.Change
			var wire []any
			for _, e := range edits {
				r := documents.Range{Start: documents.Position{Line: e.Range.Start.Line, Character: e.Range.Start.Character},
					End: documents.Position{Line: e.Range.End.Line, Character: e.Range.End.Character}}
				changes = append(changes, documents.Change{Range: &r, Text: e.NewText})
				wire = append(wire, map[string]any{"range": e.Range, "text": e.NewText})
			}
			v := *d.TextDocument.Version + 1
			if err := m.docs.Change(path, v, changes); err != nil {
				return map[string]any{"applied": false, "failureReason": err.Error()}
			}
			m.c.notify("textDocument/didChange", map[string]any{
				"textDocument": map[string]any{"uri": d.TextDocument.URI, "version": v}, "contentChanges": wire})
		}
		return map[string]any{"applied": true}
	case "tandem/saveDocument":
		var p struct{ URI string }
		json.Unmarshal(params, &p)
		path, _ := filePath(p.URI)
		os.WriteFile(path, []byte(m.text(path)), 0o644)
		m.c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": p.URI}})
		return nil
	}
	return nil
}

var tagLine = regexp.MustCompile(`\[[^\]]+#([0-9A-F]{8})\]`)

func editorSession(t *testing.T, caps map[string]any, files map[string]string) (*rpc, *editorModel, string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := inProcess(t)
	m := newEditorModel(c)
	initialized(t, c, caps)
	var res struct{ Session string }
	c.ok("tandem/openSession", map[string]any{"roots": []string{dir}}, &res)
	return c, m, res.Session, dir
}

func readTag(t *testing.T, c *rpc, session, path string) string {
	t.Helper()
	text, isErr := c.tool(session, "read", map[string]any{"path": path})
	m := tagLine.FindStringSubmatch(text)
	if isErr || m == nil {
		t.Fatalf("read %s: %s", path, text)
	}
	return m[1]
}

var versioned = map[string]any{"workspace": map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true}}}

// An open buffer with unsaved user text: the agent's edit reaches the
// buffer through workspace/applyEdit at the buffer's version; the user's
// text stays and the disk is not written.
func TestApplyEditDirtyBuffer(t *testing.T) {
	c, m, session, dir := editorSession(t, versioned, map[string]string{"a.go": "package a\n\nvar x = 1\n"})
	path := filepath.Join(dir, "a.go")
	m.open(path, "package a\n\nvar x = 1\n")
	m.typeText(path, "// user's unsaved note\n")
	tag := readTag(t, c, session, "a.go")
	text, isErr := c.tool(session, "edit", map[string]any{"files": []any{map[string]any{
		"path": "a.go", "tag": tag, "ops": []any{map[string]any{"replace": "4", "text": "var x = 2"}}}}})
	if isErr {
		t.Fatalf("edit: %s", text)
	}
	if got, want := m.text(path), "// user's unsaved note\npackage a\n\nvar x = 2\n"; got != want {
		t.Errorf("editor buffer %q, want %q", got, want)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "package a\n\nvar x = 1\n" {
		t.Errorf("disk written: %q", disk)
	}
	if len(m.edits) != 1 || *m.edits[0].Edit.DocumentChanges[0].TextDocument.Version != 2 {
		t.Errorf("applyEdit requests %+v", m.edits)
	}
	if !strings.Contains(text, "so the file on disk was not written") {
		t.Errorf("reply:\n%s", text)
	}
	// The next read sees the buffer with the agent's edit.
	if text, _ := c.tool(session, "read", map[string]any{"path": "a.go", "lines": "4"}); !strings.Contains(text, "4:var x = 2") {
		t.Errorf("read after the edit:\n%s", text)
	}
}

// A clean buffer: the editor applies the edit, then saves it on request.
func TestApplyEditCleanBufferSavedByEditor(t *testing.T) {
	caps := map[string]any{"workspace": versioned["workspace"], "experimental": map[string]any{"tandem": map[string]any{"saveDocument": true}}}
	c, m, session, dir := editorSession(t, caps, map[string]string{"a.go": "package a\n"})
	path := filepath.Join(dir, "a.go")
	m.open(path, "package a\n")
	tag := readTag(t, c, session, "a.go")
	text, isErr := c.tool(session, "edit", map[string]any{"files": []any{map[string]any{"path": "a.go", "tag": tag, "ops": []any{map[string]any{"append": "var y = 3"}}}}})
	if isErr || !strings.Contains(text, "and the editor saved it") {
		t.Fatalf("edit: %s", text)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "package a\nvar y = 3\n" {
		t.Errorf("disk %q", disk)
	}
}

// A transactional editor refuses one of two buffers: nothing lands in
// either buffer nor in the closed file of the same call.
func TestApplyEditTransactionalRefusal(t *testing.T) {
	for _, handling := range []string{"transactional", "textOnlyTransactional"} {
		t.Run(handling, func(t *testing.T) { transactionalRefusal(t, handling) })
	}
}

func transactionalRefusal(t *testing.T, handling string) {
	caps := map[string]any{"workspace": map[string]any{"applyEdit": true, "workspaceEdit": map[string]any{"documentChanges": true, "failureHandling": handling}}}
	c, m, session, dir := editorSession(t, caps, map[string]string{"a.go": "a\n", "b.go": "b\n", "c.go": "c\n"})
	for _, n := range []string{"a.go", "b.go"} {
		m.open(filepath.Join(dir, n), n[:1]+"\n")
	}
	m.refuse[fileURI(filepath.Join(dir, "b.go"))] = true
	var files []any
	for _, n := range []string{"a.go", "b.go", "c.go"} {
		files = append(files, map[string]any{"path": n, "tag": readTag(t, c, session, n), "ops": []any{map[string]any{"append": "more"}}})
	}
	text, isErr := c.tool(session, "edit", map[string]any{"files": files})
	if !isErr || !strings.HasPrefix(text, "NOT applied to a.go, b.go, c.go") {
		t.Fatalf("reply:\n%s", text)
	}
	if len(m.edits) != 1 || len(m.edits[0].Edit.DocumentChanges) != 2 {
		t.Errorf("want one transactional request for both buffers, got %+v", m.edits)
	}
	if m.text(filepath.Join(dir, "a.go")) != "a\n" {
		t.Errorf("buffer a changed")
	}
	if disk, _ := os.ReadFile(filepath.Join(dir, "c.go")); string(disk) != "c\n" {
		t.Errorf("c.go written: %q", disk)
	}
}

// An editor that does not accept workspace/applyEdit is never sent one: the
// edit of its open buffer is refused and nothing is written.
func TestApplyEditUnsupportedWritesNothing(t *testing.T) {
	c, m, session, dir := editorSession(t, map[string]any{}, map[string]string{"a.go": "a\n"})
	path := filepath.Join(dir, "a.go")
	m.open(path, "a\n")
	tag := readTag(t, c, session, "a.go")
	text, isErr := c.tool(session, "edit", map[string]any{"files": []any{map[string]any{"path": "a.go", "tag": tag, "ops": []any{map[string]any{"append": "b"}}}}})
	if !isErr || !strings.Contains(text, "does not accept workspace/applyEdit") || len(m.edits) != 0 {
		t.Fatalf("reply:\n%s", text)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "a\n" || m.text(path) != "a\n" {
		t.Errorf("written: disk %q, buffer %q", disk, m.text(path))
	}
}
