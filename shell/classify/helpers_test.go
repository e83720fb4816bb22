package classify

import (
	"testing"

	"mvdan.cc/sh/v3/expand"

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
