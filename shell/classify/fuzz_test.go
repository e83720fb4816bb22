package classify

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// Any argv and any script classify without a panic, and a step's text
// always shows its argv.
func TestClassifyAnyInput(t *testing.T) {
	f := corpus.NewFixture(t)
	var names []string
	for n := range table {
		names = append(names, n)
	}
	words := []string{"-", "--", "-c", "-e", "-i", "-o", "-x", "--output", "--pre", "-C", "{}", ";", "+", "=",
		"a=b", "s/a/b/", "e", "~", "/", "..", "keys", "chain1", "loop1", "src", "", "-5", "--no-pager", "log",
		"rm", "sh", "timeout", "1", "$'x'", "'", "\"", "$(", "`", "\\", "\x00", "\u202e", "-exec", "-delete",
		"config", "z", "alias.z=z", "-calias.z=config", "alias.z=!x", "--git-dir", "--bare", "switch", "branch", "-u",
		"--track", "clone", "worktree", "add", "--config-env=alias.z=PATH"}
	rapid.Check(t, func(t *rapid.T) {
		argv := []string{rapid.SampledFrom(names).Draw(t, "name")}
		argv = append(argv, rapid.SliceOfN(rapid.OneOf(rapid.SampledFrom(words), rapid.String()), 0, 8).Draw(t, "args")...)
		s := Command(argv, f.WS, f.Environ(), f.Policy)
		if s.Text != approvals.Show(argv) {
			t.Fatalf("text %q, want %q", s.Text, approvals.Show(argv))
		}
		_, _ = Script(strings.Join(argv, " "), f.WS, f.Environ(), f.Policy)
	})
}

// FuzzClassifyScript: no script makes the static classifier panic.
func FuzzClassifyScript(f *testing.F) {
	fx := corpus.NewFixture(f)
	for _, s := range corpus.Load(f) {
		f.Add(s.Src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		_, _ = Script(src, fx.WS, fx.Environ(), fx.Policy)
	})
}
