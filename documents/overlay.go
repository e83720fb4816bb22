package documents

import (
	"fmt"
	"path/filepath"
	"sort"
	"sync"
)

// Position is an LSP position: a 0-based line and a character offset in
// UTF-16 code units.
type Position struct{ Line, Character uint32 }

// Range is an LSP range, end exclusive.
type Range struct{ Start, End Position }

// Change is one LSP content change: Range nil replaces the whole text.
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
}

type doc struct {
	text    rope
	flat    []byte // text materialised, nil until a Get needs it
	version int32
	dirty   bool
}

// NewOverlay returns an overlay with no open documents.
func NewOverlay() *Overlay { return &Overlay{docs: make(map[string]*doc)} }

// Open starts mirroring path with the editor's text.
func (o *Overlay) Open(path string, version int32, text []byte) {
	r := newRope(text)
	o.mu.Lock()
	defer o.mu.Unlock()
	o.docs[filepath.Clean(path)] = &doc{text: r, version: version}
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
	text := d.text
	for i, c := range changes {
		if c.Range == nil {
			text = newRope([]byte(c.Text))
			continue
		}
		start, err := text.offset(c.Range.Start)
		if err != nil {
			return fmt.Errorf("change %d: start: %w", i+1, err)
		}
		end, err := text.offset(c.Range.End)
		if err != nil {
			return fmt.Errorf("change %d: end: %w", i+1, err)
		}
		if end < start {
			return fmt.Errorf("change %d: the range ends (%d:%d) before it starts (%d:%d)", i+1,
				c.Range.End.Line, c.Range.End.Character, c.Range.Start.Line, c.Range.Start.Character)
		}
		text = text.replace(start, end, []byte(c.Text))
	}
	d.text, d.flat, d.version, d.dirty = text, nil, version, true
	return nil
}

// Saved records that the editor wrote the buffer to disk.
func (o *Overlay) Saved(path string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if d, ok := o.docs[filepath.Clean(path)]; ok {
		d.dirty = false
	}
}

// Close stops mirroring path.
func (o *Overlay) Close(path string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.docs, filepath.Clean(path))
}

// Get returns a snapshot of the open document at path.
func (o *Overlay) Get(path string) (Buffer, bool) {
	path = filepath.Clean(path)
	o.mu.RLock()
	d, ok := o.docs[path]
	if !ok {
		o.mu.RUnlock()
		return Buffer{}, false
	}
	text, flat, b := d.text, d.flat, Buffer{Version: d.version, Dirty: d.dirty}
	o.mu.RUnlock()
	if flat == nil {
		// The rope is immutable: build outside the lock so typing goes on.
		flat = text.Bytes()
		o.mu.Lock()
		if d2 := o.docs[path]; d2 == d && d.text.root == text.root {
			d.flat = flat
		}
		o.mu.Unlock()
	}
	b.Text = flat
	return b, true
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
