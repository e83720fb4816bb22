package edits

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An edit through a symbolic link names the real file it wrote; an edit of
// a plain file says nothing of links.
func TestReplyNamesTheRealFileBehindALink(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "target.txt")
	if err := os.WriteFile(outside, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newWS(t, map[string]string{"plain.txt": "a\n"})
	if err := os.Symlink(outside, w.abs("link.txt")); err != nil {
		t.Fatal(err)
	}
	tag := w.read("link.txt", "")
	out, err := w.edit(`{"files":[{"path":"link.txt","tag":"` + tag + `","ops":[{"replace":"1:one","text":"two"}]}]}`)
	if err != nil || !strings.Contains(out, "(through a symbolic link: the file written is "+outside+")") {
		t.Fatalf("%v\n%s", err, out)
	}
	tag = w.read("plain.txt", "")
	out, err = w.edit(`{"files":[{"path":"plain.txt","tag":"` + tag + `","ops":[{"replace":"1:a","text":"b"}]}]}`)
	if err != nil || strings.Contains(out, "symbolic link") {
		t.Fatalf("%v\n%s", err, out)
	}
}
