package classify

import (
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// A lesskey file's #env section can set LESSOPEN, and less then runs that
// program on every file it shows: naming such a file is exec.
func TestLessWithALesskeyFileIsExec(t *testing.T) {
	f := corpus.NewFixture(t)
	for _, argv := range [][]string{
		{"less", "--lesskey-src=src/a.go", "README.md"},
		{"less", "--lesskey-s", "src/a.go", "README.md"},
		{"less", "-k", "src/a.go", "README.md"},
		{"less", "--lesskey-file=src/a.go", "README.md"},
		{"less", "--lesskey-content=#env\nLESSOPEN=|id %s", "README.md"},
	} {
		if s := Command(argv, f.WS, nil, f.Policy); !s.Effects.Has(approvals.Exec) {
			t.Errorf("%q: %v, want exec", argv, s.Effects)
		}
	}
	if s := Command([]string{"less", "README.md"}, f.WS, nil, f.Policy); s.Effects.Has(approvals.Exec) {
		t.Errorf("less README.md: %v, want no exec", s.Effects)
	}
}
