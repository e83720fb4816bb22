package documents

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// A long session forgets the versions it used least recently once their
// bytes pass the bound, never the one it was just shown.
func TestStoreForgetsLeastRecentlyUsedPastItsBound(t *testing.T) {
	b := NewBudget(100)
	s := b.NewStore()
	text := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i)}, 30) }
	s.Saw("f0", text(0))
	s.Saw("f1", text(1))
	s.Saw("f2", text(2))
	if _, ok := s.Version("f0", TagOf(text(0))); !ok { // f0 is now used after f1
		t.Fatal("f0 forgotten while under the bound")
	}
	s.Saw("f3", text(3)) // 120 bytes: the least recently used, f1, goes
	if _, ok := s.Version("f1", TagOf(text(1))); ok {
		t.Error("f1, used least recently, is still remembered past the bound")
	}
	for _, i := range []int{0, 2, 3} {
		if _, ok := s.Version(fmt.Sprint("f", i), TagOf(text(i))); !ok {
			t.Errorf("f%d forgotten although f1 was older", i)
		}
	}
	if b.bytes > b.max {
		t.Errorf("store holds %d bytes, bound %d", b.bytes, b.max)
	}
	huge := bytes.Repeat([]byte("z"), 500)
	s.Saw("big", huge)
	if _, ok := s.Version("big", TagOf(huge)); !ok {
		t.Error("the version just shown was forgotten")
	}
	if len(s.files) != 1 {
		t.Errorf("after a version larger than the bound, %d files remain, want only it", len(s.files))
	}
}

// Versions past versionsKept of one file are forgotten and their bytes no
// longer counted.
func TestStoreKeepsTheLastVersionsOfAFile(t *testing.T) {
	s := NewStore()
	for i := 0; i < versionsKept+3; i++ {
		s.Saw("f", []byte(fmt.Sprint("version ", i)))
	}
	if _, ok := s.Version("f", TagOf([]byte("version 2"))); ok {
		t.Error("version 2 of 11 still remembered; only the last 8 are kept")
	}
	if _, ok := s.Version("f", TagOf([]byte("version 3"))); !ok {
		t.Error("version 3, one of the last 8, forgotten")
	}
	want := 0
	for _, v := range s.files["f"] {
		want += len(v.text)
	}
	if s.b.bytes != want {
		t.Errorf("store counts %d bytes, holds %d", s.b.bytes, want)
	}
}

// Stores sharing a budget never hold more than it together (unless the one
// version just shown is larger on its own), forget the versions used least
// recently first whichever store holds them, and a closed store gives its
// bytes back: checked against a model of the order of use.
func TestBudgetBoundsStoresTogether(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		type key struct {
			store int
			path  string
			tag   Tag
		}
		const max = 200
		b := NewBudget(max)
		stores := make([]*Store, rapid.IntRange(1, 4).Draw(t, "stores"))
		for i := range stores {
			stores[i] = b.NewStore()
		}
		closed := make([]bool, len(stores))
		var order []key             // the model: every remembered version, used least recently first
		files := map[[2]any][]Tag{} // per store and path, the versions in the order shown
		size := map[key]int{}
		drop := func(k key) {
			order = slices.DeleteFunc(order, func(o key) bool { return o == k })
			fk := [2]any{k.store, k.path}
			files[fk] = slices.DeleteFunc(files[fk], func(tag Tag) bool { return tag == k.tag })
		}
		use := func(k key) {
			order = append(slices.DeleteFunc(order, func(o key) bool { return o == k }), k)
		}
		for step := range 60 {
			i := rapid.IntRange(0, len(stores)-1).Draw(t, "store")
			path := rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "path")
			text := bytes.Repeat([]byte{rapid.ByteRange('a', 'l').Draw(t, "byte")}, rapid.IntRange(1, 250).Draw(t, "size"))
			k := key{i, path, TagOf(text)}
			switch rapid.IntRange(0, 5).Draw(t, "op") {
			case 0, 1, 2:
				stores[i].Saw(path, text)
				if closed[i] {
					break
				}
				fk := [2]any{i, path}
				if slices.Contains(order, k) {
					files[fk] = append(slices.DeleteFunc(files[fk], func(tag Tag) bool { return tag == k.tag }), k.tag)
					use(k)
					break
				}
				files[fk], size[k] = append(files[fk], k.tag), len(text)
				order = append(order, k)
				for len(files[fk]) > versionsKept {
					drop(key{i, path, files[fk][0]})
				}
				held := 0
				for _, o := range order {
					held += size[o]
				}
				for held > max && order[0] != k {
					held -= size[order[0]]
					drop(order[0])
				}
			case 3, 4:
				_, ok := stores[i].Version(path, k.tag)
				if ok != slices.Contains(order, k) {
					t.Fatalf("step %d: store %d remembers %s#%s: %v, the model says %v", step, i, path, k.tag, ok, !ok)
				}
				if ok {
					use(k)
				}
			case 5:
				stores[i].Close()
				closed[i] = true
				order = slices.DeleteFunc(order, func(o key) bool { return o.store == i })
			}
			held := 0
			for _, o := range order {
				held += size[o]
			}
			if b.bytes != held {
				t.Fatalf("step %d: the budget counts %d bytes, the stores hold %d", step, b.bytes, held)
			}
			if held > max && len(order) > 1 {
				t.Fatalf("step %d: %d versions hold %d bytes, over the bound %d", step, len(order), held, max)
			}
			got := 0
			for e := b.lru.Front(); e != nil; e = e.Next() {
				v := e.Value.(*version)
				if got >= len(order) || order[got] != (key{slices.Index(stores, v.store), v.path, v.tag}) {
					t.Fatalf("step %d: version %d in the order of use is %s#%s, the model has %v", step, got, v.path, v.tag, order)
				}
				got++
			}
			if got != len(order) {
				t.Fatalf("step %d: the budget orders %d versions, the model %d", step, got, len(order))
			}
		}
	})
}
