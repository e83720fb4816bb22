package documents

import (
	"path/filepath"
	"slices"
	"strings"
	"unsafe"
)

// fileNames is a list of the files a directory search found a match in,
// each by its shown name only: the name it is shown by is relative to the
// first root or, outside it, absolute (Display), so the file's path follows
// from it. A walk may keep tens of thousands (a page at skip N ranks the N
// names before it; 37,005 files match "static" on the Linux tree): the
// names lie back to back in chunks of text, each referred to by where it
// is, which costs a third of a string and a path each, gives the collector
// nothing to scan, and never copies the text to grow it.
type fileNames struct {
	chunks [][]byte
	refs   []nameRef
	size   int // bytes of text
	dead   int // of those, bytes no ref names any more
}

// nameRef is where a name is: chunks[chunk][off:off+n].
type nameRef struct{ chunk, off, n uint32 }

// namesChunk is the size of a chunk of text; a longer name has its own.
const namesChunk = 64 << 10

// namesCompactAt is the dead text past which a bounded list is written
// again without it (and past half of the text).
const namesCompactAt = 64 << 10

func (l *fileNames) Len() int { return len(l.refs) }

// name returns the i-th name. It shares the list's bytes: it is valid
// until the next add or replace.
func (l *fileNames) name(i int) string { return l.at(l.refs[i]) }

func (l *fileNames) at(r nameRef) string {
	return unsafe.String(unsafe.SliceData(l.chunks[r.chunk][r.off:]), r.n)
}

// abs returns the path of the i-th file, as a string of its own.
func (l *fileNames) abs(root string, i int) string { return absOfShown(root, l.name(i)) }

// absOfShown is the path of the file shown as show (Display), as a string
// of its own.
func absOfShown(root, show string) string {
	if filepath.IsAbs(show) {
		return strings.Clone(show)
	}
	return filepath.Join(root, filepath.FromSlash(show))
}

func (l *fileNames) add(show string) {
	l.refs = append(l.refs, l.store(show))
}

// store appends show's bytes to the text.
func (l *fileNames) store(show string) nameRef {
	if n := len(l.chunks); n == 0 || len(l.chunks[n-1])+len(show) > cap(l.chunks[n-1]) {
		l.chunks = append(l.chunks, make([]byte, 0, max(namesChunk, len(show))))
	}
	last := len(l.chunks) - 1
	r := nameRef{chunk: uint32(last), off: uint32(len(l.chunks[last])), n: uint32(len(show))}
	l.chunks[last] = append(l.chunks[last], show...)
	l.size += len(show)
	return r
}

// replace puts show in the place of the i-th name.
func (l *fileNames) replace(i int, show string) {
	l.dead += int(l.refs[i].n)
	l.refs[i] = l.store(show)
	if l.dead > namesCompactAt && l.dead > l.size/2 {
		l.compact()
	}
}

// compact writes the text again with only the names the refs name.
func (l *fileNames) compact() {
	old := *l
	l.chunks, l.size, l.dead = nil, 0, 0
	for i, r := range old.refs {
		l.refs[i] = l.store(old.at(r))
	}
}

// sort puts the names in byte order, the order pages list them in.
func (l *fileNames) sort() {
	slices.SortFunc(l.refs, func(a, b nameRef) int {
		return strings.Compare(l.at(a), l.at(b))
	})
}

// clone is a copy of the list that shares its text: text is only ever
// appended to, and a compaction writes new chunks.
func (l *fileNames) clone() *fileNames {
	c := *l
	c.chunks, c.refs = slices.Clone(l.chunks), slices.Clone(l.refs)
	return &c
}

// bytes is what the list holds, for the bound on a kept search.
func (l *fileNames) bytes() int { return l.size + 12*len(l.refs) }

// lastFirst is fileNames as a heap (container/heap) whose top is the last
// name: the one a smaller name replaces when only the first names are kept.
type lastFirst struct{ *fileNames }

func (h lastFirst) Less(i, j int) bool { return h.name(i) > h.name(j) }
func (h lastFirst) Swap(i, j int)      { h.refs[i], h.refs[j] = h.refs[j], h.refs[i] }
func (h lastFirst) Push(x any)         { h.add(x.(string)) }
func (h lastFirst) Pop() any {
	last := strings.Clone(h.name(len(h.refs) - 1))
	h.dead += len(last)
	h.refs = h.refs[:len(h.refs)-1]
	return last
}
