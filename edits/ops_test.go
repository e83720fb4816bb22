package edits

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// touchRef is the rule clash must keep, tried on one pair: a range clashes
// with a range sharing a line and with an insert anchored inside it.
func touchRef(a, b planned) (int, bool) {
	for _, pair := range [][2]planned{{a, b}, {b, a}} {
		x, y := pair[0], pair[1]
		if x.shape != shapeRange {
			continue
		}
		if y.shape == shapeRange {
			if x.from <= y.to && y.from <= x.to {
				return max(x.from, y.from), true
			}
			continue
		}
		for _, k := range y.anchors() {
			if k >= x.from && k <= x.to {
				return k, true
			}
		}
	}
	return 0, false
}

// clash finds a clash exactly when some pair of ops clashes, and the pair
// and line it names are one of them.
func TestClashAgreesWithEveryPair(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 20).Draw(rt, "lines")
		k := rapid.IntRange(1, 8).Draw(rt, "ops")
		ps := make([]planned, k)
		for i := range ps {
			p := planned{index: i + 1, shape: opShape(rapid.IntRange(int(shapeRange), int(shapeEnd)).Draw(rt, "shape"))}
			if p.shape == shapeRange || p.shape == shapeAfter || p.shape == shapeBefore {
				p.from = rapid.IntRange(1, n).Draw(rt, "from")
				p.to = p.from
			}
			if p.shape == shapeRange {
				p.to = rapid.IntRange(p.from, n).Draw(rt, "to")
			}
			ps[i] = p
		}
		some := false
		for i := range ps {
			for j := i + 1; j < len(ps); j++ {
				if _, ok := touchRef(ps[i], ps[j]); ok {
					some = true
				}
			}
		}
		a, b, line, ok := clash(ps)
		if ok != some {
			rt.Fatalf("clash says %v, every pair says %v: %+v", ok, some, ps)
		}
		if ok {
			if want, really := touchRef(a, b); !really || want != line || a.index == b.index {
				rt.Fatalf("clash named ops %d and %d at line %d; they clash: %v at %d", a.index, b.index, line, really, want)
			}
		}
	})
}

// A call with very many ops is checked without trying every pair of them,
// so it cannot stall the server (100,000 ops are 5·10⁹ pairs).
func TestManyOpsDoNotStall(t *testing.T) {
	ps := make([]planned, 100_000)
	for i := range ps {
		ps[i] = planned{index: i + 1, shape: shapeAfter, from: i + 1}
	}
	done := make(chan error, 1)
	go func() { done <- overlaps(ps) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("inserts on distinct lines refused: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("checking 100,000 ops for overlaps did not end in 20 s")
	}
}
