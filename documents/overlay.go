package documents

import (
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
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

// Buffer is a snapshot of one open editor document.
type Buffer struct {
	Text    []byte
	Version int32
	Dirty   bool // changed since it was opened or last saved
}

// Overlay mirrors the editor's open documents, keyed by absolute path. Reads
// and searches see a buffer in place of the file on disk. Safe for
// concurrent use.
type Overlay struct {
	mu   sync.RWMutex
	docs map[string]*doc
}

type doc struct {
	text    []byte
	version int32
	dirty   bool
}

// NewOverlay returns an overlay with no open documents.
func NewOverlay() *Overlay { return &Overlay{docs: make(map[string]*doc)} }

// Open starts mirroring path with the editor's text.
func (o *Overlay) Open(path string, version int32, text []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.docs[filepath.Clean(path)] = &doc{text: append([]byte(nil), text...), version: version}
}

// Change applies content changes in order and sets the new version.
func (o *Overlay) Change(path string, version int32, changes []Change) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	d, ok := o.docs[filepath.Clean(path)]
	if !ok {
		return fmt.Errorf("%s is not open", path)
	}
	for _, c := range changes {
		if c.Range == nil {
			d.text = []byte(c.Text)
			continue
		}
		start, err := offsetOf(d.text, c.Range.Start)
		if err != nil {
			return err
		}
		end, err := offsetOf(d.text, c.Range.End)
		if err != nil {
			return err
		}
		if end < start {
			return fmt.Errorf("range end before start")
		}
		next := make([]byte, 0, len(d.text)-(end-start)+len(c.Text))
		next = append(append(append(next, d.text[:start]...), c.Text...), d.text[end:]...)
		d.text = next
	}
	d.version = version
	d.dirty = true
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
	o.mu.RLock()
	defer o.mu.RUnlock()
	d, ok := o.docs[filepath.Clean(path)]
	if !ok {
		return Buffer{}, false
	}
	return Buffer{Text: d.text, Version: d.version, Dirty: d.dirty}, true
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

// offsetOf converts an LSP position to a byte offset. A character past the
// end of its line clamps to the line's end, as the LSP specification says.
func offsetOf(text []byte, p Position) (int, error) {
	off := 0
	for line := uint32(0); line < p.Line; line++ {
		i := indexNL(text[off:])
		if i < 0 {
			return 0, fmt.Errorf("line %d is past the end of the document", p.Line)
		}
		off += i + 1
	}
	units := uint32(0)
	for off < len(text) && units < p.Character {
		if text[off] == '\n' || (text[off] == '\r' && off+1 < len(text) && text[off+1] == '\n') {
			break
		}
		r, size := utf8.DecodeRune(text[off:])
		n := uint32(1)
		if utf16.RuneLen(r) == 2 {
			n = 2
		}
		units += n
		off += size
	}
	return off, nil
}

func indexNL(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}
