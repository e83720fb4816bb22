package documents

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"unicode/utf16"
	"unicode/utf8"
)

// maxChunk bounds the bytes one rope node holds. A keystroke moves at most
// one chunk's bytes, so the cost of an edit depends on this constant and the
// tree's depth, never on the size of the document.
const maxChunk = 1024

// rope is a text held as a treap of chunks ordered by position, each node
// knowing the bytes and newlines of its subtree, so a position is found and
// an edit applied in O(log n) steps plus the copy of one chunk. A keystroke
// inside a chunk edits that chunk in place and adjusts the totals on its
// path: no allocation. A rope is not safe for concurrent use; the Overlay
// guards it.
type rope struct {
	root *node
	path []*node // scratch for lineStart: the ancestors of the last spot
}

// spot is where a line starts: the node whose chunk holds that byte, the
// chunk's offset in the text, and the node's ancestors (valid until the
// next lineStart), so an edit there needs no second walk from the root.
type spot struct {
	n    *node // nil in an empty text
	base int
	path []*node
}

type node struct {
	left, right *node
	prio        uint32
	chunk       []byte // never empty; its spare capacity lets typing grow it in place
	chunkLines  int    // '\n' bytes in chunk
	size        int    // bytes in this subtree
	newlines    int    // '\n' bytes in this subtree
}

func (n *node) bytes() int {
	if n == nil {
		return 0
	}
	return n.size
}

func (n *node) lines() int {
	if n == nil {
		return 0
	}
	return n.newlines
}

// update recomputes n's totals from its chunk and children.
func (n *node) update() {
	n.size = n.left.bytes() + len(n.chunk) + n.right.bytes()
	n.newlines = n.left.lines() + n.chunkLines + n.right.lines()
}

// leaf builds a childless node owning chunk.
func leaf(chunk []byte, prio uint32) *node {
	n := &node{prio: prio, chunk: chunk, chunkLines: bytes.Count(chunk, nl)}
	n.update()
	return n
}

var nl = []byte{'\n'}

// newRope builds a rope holding a copy of text.
func newRope(text []byte) *rope { return &rope{root: build(text)} }

// build makes a rope of text in half-full chunks, so most edits fit in place.
func build(text []byte) *node {
	var root *node
	for len(text) > 0 {
		n := min(len(text), maxChunk/2)
		chunk := make([]byte, n, maxChunk)
		copy(chunk, text)
		root = merge(root, leaf(chunk, rand.Uint32()))
		text = text[n:]
	}
	return root
}

// Len is the number of bytes in the text.
func (r *rope) Len() int { return r.root.bytes() }

// Bytes materialises the text into a fresh slice.
func (r *rope) Bytes() []byte { return appendAll(make([]byte, 0, r.Len()), r.root) }

func appendAll(dst []byte, n *node) []byte {
	for n != nil {
		dst = appendAll(dst, n.left)
		dst = append(dst, n.chunk...)
		n = n.right
	}
	return dst
}

// slice returns a copy of bytes [from, to).
func (r *rope) slice(from, to int) []byte {
	return appendRange(make([]byte, 0, to-from), r.root, from, to)
}

func appendRange(dst []byte, n *node, from, to int) []byte {
	for n != nil && from < to {
		ls := n.left.bytes()
		if from < ls {
			dst = appendRange(dst, n.left, from, min(to, ls))
		}
		cs := len(n.chunk)
		if a, b := max(from-ls, 0), min(to-ls, cs); a < b {
			dst = append(dst, n.chunk[a:b]...)
		}
		from, to = max(from-ls-cs, 0), to-ls-cs
		n = n.right
	}
	return dst
}

// lineStart returns the offset of the first byte of 0-based line, the rest
// of the chunk from there and the spot, or false when the text has fewer
// lines.
func (r *rope) lineStart(line int) (int, []byte, spot, bool) {
	if line > r.root.lines() {
		return 0, nil, spot{}, false
	}
	r.path = r.path[:0]
	off, n := 0, r.root
	for n != nil {
		if ll := n.left.lines(); line <= ll && (line > 0 || n.left != nil) {
			r.path = append(r.path, n)
			n = n.left
			continue
		} else {
			line -= ll
			off += n.left.bytes()
		}
		if line <= n.chunkLines {
			i := -1
			for ; line > 0; line-- {
				i += 1 + bytes.IndexByte(n.chunk[i+1:], '\n')
			}
			return off + i + 1, n.chunk[i+1:], spot{n: n, base: off, path: r.path}, true
		}
		line -= n.chunkLines
		off += len(n.chunk)
		r.path = append(r.path, n)
		n = n.right
	}
	return off, nil, spot{}, true // the empty text's only line
}

// offset converts an LSP position to a byte offset. Lines end at '\n'; the
// '\r' of a "\r\n" belongs to the ending, so a character past the end of its
// line clamps to just before the ending, as the LSP specification says. A
// character inside a surrogate pair lands after that character.
func (r *rope) offset(p Position) (int, error) {
	start, text, _, err := r.lineText(p.Line, p.Character)
	if err != nil {
		return 0, err
	}
	return start + column(text, p.Character), nil
}

// span converts a range to byte offsets. When the range lies on one line
// (most edits) the line is found once, and the spot found lets replaceAt
// edit there without walking the tree again.
func (r *rope) span(a, b Position) (int, int, spot, error) {
	if a.Line != b.Line {
		start, err := r.offset(a)
		if err != nil {
			return 0, 0, spot{}, err
		}
		end, err := r.offset(b)
		return start, end, spot{}, err
	}
	start, text, sp, err := r.lineText(a.Line, max(a.Character, b.Character))
	if err != nil {
		return 0, 0, spot{}, err
	}
	return start + column(text, a.Character), start + column(text, b.Character), sp, nil
}

