package edits

import (
	"context"
	"os"
	"strings"
	"testing"
)

func (w *ws) write(path, content string) (string, error) {
	return Write(context.Background(), w.env, path, content)
}

// Over a version the session did not see: refused, nothing changes.
func TestLaw_write_never_loses_unseen(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "mine\n"})
	out, err := w.write("a.txt", "agent\n")
	if codeOf(err) != "not_seen" || w.file("a.txt") != "mine\n" {
		t.Fatalf("never read: %q %v, file %q", out, err, w.file("a.txt"))
	}
	w.read("a.txt", "")
	w.put("a.txt", "someone else\n") // changed after the read
	out, err = w.write("a.txt", "agent\n")
	if codeOf(err) != "not_seen" || w.file("a.txt") != "someone else\n" {
		t.Fatalf("changed since the read: %q %v, file %q", out, err, w.file("a.txt"))
	}
	if !strings.HasSuffix(err.Error(), "Read it first, then call write again.") {
		t.Errorf("refusal does not end with the next action: %v", err)
	}
}

// Over no file or a seen version: written.
func TestLaw_write_writes_seen(t *testing.T) {
	w := newWS(t, map[string]string{"crlf.txt": "\xEF\xBB\xBFone\r\ntwo\r\n"})
	if err := os.Chmod(w.abs("crlf.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	w.read("crlf.txt", "")
	out, err := w.write("crlf.txt", "uno\ndos\ntres\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.file("crlf.txt"); got != "\xEF\xBB\xBFuno\r\ndos\r\ntres\r\n" {
		t.Errorf("replaced file %q: BOM and CRLF must stay", got)
	}
	if info, _ := os.Stat(w.abs("crlf.txt")); info.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755 kept", info.Mode().Perm())
	}
	if !strings.Contains(out, "the content had LF line endings; it was written with the file's CRLF endings") {
		t.Errorf("no line-ending warning:\n%s", out)
	}
	// Its own write is a version it saw: a second write goes through.
	if _, err := w.write("crlf.txt", "again\n"); err != nil {
		t.Fatalf("writing over its own write: %v", err)
	}
	// A new file, in new directories, with exactly the content and no
	// execute bit.
	if _, err := w.write("new/dir/n.sh", "#!/bin/sh\r\necho hi"); err != nil {
		t.Fatal(err)
	}
	if got := w.file("new/dir/n.sh"); got != "#!/bin/sh\r\necho hi" {
		t.Errorf("created %q", got)
	}
	if info, _ := os.Stat(w.abs("new/dir/n.sh")); info.Mode().Perm()&0o111 != 0 {
		t.Errorf("created with mode %v", info.Mode().Perm())
	}
}

func TestWriteWarnsAboutNonUTF8(t *testing.T) {
	w := newWS(t, map[string]string{"l1.txt": "caf\xe9\n"})
	// Only a raw view could have shown these bytes; record that it did.
	tag := w.env.Seen.Saw(w.abs("l1.txt"), []byte("caf\xe9\n"))
	w.env.Seen.MarkSeen(w.abs("l1.txt"), tag, 1)
	out, err := w.write("l1.txt", "café\n")
	if err != nil || !strings.Contains(out, "the old file was not UTF-8") {
		t.Fatalf("%q %v", out, err)
	}
}

func TestWriteRefusesFilesOverTheLimit(t *testing.T) {
	big := strings.Repeat("x\n", 2<<20+1)
	w := newWS(t, map[string]string{"big.txt": big})
	_, err := w.write("big.txt", "small\n")
	if codeOf(err) != "too_large" || w.file("big.txt") != big {
		t.Fatalf("%v", err)
	}
}

// New content over the limit is refused with what to do about content the
// model is writing, not how to read a large file; nothing is created.
func TestNewContentOverTheLimitIsRefusedForWhatItIs(t *testing.T) {
	big := strings.Repeat("x\n", 2<<20+1)
	w := newWS(t, map[string]string{"small.txt": "small\n"})
	w.read("small.txt", "")
	for _, call := range []func() error{
		func() error { _, err := w.write("new.txt", big); return err },
		func() error {
			_, err := w.edit(mustJSON(Args{Files: []FileEdit{{Path: "new.txt", Create: &big}}}))
			return err
		},
		func() error { _, err := w.write("small.txt", big); return err },
	} {
		err := call()
		if codeOf(err) != "too_large" || !strings.Contains(err.Error(), "The new content of") || strings.Contains(err.Error(), "Read it in ranges") {
			t.Errorf("%v, want too_large about the new content", err)
		}
		if _, serr := os.Stat(w.abs("new.txt")); !os.IsNotExist(serr) || w.file("small.txt") != "small\n" {
			t.Fatalf("a refused write changed the workspace")
		}
	}
}
