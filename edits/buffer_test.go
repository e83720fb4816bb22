package edits

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/documents"
)

// applyTextEdits applies one document's LSP edits as an editor does: all
// against the original text, so from the last to the first.
func applyTextEdits(o *documents.Overlay, path string, version int32, edits []TextEdit) error {
	sorted := append([]TextEdit(nil), edits...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i].Range.Start, sorted[j].Range.Start
		return a.Line > b.Line || (a.Line == b.Line && a.Character > b.Character)
	})
	var changes []documents.Change
	for _, e := range sorted {
		r := e.Range
		changes = append(changes, documents.Change{Range: &r, Text: e.NewText})
	}
	return o.Change(path, version, changes)
}

// The edits sent to the editor turn the buffer's text into exactly the new
// text, across CRLF, lone CR, BOM and characters outside the BMP.
func TestTextEditsReproduceNewText(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		old, next := genText(t, "old"), genText(t, "new")
		o := documents.NewOverlay()
		o.Open("/f", 1, old)
		edits := TextEdits(old, next)
		if err := applyTextEdits(o, "/f", 2, edits); err != nil {
			t.Fatal(err)
		}
		if b, _ := o.Get("/f"); string(b.Text) != string(next) {
			t.Fatalf("%q → %q gave %q via %+v", old, next, b.Text, edits)
		}
	})
}

// fakeEditor is an editor in the same process: it applies edits to the
// mirrored buffers the way an LSP client and its didChange would.
type fakeEditor struct {
	o             *documents.Overlay
	transactional bool
	refuse        map[string]bool   // paths whose edit the user blocks
	changed       map[string]string // paths the user typed in: a *Conflict with this text
	writesDisk    bool              // applying an edit writes the file too, as an ACP client does
	requests      [][]DocumentEdit
}

func (f *fakeEditor) Transactional() bool { return f.transactional }
func (f *fakeEditor) CanSave() bool       { return false }
func (f *fakeEditor) Save(context.Context, string) error {
	panic("Save called though CanSave is false")
}
func (f *fakeEditor) ApplyEdit(_ context.Context, _ string, docs []DocumentEdit) (bool, string, error) {
	f.requests = append(f.requests, docs)
	for _, d := range docs {
		if f.refuse[d.Path] {
			return false, "the user changed the document", nil
		}
		if text, ok := f.changed[d.Path]; ok {
			return false, "", &Conflict{Path: d.Path, Current: []byte(text)}
		}
		if b, _ := f.o.Get(d.Path); b.Version != d.Version {
			return false, "version mismatch", nil
		}
	}
	for _, d := range docs {
		if err := applyTextEdits(f.o, d.Path, d.Version+1, d.Edits); err != nil {
			return false, err.Error(), nil
		}
		if f.writesDisk {
			b, _ := f.o.Get(d.Path)
			if err := os.WriteFile(d.Path, b.Text, 0o644); err != nil {
				return false, err.Error(), nil
			}
		}
	}
	return true, "", nil
}

func openBuffer(w *ws, name, text string, dirty bool) {
	w.env.Buffers.Open(w.abs(name), 1, []byte(text))
	if dirty {
		full := documents.Change{Text: text}
		w.env.Buffers.Change(w.abs(name), 2, []documents.Change{full})
	}
}

// A buffer with unsaved user changes is edited in the editor only: the
// user's text stays, the disk is not written.
func TestDirtyBufferEditedInEditorOnly(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\n"})
	ed := &fakeEditor{o: w.env.Buffers}
	w.env.Editor = ed
	openBuffer(w, "a.txt", "USER one\ntwo\n", true)
	tag := w.read("a.txt", "")
	out, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + tag + `","ops":[{"replace":"2","text":"AGENT"}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := w.env.Buffers.Get(w.abs("a.txt")); string(b.Text) != "USER one\nAGENT\n" {
		t.Errorf("buffer %q", b.Text)
	}
	if got := w.file("a.txt"); got != "one\ntwo\n" {
		t.Errorf("the disk was written: %q", got)
	}
	if !strings.Contains(out, "unsaved changes of the user's, so the file on disk was not written") {
		t.Errorf("reply:\n%s", out)
	}
	if v := ed.requests[0][0].Version; v != 2 {
		t.Errorf("edit sent for version %d, want the buffer's 2", v)
	}
}

// An editor that writes the file as it applies the edit (an ACP client's
// fs/write_text_file) gets a reply saying the disk holds the new text, not
// that it was left alone.
func TestDirtyBufferEditedByAnEditorThatWritesTheFile(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\n"})
	w.env.Editor = &fakeEditor{o: w.env.Buffers, writesDisk: true}
	openBuffer(w, "a.txt", "USER one\ntwo\n", true)
	tag := w.read("a.txt", "")
	out, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + tag + `","ops":[{"replace":"2","text":"AGENT"}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.file("a.txt"); got != "USER one\nAGENT\n" {
		t.Fatalf("disk %q", got)
	}
	if !strings.Contains(out, "changed in the editor buffer, and the file on disk holds the same text") || strings.Contains(out, "not written") {
		t.Errorf("reply:\n%s", out)
	}
}

