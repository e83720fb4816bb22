package documents

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tandemdev/tandem/refusal"
)

func TestLoadPrefersOpenBuffer(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	must(t, os.WriteFile(p, []byte("disk\n"), 0o644))
	o := NewOverlay()
	s, err := Load(o, p)
	if err != nil || string(s.Content) != "disk\n" || s.FromBuffer {
		t.Fatalf("disk load: %+v %v", s, err)
	}
	o.Open(p, 3, []byte("disk\n"))
	must(t, o.Change(p, 4, []Change{{Text: "buffer\n"}}))
	s, err = Load(o, p)
	if err != nil || string(s.Content) != "buffer\n" || !s.FromBuffer || !s.Dirty || s.Version != 4 {
		t.Fatalf("buffer load: %+v %v", s, err)
	}
	if s.Tag() != TagOf([]byte("buffer\n")) {
		t.Fatal("tag is not of the buffer's bytes")
	}
}

func TestLoadRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, b, 0o644))
		return p
	}
	cases := []struct {
		path string
		code refusal.Code
		says string
	}{
		{write("big", bytes.Repeat([]byte("x\n"), MaxFileBytes/2+1)), refusal.TooLarge, "4.0 MiB"},
		{write("bin", []byte("ab\x00cd")), refusal.Encoding, "NUL byte at offset 2"},
		{write("latin1", []byte("ok\ncaf\xe9\n")), refusal.Encoding, "byte 0xE9 at offset 6, line 2"},
		{write("utf16", []byte("\xff\xfea\x00")), refusal.Encoding, "UTF-16"},
		{filepath.Join(dir, "missing"), refusal.NotFound, "does not exist"},
		{dir, refusal.Invalid, "is a directory"},
		{fifo(t, dir), refusal.Invalid, "not a regular file"},
		{symlinkLoop(t, dir), refusal.Failed, "loop of symbolic links"},
	}
	for _, c := range cases {
		_, err := Load(NewOverlay(), c.path)
		if codeOf(err) != c.code || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("Load(%s) = %v; want %s saying %q", c.path, err, c.code, c.says)
		}
	}
	exact := write("exact", bytes.Repeat([]byte("y"), MaxFileBytes))
	if _, err := Load(nil, exact); err != nil {
		t.Errorf("a file of exactly 4 MiB is within the limit: %v", err)
	}
}

func fifo(t *testing.T, dir string) string {
	p := filepath.Join(dir, "pipe")
	must(t, syscall.Mkfifo(p, 0o644))
	return p
}

// symlinkLoop makes two links that lead to each other and returns one.
func symlinkLoop(t *testing.T, dir string) string {
	p := filepath.Join(dir, "loop-a")
	must(t, os.Symlink("loop-b", p))
	must(t, os.Symlink("loop-a", filepath.Join(dir, "loop-b")))
	return p
}
