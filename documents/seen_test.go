package documents

import (
	"bytes"
	"fmt"
	"testing"
)

// A long session forgets the versions it used least recently once their
// bytes pass the bound, never the one it was just shown.
func TestStoreForgetsLeastRecentlyUsedPastItsBound(t *testing.T) {
	s := NewStore()
	s.maxBytes = 100
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
	if s.bytes > s.maxBytes {
		t.Errorf("store holds %d bytes, bound %d", s.bytes, s.maxBytes)
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
	if s.bytes != want {
		t.Errorf("store counts %d bytes, holds %d", s.bytes, want)
	}
}