// A clean buffer is edited in the editor and its new text written to disk,
// so builds see it.
func TestCleanBufferEditedAndWritten(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\n"})
	w.env.Editor = &fakeEditor{o: w.env.Buffers}
	openBuffer(w, "a.txt", "one\ntwo\n", false)
	tag := w.read("a.txt", "")
	out, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + tag + `","ops":[{"append":"three"}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := w.env.Buffers.Get(w.abs("a.txt"))
	if string(b.Text) != "one\ntwo\nthree\n" || w.file("a.txt") != "one\ntwo\nthree\n" || b.Dirty {
		t.Errorf("buffer %q (dirty %v), disk %q", b.Text, b.Dirty, w.file("a.txt"))
	}
	if !strings.Contains(out, "changed in the editor buffer and written to disk") {
		t.Errorf("reply:\n%s", out)
	}
}

// A commit over two buffers and a file: when the editor refuses, nothing is
// written anywhere; a transactional editor gets one request.
func TestBufferRefusalWritesNothing(t *testing.T) {
	for _, transactional := range []bool{true, false} {
		w := newWS(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
		ed := &fakeEditor{o: w.env.Buffers, transactional: transactional, refuse: map[string]bool{w.abs("b.txt"): true}}
		w.env.Editor = ed
		openBuffer(w, "a.txt", "a\n", true)
		openBuffer(w, "b.txt", "b\n", true)
		var entries []string
		for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
			entries = append(entries, `{"path":"`+n+`","tag":"`+w.read(n, "")+`","ops":[{"append":"more"}]}`)
		}
		out, err := w.edit(`{"files":[` + strings.Join(entries, ",") + `]}`)
		text := replyText(out, err)
		applied, not := landedIn(t, text)
		ba, _ := w.env.Buffers.Get(w.abs("a.txt"))
		if transactional {
			if err == nil || len(applied) != 0 || len(ed.requests) != 1 || string(ba.Text) != "a\n" {
				t.Errorf("transactional: %d requests, reply:\n%s", len(ed.requests), text)
			}
		} else if !applied["a.txt"] || !not["b.txt"] || !not["c.txt"] || string(ba.Text) != "a\nmore\n" {
			// One request per buffer: a landed before b was refused, and the
			// reply says exactly that.
			t.Errorf("one by one: reply:\n%s", text)
		}
		if got := w.file("c.txt"); got != "c\n" {
			t.Errorf("c.txt written: %q", got)
		}
		if _, err := os.Stat(w.abs("a.txt")); err != nil || w.file("a.txt") != "a\n" {
			t.Errorf("a.txt on disk changed")
		}
	}
}

// An editor that finds a buffer changed makes the edit a conflict that
// shows the new text, nothing written, when nothing landed before it; one
// by one, the buffers before it keep their change, as for any refusal.
func TestEditorConflict(t *testing.T) {
	for _, transactional := range []bool{true, false} {
		w := newWS(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n"})
		ed := &fakeEditor{o: w.env.Buffers, transactional: transactional, changed: map[string]string{w.abs("b.txt"): "b\ntyped\n"}}
		w.env.Editor = ed
		openBuffer(w, "a.txt", "a\n", true)
		openBuffer(w, "b.txt", "b\n", true)
		var entries []string
		for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
			entries = append(entries, `{"path":"`+n+`","tag":"`+w.read(n, "")+`","ops":[{"append":"more"}]}`)
		}
		out, err := w.edit(`{"files":[` + strings.Join(entries, ",") + `]}`)
		text := replyText(out, err)
		ba, _ := w.env.Buffers.Get(w.abs("a.txt"))
		if transactional {
			if codeOf(err) != "conflict" || !strings.Contains(text, "b.txt changed in the editor since you read it") ||
				!strings.Contains(text, "2:typed") || string(ba.Text) != "a\n" {
				t.Errorf("transactional: %s", text)
			}
		} else if applied, not := landedIn(t, text); !applied["a.txt"] || !not["b.txt"] || !not["c.txt"] {
			t.Errorf("one by one: %s", text)
		}
		if got := w.file("c.txt"); got != "c\n" {
			t.Errorf("c.txt written: %q", got)
		}
	}
}

// The user typed between the check and the editor applying: the editor
// refuses the stale version and the reply says nothing landed.
func TestBufferChangedBeforeApplyIsConflict(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "a\n"})
	w.env.Editor = &fakeEditor{o: w.env.Buffers}
	openBuffer(w, "a.txt", "a\n", true)
	tag := w.read("a.txt", "")
	cs := stageAll(t, w, `{"files":[{"path":"a.txt","tag":"`+tag+`","ops":[{"append":"agent"}]}]}`)
	w.env.Buffers.Change(w.abs("a.txt"), 3, []documents.Change{{Text: "a user\n"}})
	_, err := run(context.Background(), w.env, cs)
	if codeOf(err) != "conflict" || !strings.Contains(err.Error(), "1:a user") {
		t.Fatalf("%v", err)
	}
	if b, _ := w.env.Buffers.Get(w.abs("a.txt")); string(b.Text) != "a user\n" {
		t.Errorf("the user's text was lost: %q", b.Text)
	}
}

// A file opened in the editor after the edit was staged is not written
// behind the buffer's back.
func TestFileOpenedSinceStagingIsConflict(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "a\n"})
	w.env.Editor = &fakeEditor{o: w.env.Buffers}
	tag := w.read("a.txt", "")
	cs := stageAll(t, w, `{"files":[{"path":"a.txt","tag":"`+tag+`","ops":[{"append":"agent"}]}]}`)
	openBuffer(w, "a.txt", "a\nuser typing\n", true)
	if _, err := run(context.Background(), w.env, cs); codeOf(err) != "conflict" {
		t.Fatalf("%v", err)
	}
	if got := w.file("a.txt"); got != "a\n" {
		t.Errorf("disk written: %q", got)
	}
}

// liar reports every edit applied and changes nothing, as an editor that
// skips a stale version silently does.
type liar struct{ fakeEditor }

func (l *liar) ApplyEdit(context.Context, string, []DocumentEdit) (bool, string, error) {
	return true, "", nil
}

// The editor says it applied the edit, but the buffer never shows it: the
// reply says NOT applied, never "Applied".
func TestUnconfirmedBufferEditIsNotReportedApplied(t *testing.T) {
	defer func(d time.Duration) { confirmWait = d }(confirmWait)
	confirmWait = 50 * time.Millisecond
	w := newWS(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	w.env.Editor = &liar{}
	openBuffer(w, "a.txt", "a\n", true)
	ta, tb := w.read("a.txt", ""), w.read("b.txt", "")
	_, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + ta + `","ops":[{"append":"x"}]},{"path":"b.txt","tag":"` + tb + `","ops":[{"append":"y"}]}]}`)
	if codeOf(err) != "failed" || !strings.HasPrefix(replyText("", err), "NOT applied to a.txt, b.txt; nothing was written.") ||
		!strings.Contains(err.Error(), "does not show the expected text") {
		t.Fatalf("%v", err)
	}
	if w.file("b.txt") != "b\n" {
		t.Errorf("b.txt written after the buffer failed")
	}
}

