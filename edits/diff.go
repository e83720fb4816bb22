package edits

import (
	"errors"

	"github.com/tandemdev/tandem/documents"
)

// maxDiffCost bounds the number of inserted plus deleted lines the rebase
// diff explores. Past it the diff stops and the edit is refused (the model
// reads the file again): a refusal is always safe, an approximate diff is not.
const maxDiffCost = 10000

var errDiffTooLarge = errors.New("the file changed in too many lines since that version")

// lineMatch is an exact, minimal line diff between two versions: for each line
// of a, the index of the same line in b, or -1 when the line was deleted or
// changed. Lines compare by their text and ending, byte for byte.
//
// It is Myers' O((N+M)D) algorithm with the linear-space middle snake,
// without any cap on the search other than maxDiffCost (where it refuses
// instead of guessing): a capped heuristic diff can pair the wrong lines and
// rebase an edit onto text the model never saw.
func lineMatch(a, b documents.Lines) ([]int, error) {
	ids := map[string]int{}
	intern := func(ls documents.Lines) []int {
		out := make([]int, ls.Len())
		for i := range out {
			l := ls.Lines[i]
			key := ls.Body[l.Start : l.End+l.EndLen]
			id, ok := ids[string(key)]
			if !ok {
				id = len(ids)
				ids[string(key)] = id
			}
			out[i] = id
		}
		return out
	}
	return matchIDs(intern(a), intern(b))
}

// A hunk is one run of changed lines between two versions: lines [a0, a1)
// of the first (0-based) became lines [b0, b1) of the second. An insertion
// has a0 == a1, a deletion b0 == b1. Two hunks of one diff are always apart
// by an unchanged line.
type hunk struct{ a0, a1, b0, b1 int }

// hunks lists, in order, the changes a lineMatch result makes to reach a
// second version of n lines.
func hunks(match []int, n int) []hunk {
	var out []hunk
	i, j := 0, 0
	for i < len(match) || j < n {
		if i < len(match) && match[i] == j {
			i, j = i+1, j+1
			continue
		}
		h := hunk{a0: i, b0: j}
		for i < len(match) && match[i] < 0 {
			i++
		}
		j = n
		if i < len(match) {
			j = match[i]
		}
		h.a1, h.b1 = i, j
		out = append(out, h)
	}
	return out
}

// lineStart returns the offset in ls.Body of 0-based line n, or the end of
// the body when n is past the last line.
func lineStart(ls documents.Lines, n int) int {
	if n >= ls.Len() {
		return len(ls.Body)
	}
	return int(ls.Lines[n].Start)
}

// matchIDs is lineMatch over interned lines.
func matchIDs(a, b []int) ([]int, error) {
	m := &myers{a: a, b: b, match: make([]int, len(a))}
	for i := range m.match {
		m.match[i] = -1
	}
	size := len(a) + len(b) + 3
	m.vf, m.vb = make([]int, 2*size), make([]int, 2*size)
	if err := m.compare(0, len(a), 0, len(b)); err != nil {
		return nil, err
	}
	return m.match, nil
}

type myers struct {
	a, b   []int
	match  []int
	vf, vb []int // furthest reaching x per diagonal, offset by len(vf)/2
}

// compare matches a[alo:ahi] against b[blo:bhi]. A part's cost never
// exceeds its whole's, so the bound checked in middle holds for all.
func (m *myers) compare(alo, ahi, blo, bhi int) error {
	for alo < ahi && blo < bhi && m.a[alo] == m.b[blo] {
		m.match[alo] = blo
		alo, blo = alo+1, blo+1
	}
	for alo < ahi && blo < bhi && m.a[ahi-1] == m.b[bhi-1] {
		m.match[ahi-1] = bhi - 1
		ahi, bhi = ahi-1, bhi-1
	}
	if alo == ahi || blo == bhi {
		return nil
	}
	x0, y0, x1, y1, err := m.middle(alo, ahi, blo, bhi)
	if err != nil {
		return err
	}
	for x, y := x0, y0; x < x1; x, y = x+1, y+1 {
		m.match[x] = y
	}
	if err := m.compare(alo, x0, blo, y0); err != nil {
		return err
	}
	return m.compare(x1, ahi, y1, bhi)
}

// middle finds the middle snake of a shortest edit script: the stretch
// (x0,y0)-(x1,y1) of equal lines that an optimal path crosses halfway.
func (m *myers) middle(alo, ahi, blo, bhi int) (x0, y0, x1, y1 int, err error) {
	a, b := m.a[alo:ahi], m.b[blo:bhi]
	n, mm := len(a), len(b)
	delta := n - mm
	odd := delta&1 != 0
	off := len(m.vf) / 2
	vf, vb := m.vf, m.vb
	vf[off+1], vb[off+1] = 0, 0
	for d := 0; d <= (n+mm+1)/2; d++ {
		if 2*d > maxDiffCost {
			return 0, 0, 0, 0, errDiffTooLarge
		}
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && vf[off+k-1] < vf[off+k+1]) {
				x = vf[off+k+1]
			} else {
				x = vf[off+k-1] + 1
			}
			y := x - k
			sx, sy := x, y
			for x < n && y < mm && a[x] == b[y] {
				x, y = x+1, y+1
			}
			vf[off+k] = x
			if odd && delta-k >= -(d-1) && delta-k <= d-1 && x+vb[off+delta-k] >= n {
				return alo + sx, blo + sy, alo + x, blo + y, nil
			}
		}
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && vb[off+k-1] < vb[off+k+1]) {
				x = vb[off+k+1]
			} else {
				x = vb[off+k-1] + 1
			}
			y := x - k
			sx, sy := x, y
			for x < n && y < mm && a[n-1-x] == b[mm-1-y] {
				x, y = x+1, y+1
			}
			vb[off+k] = x
			if !odd && delta-k >= -d && delta-k <= d && x+vf[off+delta-k] >= n {
				return alo + n - x, blo + mm - y, alo + n - sx, blo + mm - sy, nil
			}
		}
	}
	panic("edits: no middle snake") // unreachable: a path of cost n+m always exists
}
