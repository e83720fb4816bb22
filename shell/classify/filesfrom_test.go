package classify

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// wc, du, sort and find read the files a --files0-from list names: a list the
// script wrote (from base64, say) names ~/.ssh/id_ed25519 without any word
// of the command naming it.
func TestFilesFromListJudgesTheNamesInIt(t *testing.T) {
	f := corpus.NewFixture(t)
	lists := map[string]string{
		"secret.lst": "src/a.go\x00keys/id_ed25519\x00",
		"plain.lst":  "src/a.go\x00src/b.go\x00",
	}
	for name, body := range lists {
		if err := os.WriteFile(filepath.Join(f.WS, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, argv := range [][]string{
		{"sort", "--files0-from=secret.lst"},
		{"sort", "--files0-from", "secret.lst"},
		{"wc", "-c", "--files0-from=secret.lst"},
		{"wc", "--files0=secret.lst"}, // getopt takes a unique prefix
		{"du", "--files0-from=secret.lst"},
	} {
		if s := Command(argv, f.WS, nil, f.Policy); !s.Effects.Has(approvals.Secret) {
			t.Errorf("%q: %v, want secret", argv, s.Effects)
		}
	}
	for _, argv := range [][]string{
		{"sort", "--files0-from=plain.lst"},
		{"wc", "--files0-from=plain.lst"},
		{"wc", "--files0-from=missing.lst"},
	} {
		if s := Command(argv, f.WS, nil, f.Policy); s.Effects.Has(approvals.Secret) {
			t.Errorf("%q: %v, want no secret", argv, s.Effects)
		}
	}
	// The list is read again when the command runs, and may name other
	// files by then (a FIFO, or a step beside it rewriting the file): the
	// command reads what tandem cannot see. A FIFO is not opened to judge
	// it (that would wait for a writer).
	if err := syscall.Mkfifo(filepath.Join(f.WS, "fifo.lst"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{
		{"sort", "--files0-from=-"},
		{"sort", "--files0-from=plain.lst"},
		{"du", "--files0-from=fifo.lst"},
		{"find", "-files0-from", "fifo.lst", "-delete"},
	} {
		if s := Command(argv, f.WS, nil, f.Policy); !s.Effects.Has(approvals.Exec) {
			t.Errorf("%q: %v, want exec", argv, s.Effects)
		}
	}
	// find removes what the list names.
	if s := Command([]string{"find", "-files0-from", "secret.lst", "-delete"}, f.WS, nil, f.Policy); !s.Effects.Has(approvals.Secret) {
		t.Errorf("find -files0-from secret.lst -delete: %v, want secret", s.Effects)
	}
}