// write follows the same buffer rules: over a dirty buffer it changes the
// buffer only, and only if the buffer's text is a version the agent saw.
func TestWriteToDirtyBuffer(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "disk\r\n"})
	w.env.Editor = &fakeEditor{o: w.env.Buffers}
	openBuffer(w, "a.txt", "user's unsaved text\r\n", true)
	if _, err := w.write("a.txt", "agent\n"); codeOf(err) != "not_seen" {
		t.Fatalf("unseen buffer: %v", err)
	}
	w.read("a.txt", "")
	if _, err := w.write("a.txt", "agent\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := w.env.Buffers.Get(w.abs("a.txt")); string(b.Text) != "agent\r\n" {
		t.Errorf("buffer %q", b.Text)
	}
	if got := w.file("a.txt"); got != "disk\r\n" {
		t.Errorf("disk written: %q", got)
	}
}

// Editors hold a file's byte order mark outside the buffer's text: such a
// buffer is still clean, and the saved file keeps its BOM.
func TestCleanBufferOfFileWithBOM(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "\xEF\xBB\xBFone\r\n"})
	w.env.Editor = &fakeEditor{o: w.env.Buffers}
	openBuffer(w, "a.txt", "one\r\n", false)
	tag := w.read("a.txt", "")
	out, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + tag + `","ops":[{"append":"two"}]}]}`)
	if err != nil || !strings.Contains(out, "written to disk") {
		t.Fatalf("%q %v", out, err)
	}
	if got := w.file("a.txt"); got != "\xEF\xBB\xBFone\r\ntwo\r\n" {
		t.Errorf("disk %q", got)
	}
}
