package shell

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

// A redirection's target is judged, then opened. A step running beside it
// can swap a judged directory for a link into ~/.ssh in between; the open
// must not follow that link.
func TestOpenRealRefusesALinkSwappedInAfterTheJudgement(t *testing.T) {
	tmp := t.TempDir()
	ws, secret := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home", ".ssh")
	for _, d := range []string{filepath.Join(ws, "d"), secret} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "d", "id_ed25519"), []byte("decoy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secret, "id_ed25519"), []byte("KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	j := approvals.Resolve(ws, "d/id_ed25519")
	// The swap, after the judgement.
	if err := os.Rename(filepath.Join(ws, "d"), filepath.Join(ws, "old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []int{os.O_RDONLY, os.O_WRONLY | os.O_APPEND} {
		f, err := openReal(j.Path, flag, 0o644)
		if err == nil {
			f.Close()
			t.Fatalf("flag %#x: the open followed a link put in after the judgement", flag)
		}
		if !errors.Is(err, syscall.ELOOP) {
			t.Fatalf("flag %#x: %v, want ELOOP", flag, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(secret, "id_ed25519")); string(b) != "KEY\n" {
		t.Fatalf("the key changed: %q", b)
	}
	// A path without a swapped link opens as os.OpenFile would.
	f, err := openReal(filepath.Join(ws, "old", "id_ed25519"), os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	f, err = openReal(filepath.Join(ws, "old", "new.txt"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
