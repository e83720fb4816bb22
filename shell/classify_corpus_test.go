package shell

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

// corpusScript is one script of testdata/shell-corpus: its expected effect
// set and why.
type corpusScript struct {
	name, src, why string
	expect         approvals.Effects
}

// loadCorpus reads testdata/shell-corpus (format: README.md there).
func loadCorpus(t testing.TB) []corpusScript {
	dir := filepath.Join("..", "testdata", "shell-corpus")
	names, err := filepath.Glob(filepath.Join(dir, "*.sh"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no corpus in %s: %v", dir, err)
	}
	sort.Strings(names)
	var out []corpusScript
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		s := corpusScript{name: filepath.Base(n), src: string(b)}
		first, rest, _ := strings.Cut(string(b), "\n")
		exp, ok := strings.CutPrefix(first, "# expect: ")
		if !ok {
			t.Fatalf("%s: the first line must be '# expect: EFFECTS'", n)
		}
		s.expect = effects(t, strings.TrimSpace(exp))
		if why, _, _ := strings.Cut(rest, "\n"); strings.HasPrefix(why, "# why: ") {
			s.why = strings.TrimPrefix(why, "# why: ")
		}
		out = append(out, s)
	}
	return out
}

// TestCorpusClassification: every script of the adversarial corpus gets
// exactly its expected effects (the union over its steps), and every step
// with secret names a path that is or holds a secret.
func TestCorpusClassification(t *testing.T) {
	f := newCorpusFixture(t)
	corpus := loadCorpus(t)
	if len(corpus) < 150 {
		t.Fatalf("the corpus has %d scripts, want at least 150", len(corpus))
	}
	for _, s := range corpus {
		got, steps := f.scriptEffects(t, s.src)
		if got != s.expect {
			t.Errorf("%s (%s): %v, want %v\n%s", s.name, s.why, got, s.expect, s.src)
		}
		for _, st := range steps {
			if st.Effects.Has(approvals.Secret) && !namesSecret(st) {
				t.Errorf("%s: step %q has secret but names no secret path: %+v", s.name, st.Text, st.Paths)
			}
		}
	}
}

func namesSecret(s approvals.Step) bool {
	for _, p := range s.Paths {
		if p.HoldsSecret || p.Class == approvals.PathSecret {
			return true
		}
	}
	return false
}
