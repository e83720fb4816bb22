package classify

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// wc, du and sort read the files a --files0-from list names: a list the
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
	// A list read from standard input is unknown beforehand: the command
	// reads what tandem cannot see.
	if s := Command([]string{"sort", "--files0-from=-"}, f.WS, nil, f.Policy); !s.Effects.Has(approvals.Exec) {
		t.Errorf("sort --files0-from=-: %v, want exec", s.Effects)
	}
}
