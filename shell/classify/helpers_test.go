package classify

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// classifyIn classifies one argv in the fixture's workspace.
func classifyIn(f *corpus.Fixture, argv ...string) approvals.Step {
	return Command(argv, f.WS, f.Environ(), f.Policy)
}

// scriptEffects is the union of the effects of every step of a script,
// classified statically in the fixture's workspace.
func scriptEffects(t testing.TB, f *corpus.Fixture, src string) (approvals.Effects, []approvals.Step) {
	steps, err := Script(src, f.WS, f.Environ(), f.Policy)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	var e approvals.Effects
	for _, s := range steps {
		e |= s.Effects
	}
	return e, steps
}

func envOf(kv []string) expand.Environ { return expand.ListEnviron(kv...) }

// writeFile writes a file, making its directory.
func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
