package acpserver

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/acpserver/acptest"
)

var readWrite = acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}

// editorWorkspace is a workspace whose files hold "one\ntwo\nthree\n" on
// disk, each with an unsaved buffer in the client's editor where the
// second line reads "TWO unsaved".
func editorWorkspace(t *testing.T, names ...string) (string, *acptest.Editor) {
	t.Helper()
	ws := t.TempDir()
	ed := &acptest.Editor{}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(ws, n), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ed.Set(filepath.Join(ws, n), "one\nTWO unsaved\nthree\n")
	}
	return ws, ed
}

// result is the text the model got for tool call id.
func result(c *acptest.Client, id string) string {
	text := c.Text()
	_, after, _ := strings.Cut(text, "["+id+"] ")
	before, _, _ := strings.Cut(after, "\n[call-")
	return before
}

// code is the refusal code of tool call id, "" when it succeeded.
func code(c *acptest.Client, id string) string {
	for _, u := range c.Updates() {
		if u.ToolCallUpdate != nil && string(u.ToolCallUpdate.ToolCallId) == id {
			if raw, ok := u.ToolCallUpdate.RawOutput.(map[string]any); ok && raw["code"] != nil {
				return fmt.Sprint(raw["code"])
			}
		}
	}
	return ""
}

func disk(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func buffer(t *testing.T, ed *acptest.Editor, path string) string {
	t.Helper()
	text, ok := ed.Buffer(path)
	if !ok {
		t.Fatalf("%s has no buffer", path)
	}
	return text
}

const readA = `call read {"path":"a.txt"}`

// A read shows the client's unsaved buffer; an edit based on it lands in
// the buffer through fs/write_text_file and the disk is untouched.
func TestReadAndEditTheClientsBuffer(t *testing.T) {
	ws, ed := editorWorkspace(t, "a.txt")
	a := filepath.Join(ws, "a.txt")
	client := &acptest.Client{Files: ed}
	p := serve(t, puppet, client)
	s := p.openFS(t, ws, readWrite)
	if _, err := p.prompt(s.SessionId, readA+"\n"+`call edit {"files":[{"path":"a.txt","old":"three","new":"3"}]}`); err != nil {
		t.Fatal(err)
	}
	if r := result(client, "call-1-1"); !strings.Contains(r, "2:TWO unsaved") || !strings.Contains(r, "unsaved editor buffer") {
		t.Errorf("the read does not show the buffer:\n%s", r)
	}
	if r := result(client, "call-1-2"); !strings.Contains(r, "Applied to a.txt") || !strings.Contains(r, "changed in the editor buffer") {
		t.Errorf("the edit:\n%s", r)
	}
	if got := buffer(t, ed, a); got != "one\nTWO unsaved\n3\n" {
		t.Errorf("the buffer after the edit: %q", got)
	}
	if got := disk(t, a); got != "one\ntwo\nthree\n" {
		t.Errorf("the disk was written: %q", got)
	}
	if got := ed.Sessions(); len(got) != 1 || got[0] != s.SessionId {
		t.Errorf("the requests named the sessions %v, want %s", got, s.SessionId)
	}
}

// A buffer the user changed between the read and the edit is the edit's
// base no more: the edit is refused as a conflict, with the new text, and
// nothing is written, neither the buffer nor the disk.
func TestABufferChangedSinceTheReadIsAConflict(t *testing.T) {
	ws, ed := editorWorkspace(t, "a.txt")
	a := filepath.Join(ws, "a.txt")
	client := &acptest.Client{Files: ed}
	p := serve(t, puppet, client)
	s := p.openFS(t, ws, readWrite)
	if _, err := p.prompt(s.SessionId, readA); err != nil {
		t.Fatal(err)
	}
	ed.Set(a, "one\nTWO unsaved\nTHREE typed\n")
	if _, err := p.prompt(s.SessionId, `call edit {"files":[{"path":"a.txt","old":"three","new":"3"}]}`); err != nil {
		t.Fatal(err)
	}
	if c, r := code(client, "call-5-1"), result(client, "call-5-1"); c != "conflict" || !strings.Contains(r, "THREE typed") {
		t.Errorf("the edit: %s\n%s", c, r)
	}
	if got := buffer(t, ed, a); got != "one\nTWO unsaved\nTHREE typed\n" {
		t.Errorf("the buffer: %q", got)
	}
	if got := disk(t, a); got != "one\ntwo\nthree\n" {
		t.Errorf("the disk: %q", got)
	}
	for _, r := range ed.Served() {
		if strings.HasPrefix(r, "write") {
			t.Errorf("a write was sent: %s", r)
		}
	}
}

// The user types while an edit of three files (two buffers, one on disk
// only) is being committed, into the second buffer, after the first was
// checked: nothing at all is written, and the model is shown what the
// user typed.
func TestAMultiFileEditWithOneConflictWritesNothing(t *testing.T) {
	ws, ed := editorWorkspace(t, "a.txt", "b.txt")
	a, b, c := filepath.Join(ws, "a.txt"), filepath.Join(ws, "b.txt"), filepath.Join(ws, "c.txt")
	if err := os.WriteFile(c, []byte("disk only\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reads := 0
	ed.Hook = func(method, path string) error {
		if method == "read" && path == b {
			if reads++; reads == 3 { // read, the edit's pull, then the commit's check
				ed.Set(b, "one\nTWO unsaved\nthree typed\n")
			}
		}
		return nil
	}
	client := &acptest.Client{Files: ed}
	p := serve(t, puppet, client)
	s := p.openFS(t, ws, readWrite)
	_, err := p.prompt(s.SessionId, `call read {"path":"a.txt"}`+"\n"+`call read {"path":"b.txt"}`+"\n"+`call read {"path":"c.txt"}`+"\n"+
		`call edit {"files":[{"path":"a.txt","old":"one","new":"1"},{"path":"b.txt","old":"one","new":"1"},{"path":"c.txt","old":"disk only","new":"changed"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if c, r := code(client, "call-1-4"), result(client, "call-1-4"); c != "conflict" || !strings.Contains(r, "NOT applied to a.txt, b.txt, c.txt; nothing was written: b.txt changed in the editor since you read it") ||
		!strings.Contains(r, "3:three typed") {
		t.Errorf("the edit: %s\n%s", c, r)
	}
	if got := buffer(t, ed, a); got != "one\nTWO unsaved\nthree\n" {
		t.Errorf("a.txt's buffer: %q", got)
	}
	if got := buffer(t, ed, b); got != "one\nTWO unsaved\nthree typed\n" {
		t.Errorf("b.txt's buffer: %q", got)
	}
	if got := disk(t, a) + disk(t, b) + disk(t, c); got != "one\ntwo\nthree\none\ntwo\nthree\ndisk only\n" {
		t.Errorf("the disk: %q", got)
	}
	for _, r := range ed.Served() {
		if strings.HasPrefix(r, "write") {
			t.Errorf("a write was sent: %s", r)
		}
	}
}

// A write the client fails after another landed puts the one written back.
func TestAFailedWritePutsBackWhatWasWritten(t *testing.T) {
	ws, ed := editorWorkspace(t, "a.txt", "b.txt")
	a, b := filepath.Join(ws, "a.txt"), filepath.Join(ws, "b.txt")
	ed.Hook = func(method, path string) error {
		if method == "write" && path == b {
			return errors.New("disk full")
		}
		return nil
	}
	client := &acptest.Client{Files: ed}
	p := serve(t, puppet, client)
	s := p.openFS(t, ws, readWrite)
	if _, err := p.prompt(s.SessionId, `call read {"path":"a.txt"}`+"\n"+`call read {"path":"b.txt"}`+"\n"+
		`call edit {"files":[{"path":"a.txt","old":"one","new":"1"},{"path":"b.txt","old":"one","new":"1"}]}`); err != nil {
		t.Fatal(err)
	}
	if r := result(client, "call-1-3"); !strings.Contains(r, "NOT applied to a.txt, b.txt") || !strings.Contains(r, "disk full") {
		t.Errorf("the edit:\n%s", r)
	}
	if got := buffer(t, ed, a) + buffer(t, ed, b); got != "one\nTWO unsaved\nthree\none\nTWO unsaved\nthree\n" {
		t.Errorf("the buffers: %q", got)
	}
	var writes []string
	for _, r := range ed.Served() {
		if strings.HasPrefix(r, "write") {
			writes = append(writes, r)
		}
	}
	if want := []string{"write " + a, "write " + b, "write " + a}; fmt.Sprint(writes) != fmt.Sprint(want) {
		t.Errorf("writes: %v, want %v", writes, want)
	}
}

// A file whose client text is the disk's is no buffer: it is edited on
// disk, and the client is asked nothing more. So is a CRLF file the
// client holds with LF endings.
func TestAFileEqualToTheDiskIsEditedOnDisk(t *testing.T) {
	for name, buffer := range map[string]string{"no buffer": "", "LF buffer": "one\ntwo\nthree\n"} {
		t.Run(name, func(t *testing.T) {
			ws, ed := editorWorkspace(t)
			a := filepath.Join(ws, "a.txt")
			if err := os.WriteFile(a, []byte("one\r\ntwo\r\nthree\r\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if buffer != "" {
				ed.Set(a, buffer)
			}
			client := &acptest.Client{Files: ed}
			p := serve(t, puppet, client)
			s := p.openFS(t, ws, readWrite)
			if _, err := p.prompt(s.SessionId, readA+"\n"+`call edit {"files":[{"path":"a.txt","old":"three","new":"3"}]}`); err != nil {
				t.Fatal(err)
			}
			if r := result(client, "call-1-1"); strings.Contains(r, "unsaved") {
				t.Errorf("the read:\n%s", r)
			}
			if got := disk(t, a); got != "one\r\ntwo\r\n3\r\n" {
				t.Errorf("the disk: %q", got)
			}
			if got := fmt.Sprint(ed.Served()); got != fmt.Sprint([]string{"read " + a, "read " + a}) {
				t.Errorf("requests: %s", got)
			}
		})
	}
}

// What tandem shows no text of is not asked for: a directory, a file over
// the size limit (whose answer could exceed what one message may hold).
func TestLargeFilesAndDirectoriesAreNotAskedFor(t *testing.T) {
	ws, ed := editorWorkspace(t)
	big := strings.Repeat("0123456789abcdef\n", 5<<20/17)
	if err := os.WriteFile(filepath.Join(ws, "big.log"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	client := &acptest.Client{Files: ed}
	p := serve(t, puppet, client)
	s := p.openFS(t, ws, readWrite)
	if _, err := p.prompt(s.SessionId, `call read {"path":"big.log","lines":"1-2"}`+"\n"+`call read {"path":"."}`); err != nil {
		t.Fatal(err)
	}
	if r := result(client, "call-1-1"); !strings.Contains(r, "1:0123456789abcdef") {
		t.Errorf("the read:\n%s", r)
	}
	if got := ed.Served(); len(got) != 0 {
		t.Errorf("the client was asked: %v", got)
	}
}

// A client that reads but does not write: its unsaved buffer is shown,
// and an edit of it is refused, so the disk is not written under it.
func TestAReadOnlyClientsBufferIsNotEdited(t *testing.T) {
	ws, ed := editorWorkspace(t, "a.txt")
	a := filepath.Join(ws, "a.txt")
	client := &acptest.Client{Files: ed}
	p := serve(t, puppet, client)
	s := p.openFS(t, ws, acp.FileSystemCapabilities{ReadTextFile: true})
	if _, err := p.prompt(s.SessionId, readA+"\n"+`call edit {"files":[{"path":"a.txt","old":"three","new":"3"}]}`); err != nil {
		t.Fatal(err)
	}
	if r := result(client, "call-1-1"); !strings.Contains(r, "2:TWO unsaved") {
		t.Errorf("the read:\n%s", r)
	}
	if r := result(client, "call-1-2"); !strings.Contains(r, "cannot change editor buffers") {
		t.Errorf("the edit:\n%s", r)
	}
	if got := disk(t, a) + buffer(t, ed, a); got != "one\ntwo\nthree\none\nTWO unsaved\nthree\n" {
		t.Errorf("the disk and the buffer: %q", got)
	}
}

// A client that does not offer fs/read_text_file is not asked: the tools
// read and write the disk, as they always did.
func TestWithoutTheCapabilityTheDiskIsUsed(t *testing.T) {
	ws, ed := editorWorkspace(t, "a.txt")
	a := filepath.Join(ws, "a.txt")
	client := &acptest.Client{Files: ed}
	p := serve(t, puppet, client)
	s := p.open(t, ws)
	if _, err := p.prompt(s.SessionId, readA+"\n"+`call edit {"files":[{"path":"a.txt","old":"three","new":"3"}]}`); err != nil {
		t.Fatal(err)
	}
	if r := result(client, "call-1-1"); !strings.Contains(r, "2:two") {
		t.Errorf("the read:\n%s", r)
	}
	if got := disk(t, a); got != "one\ntwo\n3\n" {
		t.Errorf("the disk: %q", got)
	}
	if n := len(ed.Served()); n != 0 {
		t.Errorf("the client was asked %d times: %v", n, ed.Served())
	}
}

// A client that offers fs but fails to answer it (an error, or no answer
// in time) does not break a call: the tools go on with the disk.
func TestAClientThatFailsFsLeavesTheDisk(t *testing.T) {
	for name, hook := range map[string]func(string, string) error{
		"error": func(string, string) error { return acp.NewMethodNotFound(acp.ClientMethodFsReadTextFile) },
		"hang":  func(string, string) error { time.Sleep(time.Second); return nil }, // a client far slower than clientWait below; the test does not wait for it
	} {
		t.Run(name, func(t *testing.T) {
			defer func(w time.Duration) { clientWait = w }(clientWait)
			clientWait = 100 * time.Millisecond
			ws, ed := editorWorkspace(t, "a.txt")
			a := filepath.Join(ws, "a.txt")
			ed.Hook = hook
			client := &acptest.Client{Files: ed}
			p := serve(t, puppet, client)
			s := p.openFS(t, ws, readWrite)
			if _, err := p.prompt(s.SessionId, readA+"\n"+`call edit {"files":[{"path":"a.txt","old":"three","new":"3"}]}`); err != nil {
				t.Fatal(err)
			}
			if r := result(client, "call-1-1"); !strings.Contains(r, "2:two") {
				t.Errorf("the read:\n%s", r)
			}
			if got := disk(t, a); got != "one\ntwo\n3\n" {
				t.Errorf("the disk: %q", got)
			}
		})
	}
}

// CodeCompanion (and Zed, for a path in its project) answers a file that is
// not on disk with "": that is no unsaved buffer. The agent's write of a
// new file and an edit's create make the file on disk, and a read says the
// file does not exist.
func TestAClientsEmptyTextForAMissingFileIsNoBuffer(t *testing.T) {
	ws := t.TempDir()
	ed := &acptest.Editor{MissingAsEmpty: true}
	client := &acptest.Client{Files: ed}
	p := serve(t, puppet, client)
	s := p.openFS(t, ws, readWrite)
	if _, err := p.prompt(s.SessionId, `call read {"path":"docs/new.md"}`+"\n"+
		`call write {"path":"docs/cc.md","content":"written\n"}`+"\n"+
		`call edit {"files":[{"path":"made.txt","create":"created\n"}]}`); err != nil {
		t.Fatal(err)
	}
	if r := result(client, "call-1-1"); strings.Contains(r, "unsaved") || !strings.Contains(r, "not") {
		t.Errorf("a read of a missing file:\n%s", r)
	}
	for path, want := range map[string]string{"docs/cc.md": "written\n", "made.txt": "created\n"} {
		if b, err := os.ReadFile(filepath.Join(ws, path)); err != nil || string(b) != want {
			t.Errorf("%s on disk: %q, %v; want %q", path, b, err, want)
		}
	}
	for _, id := range []string{"call-1-2", "call-1-3"} {
		if c := code(client, id); c != "" {
			t.Errorf("%s was refused (%s):\n%s", id, c, result(client, id))
		}
	}
}

// avante answers a buffer as its lines joined with "\n", without the final
// newline, and writes to the disk as sent. A buffer equal to the disk but
// for that is no unsaved change, and an edit of a buffer with unsaved
// changes keeps the file's final newline.
func TestAClientsTextWithoutTheFinalNewlineKeepsTheFilesEnding(t *testing.T) {
	for name, buffered := range map[string]string{"saved buffer": "one\ntwo\nthree\n", "unsaved buffer": "one\nTWO unsaved\nthree\n"} {
		t.Run(name, func(t *testing.T) {
			ws, ed := editorWorkspace(t)
			ed.JoinsLines = true
			a := filepath.Join(ws, "a.txt")
			if err := os.WriteFile(a, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ed.Set(a, buffered)
			client := &acptest.Client{Files: ed}
			p := serve(t, puppet, client)
			s := p.openFS(t, ws, readWrite)
			if _, err := p.prompt(s.SessionId, readA+"\n"+`call edit {"files":[{"path":"a.txt","old":"three","new":"3"}]}`); err != nil {
				t.Fatal(err)
			}
			unsaved := strings.Contains(result(client, "call-1-1"), "unsaved editor buffer")
			if unsaved != (name == "unsaved buffer") {
				t.Errorf("the read calls the buffer unsaved: %v\n%s", unsaved, result(client, "call-1-1"))
			}
			want := strings.Replace(buffered, "three", "3", 1)
			if got := disk(t, a); got != want {
				t.Errorf("the disk after the edit: %q; want %q", got, want)
			}
		})
	}
}
