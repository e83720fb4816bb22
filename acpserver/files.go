package acpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/edits"
	"github.com/tandemdev/tandem/tools"
)

// files is the file system a client offers in initialize
// (clientCapabilities.fs). ACP announces no open buffers, so tandem asks
// for each file a tool names with fs/read_text_file; the client answers
// with its buffer when the file is open there, else with the disk's text.
// Text that differs from the disk becomes a dirty buffer of the session's
// overlay: reads show it, and edits are computed on it. When the client
// also offers writeTextFile, files is the session's edits.Editor for those
// buffers.
type files struct {
	conn    *acp.AgentSideConnection
	id      acp.SessionId // the ACP session's id, which is also its tools session's
	roots   []string
	buffers *documents.Overlay
	log     *slog.Logger
}

// clientWait bounds each fs request: a client that does not answer delays
// a call by this much at most, and never wedges a turn.
var clientWait = 5 * time.Second

// withFiles connects o to as much of the client's file system as the
// client offered. o.ID is the ACP session that the fs requests name.
func withFiles(o tools.Options, caps acp.FileSystemCapabilities, conn *acp.AgentSideConnection, log *slog.Logger) tools.Options {
	if !caps.ReadTextFile {
		return o
	}
	f := &files{id: acp.SessionId(o.ID), conn: conn, roots: o.Roots, buffers: documents.NewOverlay(), log: log}
	o.Buffers, o.Pull = f.buffers, f.pull
	if caps.WriteTextFile {
		o.Editor = f
	}
	return o
}

// read asks the client for its text of abs, as the file's text (asFile).
func (f *files) read(ctx context.Context, abs string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, clientWait)
	defer cancel()
	r, err := f.conn.ReadTextFile(ctx, acp.ReadTextFileRequest{SessionId: f.id, Path: abs})
	return asFile(abs, []byte(r.Content)), err
}

// asFile is a client's text of abs as the file's whole text. Clients that
// hold a buffer as lines answer them joined with "\n", without the final
// newline (avante), which the editor keeps as a property of the file, not
// as text: when the disk's file ends with one and the text does not, the
// text gets it back, so that an edit written through the client keeps the
// file's ending.
func asFile(abs string, text []byte) []byte {
	if len(text) == 0 || bytes.HasSuffix(text, []byte("\n")) {
		return text
	}
	disk, err := os.ReadFile(abs)
	if err != nil || !bytes.HasSuffix(disk, []byte("\n")) {
		return text
	}
	return append(text, '\n')
}

func (f *files) write(ctx context.Context, abs string, text []byte) error {
	ctx, cancel := context.WithTimeout(ctx, clientWait)
	defer cancel()
	_, err := f.conn.WriteTextFile(ctx, acp.WriteTextFileRequest{SessionId: f.id, Path: abs, Content: string(text)})
	return err
}

// pull is the session's tools.Options.Pull. It asks the client for its
// text of abs; when that text differs from the disk it becomes the
// overlay's buffer of abs, and when it does not, abs has no buffer. Empty
// text for a path not on disk is no buffer either: clients answer a
// missing file with "" (CodeCompanion on purpose, Zed for a path in its
// project), and a new file the agent writes must not meet an unsaved
// document nobody opened. A client that fails to answer leaves the
// overlay as it was, and an edit of a buffer asks the client again before
// it writes.
func (f *files) pull(ctx context.Context, abs string) {
	if !askable(abs) {
		return
	}
	text, err := f.read(ctx, abs)
	switch b, open := f.buffers.Get(abs); {
	case err != nil:
		f.log.Debug("fs/read_text_file failed", "path", abs, "err", err)
	case onDisk(abs, text), len(text) == 0 && !exists(abs):
		f.buffers.Close(abs)
	case !open || !bytes.Equal(b.Text, text):
		f.set(abs, text)
	}
}

// maxAnswer bounds the JSON of a file's text tandem asks a client for: an
// answer over maxMessage is skipped and its request fails, so the text and
// the message around it must fit.
const maxAnswer = maxMessage - 64<<10

// askable reports whether the client may be asked for abs: a regular file
// whose text on disk, as a JSON string, fits maxAnswer (a client's buffer
// of it is taken to be of about its size), or a file not on disk. The
// rest (a directory, a file tandem shows no text of) stays on disk.
func askable(abs string) bool {
	info, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil || !info.Mode().IsRegular() || info.Size() > documents.MaxFileBytes {
		return false
	}
	disk, err := os.ReadFile(abs)
	if err != nil || documents.Encoding(disk) != "" {
		return false
	}
	n := len(disk)
	for _, c := range disk {
		if c < 0x20 || c == '<' || c == '>' || c == '&' {
			n += 5 // escaped as \u00XX at worst
		}
	}
	return n <= maxAnswer
}

