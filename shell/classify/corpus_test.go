package classify

import (
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// TestCorpusClassification: every script of the adversarial corpus gets
// exactly its expected effects (the union over its steps), and every step
// with secret names a path that is or holds a secret.
func TestCorpusClassification(t *testing.T) {
	f := corpus.NewFixture(t)
	scripts := corpus.Load(t)
	if len(scripts) < 150 {
		t.Fatalf("the corpus has %d scripts, want at least 150", len(scripts))
	}
	for _, s := range scripts {
		got, steps := scriptEffects(t, f, s.Src)
		if got != s.Expect {
			t.Errorf("%s (%s): %v, want %v\n%s", s.Name, s.Why, got, s.Expect, s.Src)
		}
		for _, st := range steps {
			if st.Effects.Has(approvals.Secret) && !corpus.NamesSecret(st) {
				t.Errorf("%s: step %q has secret but names no secret path: %+v", s.Name, st.Text, st.Paths)
			}
		}
	}
}
