package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

// Script is one script of testdata/shell-corpus: its expected effect set
// and why.
type Script struct {
	Name, Src, Why string
	Expect         approvals.Effects
}

// Load reads testdata/shell-corpus (format: README.md there). The corpus is
// found from this file, so every package's tests read the same one.
func Load(t testing.TB) []Script {
	_, here, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(here), "..", "..", "..", "testdata", "shell-corpus")
	names, err := filepath.Glob(filepath.Join(dir, "*.sh"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no corpus in %s: %v", dir, err)
	}
	sort.Strings(names)
	var out []Script
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		s := Script{Name: filepath.Base(n), Src: string(b)}
		first, rest, _ := strings.Cut(string(b), "\n")
		exp, ok := strings.CutPrefix(first, "# expect: ")
		if !ok {
			t.Fatalf("%s: the first line must be '# expect: EFFECTS'", n)
		}
		s.Expect = Effects(t, strings.TrimSpace(exp))
		if why, _, _ := strings.Cut(rest, "\n"); strings.HasPrefix(why, "# why: ") {
			s.Why = strings.TrimPrefix(why, "# why: ")
		}
		out = append(out, s)
	}
	return out
}

// Effects parses "read+write" (or "none").
func Effects(t testing.TB, s string) approvals.Effects {
	t.Helper()
	if s == "none" || s == "" {
		return 0
	}
	e, err := approvals.ParseEffects(strings.Split(s, "+"))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// NamesSecret reports whether a step names a path that is or holds a secret.
func NamesSecret(s approvals.Step) bool {
	for _, p := range s.Paths {
		if p.HoldsSecret || p.Class == approvals.PathSecret {
			return true
		}
	}
	return false
}