// set makes text the overlay's buffer of abs, at the next version; it is
// dirty unless the disk holds it (a client that saves as it writes).
func (f *files) set(abs string, text []byte) {
	b, open := f.buffers.Get(abs)
	if !open {
		f.buffers.Open(abs, 0, nil)
	}
	_ = f.buffers.Change(abs, b.Version+1, []documents.Change{{Text: string(text)}}) // a whole text always applies
	if onDisk(abs, text) {
		f.buffers.Saved(abs)
	}
}

// onDisk reports whether the disk holds text, as an editor shows the file.
// Editors such as Zed hold a CRLF file's lines with LF endings and keep its
// byte order mark apart, so those differences alone are no unsaved change.
func onDisk(abs string, text []byte) bool {
	disk, err := os.ReadFile(abs)
	if err != nil {
		return false
	}
	disk, text = bytes.TrimPrefix(disk, utf8BOM), bytes.TrimPrefix(text, utf8BOM)
	return bytes.Equal(disk, text) || bytes.Equal(bytes.ReplaceAll(disk, []byte("\r\n"), []byte("\n")), text)
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

func exists(abs string) bool {
	_, err := os.Lstat(abs)
	return !errors.Is(err, fs.ErrNotExist)
}

// Transactional reports true: ApplyEdit asks the client for every document
// before it writes any, so an edit of several documents lands whole or, on
// a conflict, not at all. A non-transactional editor would get one call
// per document, and a conflict in the second would come after the first
// was written.
func (f *files) Transactional() bool { return true }

// ApplyEdit computes each document's new text on the buffer of the version
// named, checks that the client still holds the text the edit was computed
// on, for every document (else it is an edits.Conflict), and only then
// writes each new text whole with fs/write_text_file (ACP has no ranged
// edit). A write that fails puts the documents already written back.
func (f *files) ApplyEdit(ctx context.Context, _ string, docs []edits.DocumentEdit) (bool, string, error) {
	bases, nexts := make([][]byte, len(docs)), make([][]byte, len(docs))
	for i, d := range docs {
		b, open := f.buffers.Get(d.Path)
		if !open || b.Version != d.Version {
			return false, fmt.Sprintf("%s changed since the edit was computed; read it again, then redo the edit", f.show(d.Path)), nil
		}
		next, err := applied(b.Text, d.Edits)
		if err != nil {
			return false, fmt.Sprintf("the edit of %s does not fit its text (%v)", f.show(d.Path), err), nil
		}
		bases[i], nexts[i] = b.Text, next
	}
	for i, d := range docs {
		cur, err := f.read(ctx, d.Path)
		if err != nil {
			return false, "", fmt.Errorf("fs/read_text_file of %s failed: %w", f.show(d.Path), err)
		}
		if !bytes.Equal(cur, bases[i]) {
			return false, "", &edits.Conflict{Path: d.Path, Current: cur}
		}
	}
	for i, d := range docs {
		if err := f.write(ctx, d.Path, nexts[i]); err != nil {
			return false, f.putBack(ctx, docs[:i], bases, fmt.Sprintf("fs/write_text_file of %s failed (%v)", f.show(d.Path), err)), nil
		}
	}
	for i, d := range docs {
		f.set(d.Path, nexts[i])
	}
	return true, "", nil
}

// putBack writes the bases of the documents written before a write
// failed, and says what failed. It does not end with the call's context: a
// cancelled call still puts back what it wrote.
func (f *files) putBack(ctx context.Context, written []edits.DocumentEdit, bases [][]byte, reason string) string {
	ctx = context.WithoutCancel(ctx)
	for i, d := range written {
		if err := f.write(ctx, d.Path, bases[i]); err != nil {
			reason += fmt.Sprintf("; %s was written and could not be put back (%v): read it", f.show(d.Path), err)
		}
	}
	return reason
}

// CanSave reports false: ACP has no request to save a document, only
// write_text_file, which Zed follows with a save of its own. As for any
// editor that cannot save, the edit's commit itself writes the new text of
// a buffer that was clean (equal to the disk) to disk.
func (f *files) CanSave() bool { return false }

// Save is never called: CanSave is false.
func (f *files) Save(context.Context, string) error {
	return errors.New("ACP has no request to save a document")
}

func (f *files) show(abs string) string { return documents.Display(f.roots, abs) }

// applied returns text with the edits applied. The edits' ranges are of the
// original text and do not overlap, so applying them last first leaves the
// ranges of the ones still to apply where they were.
func applied(text []byte, tes []edits.TextEdit) ([]byte, error) {
	changes := make([]documents.Change, len(tes))
	for i, te := range slices.Backward(tes) {
		changes[len(tes)-1-i] = documents.Change{Range: &te.Range, Text: te.NewText}
	}
	scratch := documents.NewOverlay()
	scratch.Open("/", 0, text)
	if err := scratch.Change("/", 1, changes); err != nil {
		return nil, err
	}
	b, _ := scratch.Get("/")
	return b.Text, nil
}
