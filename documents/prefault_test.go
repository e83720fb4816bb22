package documents

import (
	"bytes"
	"testing"
)

// prefault only maps pages in: the bytes a buffer holds, and its length,
// stay as they were, whatever the buffer's size and alignment.
func TestPrefaultKeepsBytes(t *testing.T) {
	for _, n := range []int{0, 100, 64<<10 - 1, 64 << 10, 1<<20 + 123} {
		b := make([]byte, n, n+77)
		for i := range b {
			b[i] = byte(i*7 + 1)
		}
		want := bytes.Clone(b)
		prefault(b)
		prefault(b[min(n, 5):])
		if !bytes.Equal(b, want) || len(b) != n {
			t.Fatalf("size %d: prefault changed the buffer", n)
		}
	}
}
