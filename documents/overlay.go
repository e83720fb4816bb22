package documents

import (
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
)

// Position is an LSP position: a 0-based line and a character offset in
// UTF-16 code units.
type Position struct{ Line, Character uint32 }

// Range is an LSP range, end exclusive.
type Range struct{ Start, End Position }

// Change is one LSP content change; a nil Range replaces the whole text.
type Change struct {
	Range *Range
	Text  string
}

// Buffer is a snapshot of one open editor document. Text is shared with
// other readers of the same version: never modify it.
type Buffer struct {
	Text    []byte
	Version int32
	Dirty   bool // changed since it was opened or last saved
}

// Overlay mirrors the editor's open documents, keyed by absolute path. Reads
// and searches see a buffer in place of the file on disk. Safe for
// concurrent use.
//
// A document is held as a rope, so applying a keystroke costs the same in a
// 1 KiB file and in a 1 MiB one; the flat text a reader needs is built on the
// first Get after a change and shared until the next one.
type Overlay struct {
	mu   sync.RWMutex
	docs map[string]*doc
	// lost holds the documents whose mirror went out of step with the
	// editor, with why, until the editor opens or closes them again: the
	// disk is shown in their place, and nothing may write them.
	lost map[string]string
	// gen counts the changes to the buffers, and the changes on disk the
	// editor reported: a search kept from before one is not served again.
	gen atomic.Uint64
}

type doc struct {
	text    *rope
	flat    []byte // text materialised, nil until a Get needs it
	version int32
	dirty   bool
}

// NewOverlay returns an overlay with no open documents.
func NewOverlay() *Overlay {
	return &Overlay{docs: make(map[string]*doc), lost: make(map[string]string)}
}

// Open starts mirroring path with the editor's text.
func (o *Overlay) Open(path string, version int32, text []byte) {
	r := newRope(text)
	o.mu.Lock()
	defer o.mu.Unlock()
	path = filepath.Clean(path)
	o.docs[path] = &doc{text: r, version: version}
	delete(o.lost, path)
	o.gen.Add(1)
}

// Change applies content changes in order and sets the new version. The
// changes apply whole or not at all: on an error the document keeps its
// previous text and version.
func (o *Overlay) Change(path string, version int32, changes []Change) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	d, ok := o.docs[filepath.Clean(path)]
	if !ok {
		return fmt.Errorf("%s is not open", path)
	}
	// Each applied change but the last leaves a way back, undone in reverse
	// order if a later change does not fit.
	var undo []func()
	for i, c := range changes {
		last := i == len(changes)-1
		if c.Range == nil {
			if !last {
				old := d.text.root
				undo = append(undo, func() { d.text.root = old })
			}
			d.text = &rope{root: build([]byte(c.Text))}
			continue
		}
		start, end, at, err := span(d.text, i, c.Range)
		if err != nil {
			for j := len(undo) - 1; j >= 0; j-- {
				undo[j]()
			}
			return err
		}
		if !last {
			removed, n := d.text.slice(start, end), len(c.Text)
			undo = append(undo, func() { d.text.replace(start, start+n, removed) })
		}
		d.text.replaceAt(at, start, end, []byte(c.Text))
	}
	d.flat, d.version, d.dirty = nil, version, true
	o.gen.Add(1)
	return nil
}

// span converts the i-th change's range to byte offsets.
func span(text *rope, i int, r *Range) (int, int, spot, error) {
	start, end, at, err := text.span(r.Start, r.End)
	if err != nil {
		return 0, 0, spot{}, fmt.Errorf("change %d: %w", i+1, err)
	}
	if end < start {
		return 0, 0, spot{}, fmt.Errorf("change %d: the range ends (%d:%d) before it starts (%d:%d)", i+1,
			r.End.Line, r.End.Character, r.Start.Line, r.Start.Character)
	}
	return start, end, at, nil
}

// Saved records that the editor wrote the buffer to disk.
func (o *Overlay) Saved(path string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if d, ok := o.docs[filepath.Clean(path)]; ok {
		d.dirty = false
	}
	o.gen.Add(1)
}

// Close stops mirroring path: the editor holds no text of it any more.
func (o *Overlay) Close(path string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	path = filepath.Clean(path)
	delete(o.docs, path)
	delete(o.lost, path)
	o.gen.Add(1)
}

// Lose stops mirroring path because the mirror no longer matches the
// editor (a change that could not be applied): reading a wrong buffer would
// be worse than reading the disk, and writing the disk could overwrite what
// the user typed. Until the editor opens or closes path again, Lost names
// the reason.
func (o *Overlay) Lose(path, reason string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	path = filepath.Clean(path)
	delete(o.docs, path)
	o.lost[path] = reason
	o.gen.Add(1)
}

// DiskChanged records that the editor reported files changed on disk.
func (o *Overlay) DiskChanged() { o.gen.Add(1) }

// Generation counts the changes to the buffers and the changes on disk
// reported so far (0 for a nil overlay, which never changes).
func (o *Overlay) Generation() uint64 {
	if o == nil {
		return 0
	}
	return o.gen.Load()
}

// Lost reports why the editor's buffer of path is not mirrored although the
// editor has it open.
func (o *Overlay) Lost(path string) (reason string, lost bool) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	reason, lost = o.lost[filepath.Clean(path)]
	return reason, lost
}

// Get returns a snapshot of the open document at path.
func (o *Overlay) Get(path string) (Buffer, bool) {
	path = filepath.Clean(path)
	o.mu.RLock()
	d, ok := o.docs[path]
	if ok && d.flat != nil {
		defer o.mu.RUnlock()
		return Buffer{Text: d.flat, Version: d.version, Dirty: d.dirty}, true
	}
	o.mu.RUnlock()
	if !ok {
		return Buffer{}, false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if d, ok = o.docs[path]; !ok {
		return Buffer{}, false
	}
	if d.flat == nil {
		d.flat = d.text.Bytes()
	}
	return Buffer{Text: d.flat, Version: d.version, Dirty: d.dirty}, true
}

// Paths lists the open documents, sorted.
func (o *Overlay) Paths() []string {
	o.mu.RLock()
	defer o.mu.RUnlock()
	out := make([]string, 0, len(o.docs))
	for p := range o.docs {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
