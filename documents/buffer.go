package documents

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"unicode/utf16"
	"unicode/utf8"
)

// maxChunk bounds the bytes one rope node holds. A keystroke copies at most
// one chunk, so the cost of an edit depends on this constant and the tree's
// depth, never on the size of the document.
const maxChunk = 1024

// rope is an immutable text: a treap of chunks ordered by position, each node
// knowing the bytes and newlines of its subtree. Edits copy the path they
// touch (O(log n) nodes) and share the rest, so an old rope stays a valid
// snapshot: a failed batch of changes is undone by keeping the old root, and a
// reader can materialise a version while the editor keeps typing.
type rope struct{ root *node }

type node struct {
	left, right *node
	prio        uint32
	chunk       []byte // never empty, never written after the node is built
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

// with returns a copy of n with new children and recomputed totals.
func (n *node) with(left, right *node) *node {
	c := &node{left: left, right: right, prio: n.prio, chunk: n.chunk, chunkLines: n.chunkLines}
	c.size = left.bytes() + len(c.chunk) + right.bytes()
	c.newlines = left.lines() + c.chunkLines + right.lines()
	return c
}

// leaf builds a childless node owning chunk.
func leaf(chunk []byte, prio uint32) *node {
	return (&node{prio: prio, chunk: chunk, chunkLines: bytes.Count(chunk, nl)}).with(nil, nil)
}

var nl = []byte{'\n'}

// newRope builds a rope holding a copy of text.
func newRope(text []byte) rope { return rope{root: build(text)} }

func build(text []byte) *node {
	var root *node
	for len(text) > 0 {
		n := min(len(text), maxChunk)
		root = merge(root, leaf(bytes.Clone(text[:n]), rand.Uint32()))
		text = text[n:]
	}
	return root
}

// Len is the number of bytes in the text.
func (r rope) Len() int { return r.root.bytes() }

// Bytes materialises the text into a fresh slice.
func (r rope) Bytes() []byte { return appendAll(make([]byte, 0, r.Len()), r.root) }

func appendAll(dst []byte, n *node) []byte {
	for n != nil {
		dst = appendAll(dst, n.left)
		dst = append(dst, n.chunk...)
		n = n.right
	}
	return dst
}

// slice returns a copy of bytes [from, to).
func (r rope) slice(from, to int) []byte {
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

// lineStart returns the offset of the first byte of 0-based line, or false
// when the text has fewer lines.
func (r rope) lineStart(line int) (int, bool) {
	if line == 0 {
		return 0, true
	}
	if line > r.root.lines() {
		return 0, false
	}
	off, n := 0, r.root
	for {
		if ll := n.left.lines(); line <= ll {
			n = n.left
			continue
		} else {
			line -= ll
			off += n.left.bytes()
		}
		if cl := n.chunkLines; line <= cl {
			i := -1
			for ; line > 0; line-- {
				i += 1 + bytes.IndexByte(n.chunk[i+1:], '\n')
			}
			return off + i + 1, true
		} else {
			line -= cl
			off += len(n.chunk)
		}
		n = n.right
	}
}

// offset converts an LSP position to a byte offset. Lines end at '\n'; the
// '\r' of a "\r\n" belongs to the ending, so a character past the end of its
// line clamps to just before the ending, as the LSP specification says. A
// character inside a surrogate pair lands after that character.
func (r rope) offset(p Position) (int, error) {
	start, ok := r.lineStart(int(p.Line))
	if !ok {
		return 0, fmt.Errorf("line %d is past the end of the document (it has %d lines)", p.Line, r.root.lines()+1)
	}
	end, ended := r.Len(), false
	if next, ok := r.lineStart(int(p.Line) + 1); ok {
		end, ended = next-1, true
	}
	// A UTF-16 unit takes at most 3 bytes of UTF-8; read one character more
	// to see a '\r' before the '\n' and the rest of a split surrogate pair.
	text := r.slice(start, min(end, start+3*int(p.Character)+4))
	if ended && len(text) == end-start && bytes.HasSuffix(text, []byte{'\r'}) {
		text = text[:len(text)-1]
	}
	off, units := 0, uint32(0)
	for off < len(text) && units < p.Character {
		c, size := utf8.DecodeRune(text[off:])
		units += uint32(max(utf16.RuneLen(c), 1))
		off += size
	}
	return start + off, nil
}

// replace returns the rope with bytes [from, to) replaced by text.
func (r rope) replace(from, to int, text []byte) rope {
	if root, ok := replaceInChunk(r.root, from, to, text); ok {
		return rope{root: root}
	}
	left, rest := split(r.root, from)
	_, right := split(rest, to-from)
	return rope{root: merge(merge(left, build(text)), right)}
}

// replaceInChunk edits one chunk in place of a split and merge when the edit
// falls inside it and the result still fits: the common keystroke.
func replaceInChunk(n *node, from, to int, text []byte) (*node, bool) {
	if n == nil {
		return nil, false
	}
	ls, cs := n.left.bytes(), len(n.chunk)
	switch {
	case from >= ls && to <= ls+cs:
		a, b := from-ls, to-ls
		size := cs - (b - a) + len(text)
		if size == 0 || size > maxChunk {
			return nil, false
		}
		chunk := make([]byte, 0, size)
		chunk = append(append(append(chunk, n.chunk[:a]...), text...), n.chunk[b:]...)
		return leaf(chunk, n.prio).with(n.left, n.right), true
	case to <= ls:
		l, ok := replaceInChunk(n.left, from, to, text)
		if !ok {
			return nil, false
		}
		return n.with(l, n.right), true
	case from >= ls+cs:
		r, ok := replaceInChunk(n.right, from-ls-cs, to-ls-cs, text)
		if !ok {
			return nil, false
		}
		return n.with(n.left, r), true
	}
	return nil, false
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
		return a, n.with(b, n.right)
	case off >= ls+cs:
		a, b := split(n.right, off-ls-cs)
		return n.with(n.left, a), b
	}
	k := off - ls
	// Both halves keep n's priority, which already dominates its children.
	head := leaf(n.chunk[:k:k], n.prio).with(n.left, nil)
	tail := leaf(n.chunk[k:], n.prio).with(nil, n.right)
	return head, tail
}

// merge joins two ropes, every byte of a before every byte of b.
func merge(a, b *node) *node {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio >= b.prio:
		return a.with(a.left, merge(a.right, b))
	}
	return b.with(merge(a, b.left), b.right)
}
