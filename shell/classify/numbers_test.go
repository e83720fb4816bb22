package classify

import (
	"path/filepath"
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// A number is a count, not a path, unless a file has that name: a read of an
// existing "3" in ~/.ssh is still a secret read.
func TestNumbersAreNotPaths(t *testing.T) {
	f := corpus.NewFixture(t)
	ssh := f.Home + "/.ssh"
	for _, argv := range [][]string{
		{"head", "-n", "3", "/dev/null"}, {"head", "-c", "1K", "/dev/null"}, {"sleep", "0.5"},
		{"seq", "1", "10"}, {"sort", "-k", "2", "/dev/null"},
	} {
		if got := Command(argv, ssh, nil, f.Policy); got.Effects.Has(approvals.Secret) {
			t.Errorf("in ~/.ssh, %q: %v, want no secret", argv, got.Effects)
		}
	}
	writeFile(t, filepath.Join(ssh, "3"), "KEY\n")
	if got := Command([]string{"head", "-n", "1", "3"}, ssh, nil, f.Policy); !got.Effects.Has(approvals.Secret) {
		t.Errorf("in ~/.ssh, head -n 1 3: %v, want secret", got.Effects)
	}
	// A write to a number still names the file it creates.
	if got := Command([]string{"touch", "4"}, ssh, nil, f.Policy); !got.Effects.Has(approvals.Secret) {
		t.Errorf("in ~/.ssh, touch 4: %v, want secret", got.Effects)
	}
}