// lineText returns the offset of a line's start and enough of the text from
// there to find any character up to char. A UTF-16 unit takes at most 3
// bytes of UTF-8, so column ends within 3·char+1 bytes, or at a '\n'; the
// margin shows the '\n' after a '\r'. Most lines end inside the chunk they
// start in, which is then all that is read.
func (r *rope) lineText(line, char uint32) (int, []byte, spot, error) {
	start, text, sp, ok := r.lineStart(int(line))
	if !ok {
		return 0, nil, spot{}, fmt.Errorf("line %d is past the end of the document (it has %d lines)", line, r.root.lines()+1)
	}
	if need := 3*int(char) + 5; len(text) < need && bytes.IndexByte(text, '\n') < 0 {
		text = r.slice(start, min(r.Len(), start+need))
	}
	return start, text, sp, nil
}

// UTF16Units is how many UTF-16 units text holds: LSP counts a line's
// characters so (an astral character is two; an invalid byte one).
func UTF16Units(text []byte) uint32 {
	units := uint32(0)
	for k := 0; k < len(text); {
		r, size := utf8.DecodeRune(text[k:])
		units += uint32(max(utf16.RuneLen(r), 1))
		k += size
	}
	return units
}

// column is the byte offset in a line's text of UTF-16 character char,
// clamped to the line's end.
func column(text []byte, char uint32) int {
	off, units := 0, uint32(0)
	for off < len(text) && units < char {
		if text[off] == '\n' || (text[off] == '\r' && off+1 < len(text) && text[off+1] == '\n') {
			break
		}
		c, size := utf8.DecodeRune(text[off:])
		units += uint32(max(utf16.RuneLen(c), 1))
		off += size
	}
	return off
}

// replace replaces bytes [from, to) with text.
func (r *rope) replace(from, to int, text []byte) {
	if replaceInChunk(r.root, from, to, text) {
		return
	}
	left, rest := split(r.root, from)
	_, right := split(rest, to-from)
	r.root = merge(merge(left, build(text)), right)
}

// replaceAt is replace for an edit found at sp: inside sp's chunk it edits
// there and adjusts the totals of sp's path, with no walk from the root.
func (r *rope) replaceAt(sp spot, from, to int, text []byte) {
	if n := sp.n; n != nil && from >= sp.base && to <= sp.base+len(n.chunk) {
		size, lines := len(n.chunk), n.chunkLines
		if editChunk(n, from-sp.base, to-sp.base, text) {
			size, lines = len(n.chunk)-size, n.chunkLines-lines
			n.size += size
			n.newlines += lines
			for _, p := range sp.path {
				p.size += size
				p.newlines += lines
			}
			return
		}
	}
	r.replace(from, to, text)
}

// replaceInChunk edits one chunk in place when the edit falls inside it and
// the result still fits: the common keystroke. It reports whether it did.
func replaceInChunk(n *node, from, to int, text []byte) bool {
	if n == nil {
		return false
	}
	ls, cs := n.left.bytes(), len(n.chunk)
	switch {
	case from >= ls && to <= ls+cs:
		if !editChunk(n, from-ls, to-ls, text) {
			return false
		}
	case to <= ls:
		if !replaceInChunk(n.left, from, to, text) {
			return false
		}
	case from >= ls+cs:
		if !replaceInChunk(n.right, from-ls-cs, to-ls-cs, text) {
			return false
		}
	default:
		return false
	}
	n.update()
	return true
}

// editChunk replaces n.chunk[a:b] by text when the result fits in a chunk,
// updating chunkLines but not the subtree totals.
func editChunk(n *node, a, b int, text []byte) bool {
	cs := len(n.chunk)
	size := cs - (b - a) + len(text)
	if size == 0 || size > maxChunk {
		return false
	}
	n.chunkLines += bytes.Count(text, nl) - bytes.Count(n.chunk[a:b], nl)
	old := n.chunk
	if size <= cap(old) {
		n.chunk = old[:size]
	} else {
		n.chunk = make([]byte, size, maxChunk)
		copy(n.chunk, old[:a])
	}
	copy(n.chunk[a+len(text):], old[b:cs]) // copy is a memmove: overlap is fine
	copy(n.chunk[a:], text)
	return true
}

// split divides n into the first off bytes and the rest.
func split(n *node, off int) (*node, *node) {
	if n == nil {
		return nil, nil
	}
	ls, cs := n.left.bytes(), len(n.chunk)
	switch {
	case off <= ls:
		a, b := split(n.left, off)
		n.left = b
		n.update()
		return a, n
	case off >= ls+cs:
		a, b := split(n.right, off-ls-cs)
		n.right = a
		n.update()
		return n, b
	}
	k := off - ls
	// The tail keeps n's priority, which already dominates n's right child.
	tail := leaf(bytes.Clone(n.chunk[k:]), n.prio)
	tail.right = n.right
	tail.update()
	n.chunk, n.chunkLines, n.right = n.chunk[:k], n.chunkLines-tail.chunkLines, nil
	n.update()
	return n, tail
}

// merge joins two ropes, every byte of a before every byte of b.
func merge(a, b *node) *node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio >= b.prio:
		a.right = merge(a.right, b)
		a.update()
		return a
	}
	b.left = merge(a, b.left)
	b.update()
	return b
}
