package edits

import (
	"context"

	"github.com/tandemdev/tandem/documents"
)

// Editor changes documents the editor has open, through the editor itself
// (LSP workspace/applyEdit), so the user sees each change in the buffer and
// can undo it with the editor's own undo. The LSP server implements it.
type Editor interface {
	// Transactional reports whether one ApplyEdit naming several documents
	// lands in all of them or in none (the client declared transactional
	// failure handling for document changes).
	Transactional() bool
	// ApplyEdit asks the editor to apply the edits, each computed on the
	// document version it names. applied is false, with the editor's reason,
	// when it refused. An editor that finds a document no longer holds the
	// text the edit was computed on, and changed nothing, returns a
	// *Conflict as err.
	ApplyEdit(ctx context.Context, label string, docs []DocumentEdit) (applied bool, reason string, err error)
	// CanSave reports whether the editor saves a document on request.
	CanSave() bool
	// Save asks the editor to write the open document at path to disk.
	Save(ctx context.Context, path string) error
}

// Conflict is an editor's refusal of an edit because the document at Path
// holds Current, not the text the edit was computed on: the commit then
// refuses as for any conflict, showing the model what changed.
type Conflict struct {
	Path    string
	Current []byte
}

func (c *Conflict) Error() string { return c.Path + " changed in the editor" }

// DocumentEdit is the change of one open document at a known version.
type DocumentEdit struct {
	Path    string
	Version int32
	Edits   []TextEdit
}

// TextEdit replaces an LSP range (UTF-16 positions in the original text) by
// NewText. The edits of one document do not overlap.
type TextEdit struct {
	Range   documents.Range
	NewText string
}

// TextEdits computes the edits that turn the buffer text old into new: one
// per run of changed lines, so the editor moves cursors and marks around the
// change and its undo restores exactly the old text.
func TextEdits(old, new []byte) []TextEdit {
	a, b := documents.Scan(old), documents.Scan(new)
	match, err := lineMatch(a, b)
	if err != nil || a.BOM != b.BOM {
		return []TextEdit{{Range: documents.Range{End: position(old, len(old))}, NewText: string(new)}}
	}
	lineOff := func(ls documents.Lines, text []byte, n int) int { // offset of 0-based line n in text
		return len(text) - len(ls.Body) + lineStart(ls, n)
	}
	var out []TextEdit
	pos := &positioner{text: old}
	for _, h := range hunks(match, b.Len()) {
		from, to := lineOff(a, old, h.a0), lineOff(a, old, h.a1)
		if h.a0 == 0 {
			from = 0 // a BOM, if any, stays part of the first line's change
		}
		nfrom, nto := lineOff(b, new, h.b0), lineOff(b, new, h.b1)
		if h.b0 == 0 {
			nfrom = 0
		}
		start := pos.at(from)
		out = append(out, TextEdit{
			Range:   documents.Range{Start: start, End: pos.at(to)},
			NewText: string(new[nfrom:nto]),
		})
	}
	return out
}

// position converts a byte offset of text to an LSP position.
func position(text []byte, off int) documents.Position {
	return (&positioner{text: text}).at(off)
}

// positioner converts increasing byte offsets of one text to LSP positions
// in one pass over the text, however many edits a change has.
type positioner struct {
	text      []byte
	off       int // bytes scanned
	line      uint32
	lineStart int
}

func (p *positioner) at(off int) documents.Position {
	for ; p.off < off; p.off++ {
		if p.text[p.off] == '\n' {
			p.line++
			p.lineStart = p.off + 1
		}
	}
	return documents.Position{Line: p.line, Character: documents.UTF16Units(p.text[p.lineStart:off])}
}
