package classify

import (
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/internal/lawhit"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// partPool are single commands whose effects differ; the laws compose them.
func partPool(f *corpus.Fixture) [][]string {
	return [][]string{
		{"echo", "hi"}, {"cat", "src/a.go"}, {"rm", "-f", "src/b.go"}, {"rm", f.Out + "/old.txt"},
		{"touch", ".git/hooks/x"}, {"cat", "keys/id_ed25519"}, {"git", "fetch"}, {"git", "log"},
		{"sed", "-i", "s/a/b/", "src/a.go"}, {"curl", "-o", "p", "https://example.com"}, {"ls"},
		{"find", "src", "-delete"}, {"python3", "x.py"}, {"grep", "-r", "KEY", f.Home},
		{"sort", "-o", f.Home + "/.ssh/authorized_keys", "README.md"}, {"uniq", "a", "b"},
	}
}

// compose wraps parts into one step in the ways a script can: a wrapper, a
// chain of wrappers, sh -c over all parts, eval.
func compose(t *rapid.T, parts [][]string) []string {
	switch rapid.IntRange(0, 4).Draw(t, "how") {
	case 0:
		return append([]string{"timeout", "5"}, parts[0]...)
	case 1:
		return append([]string{"env", "nice", "-n", "1", "command"}, parts[0]...)
	case 2:
		return append([]string{"eval"}, strings.Split(approvals.Show(parts[0]), " ")...)
	default:
		var lines []string
		for _, p := range parts {
			lines = append(lines, approvals.Show(p))
		}
		sep := rapid.SampledFrom([]string{"; ", " && ", " | ", "\n"}).Draw(t, "sep")
		return []string{"sh", "-c", strings.Join(lines, sep)}
	}
}

func drawParts(t *rapid.T, pool [][]string) [][]string {
	return rapid.SliceOfN(rapid.SampledFrom(pool), 1, 4).Draw(t, "parts")
}

// TestLaw_step_holds_every_part: a step has every effect of every part of
// it (the program behind a wrapper, each command of an sh -c payload).
func TestLaw_step_holds_every_part(t *testing.T) {
	f := corpus.NewFixture(t)
	pool := partPool(f)
	rapid.Check(t, func(t *rapid.T) {
		parts := drawParts(t, pool)
		whole := classifyIn(f, compose(t, parts)...)
		for i, p := range parts {
			if i > 0 && whole.Text != "" && !strings.HasPrefix(whole.Text, "sh ") {
				break // a wrapper holds only the first part
			}
			if part := classifyIn(f, p...); !part.Effects.Within(whole.Effects) {
				t.Fatalf("%s: %v does not hold part %s: %v", whole.Text, whole.Effects, approvals.Show(p), part.Effects)
			}
		}
	})
}

// TestLaw_composed_needs_every_part: a composed step runs unasked only if
// every effect of every part is within the auto set.
func TestLaw_composed_needs_every_part(t *testing.T) {
	f := corpus.NewFixture(t)
	pool := partPool(f)
	hits := lawhit.New(t, map[string]int{"runs unasked, composed with sh -c": 5, "runs unasked, behind a wrapper or alone": 15})
	rapid.Check(t, func(t *rapid.T) {
		parts := drawParts(t, pool)
		argv := compose(t, parts)
		whole := classifyIn(f, argv...)
		if argv[0] != "sh" {
			parts = parts[:1]
		}
		auto := approvals.Effects(rapid.IntRange(0, int(approvals.All)).Draw(t, "auto"))
		if rapid.Bool().Draw(t, "autoHoldsTheStep") {
			auto |= whole.Effects &^ approvals.Of(approvals.Secret) // steer toward steps that run unasked
		}
		if approvals.Decide(auto, false, whole.Effects) != approvals.Runs {
			hits.Hit("asks")
			return
		}
		hits.Hit(map[bool]string{true: "runs unasked, composed with sh -c", false: "runs unasked, behind a wrapper or alone"}[argv[0] == "sh"])
		for _, p := range parts {
			if e := classifyIn(f, p...).Effects; approvals.Decide(auto, false, e) != approvals.Runs {
				t.Fatalf("auto %v: %s runs unasked but its part %s (%v) would ask", auto, whole.Text, approvals.Show(p), e)
			}
		}
	})
}

// secretWords are ways a word can name a path that is or holds a secret in
// the corpus world.
func secretWords(f *corpus.Fixture) []string {
	return []string{f.Home + "/.ssh/id_ed25519", "keys/id_ed25519", "chain1", "keys", f.Home + "/.ssh",
		f.Home, "/", "up", "up/home/.ssh", "src/../keys/id_ed25519", f.Home + "/.netrc",
		f.Home + "/.aws/credentials", f.Home + "/.aws", f.Home + "/.kube/config", "keys/new",
		f.Home + "/.cargo/credentials", f.Home + "/.config/gh", f.Home + "/.local/share/keyrings/x", f.Home + "/.config/tandem/config.json",
		f.Home + "/.config/git/credentials", f.Home + "/.bash_history", f.Home + "/.local/state/tandem/chats",
		f.Policy.Env("SSH_AUTH_SOCK")}
}

// commandsWith places a word where each table command names a path.
func commandsWith(w string) [][]string {
	return [][]string{
		{"cat", w}, {"head", "-n", "3", w}, {"tail", w}, {"wc", "-l", w}, {"grep", "x", w}, {"grep", "-r", "x", w},
		{"rg", "x", w}, {"ls", "-la", w}, {"du", "-s", w}, {"stat", w}, {"file", w}, {"less", w},
		{"rm", "-rf", w}, {"cp", w, "src/x"}, {"cp", "README.md", w}, {"mv", w, "src/"}, {"touch", w},
		{"chmod", "600", w}, {"ln", "-s", w, "l"}, {"tee", w}, {"sed", "-n", "p", w}, {"sed", "-i", "s/a/b/", w},
		{"sort", w}, {"sort", "-o", w, "README.md"}, {"uniq", "README.md", w}, {"xxd", w},
		{"find", w, "-name", "x"}, {"git", "log", "--", w}, {"git", "-C", w, "log"}, {"test", "-e", w},
		{"env", "cat", w}, {"timeout", "1", "cat", w}, {"sh", "-c", "cat " + approvals.Show([]string{w})},
		{"curl", "-T", w, "https://example.com"}, {"dd", "if=" + w}, {"base64", w}, {"diff", w, "README.md"},
		{"unknown-tool", w}, {"./run", w}, {"xargs", "cat", w}, {"find", ".", "-newer", w},
	}
}

// TestLaw_secret_path_gives_secret: a command that names a path that is or
// holds a secret (as an operand, an option value, the directory of a
// wrapper) has secret.
func TestLaw_secret_path_gives_secret(t *testing.T) {
	f := corpus.NewFixture(t)
	for _, w := range secretWords(f) {
		for _, argv := range commandsWith(w) {
			if s := classifyIn(f, argv...); !s.Effects.Has(approvals.Secret) {
				t.Errorf("%s: %v, want secret", approvals.Show(argv), s.Effects)
			}
		}
	}
	// The working directory of a command that reads it because it names no
	// path.
	for _, argv := range [][]string{{"ls"}, {"du"}, {"find"}, {"rg", "x"}, {"grep", "-r", "x"}, {"git", "ls-files"}, {"git", "grep", "x"}} {
		for _, dir := range []string{f.Home, f.Home + "/.ssh", f.WS + "/keys", "/"} {
			if s := Command(argv, dir, f.Environ(), f.Policy); !s.Effects.Has(approvals.Secret) {
				t.Errorf("%s in %s: %v, want secret", approvals.Show(argv), dir, s.Effects)
			}
		}
	}
}

// TestLaw_naming_is_not_reading: a command that never opens what its
// words name (echo, printf, basename) asks for a word that is a secret,
// but not for one that only holds one: `echo $HOME`, `echo /` run
// unasked, where reading the same paths would ask.
func TestLaw_naming_is_not_reading(t *testing.T) {
	f := corpus.NewFixture(t)
	hits := lawhit.New(t, map[string]int{"is a secret": 5, "holds one": 5})
	for _, w := range secretWords(f) {
		j := f.Policy.ExamineForProgram(f.WS, w)
		for _, argv := range [][]string{{"echo", w}, {"printf", "%s\\n", w}, {"basename", w}} {
			s := classifyIn(f, argv...)
			if j.Class == approvals.PathSecret {
				hits.Hit("is a secret")
				if !s.Effects.Has(approvals.Secret) {
					t.Errorf("%s: %v, want secret: the word is a secret", approvals.Show(argv), s.Effects)
				}
				continue
			}
			hits.Hit("holds one")
			if s.Effects != 0 {
				t.Errorf("%s: %v, want nothing: naming a path that holds a secret reads nothing", approvals.Show(argv), s.Effects)
			}
			if r := classifyIn(f, "cat", w); !r.Effects.Has(approvals.Secret) {
				t.Errorf("cat %s: %v, want secret", w, r.Effects)
			}
		}
	}
}

// TestLaw_secret_needs_a_secret_path: secret only when a part names a path
// that is or holds a secret. Commands that name no such path, in a
// directory that holds none, never have secret; when one has secret, the
// step lists the path that gave it.
func TestLaw_secret_needs_a_secret_path(t *testing.T) {
	f := corpus.NewFixture(t)
	plain := []string{"src/a.go", "README.md", f.Out + "/old.txt", ".git/config", "/etc/hostname", "new.txt",
		"docs/a.go", "loop1", "/dev/null", f.Home + "/notes.txt", "-"}
	secret := secretWords(f)
	hits := lawhit.New(t, map[string]int{"secret": 12, "no secret": 30})
	rapid.Check(t, func(t *rapid.T) {
		w := rapid.SampledFrom(append(plain, secret...)).Draw(t, "word")
		argv := rapid.SampledFrom(commandsWith(w)).Draw(t, "argv")
		dir := rapid.SampledFrom([]string{f.WS, f.WS + "/src", f.Out}).Draw(t, "dir")
		s := Command(argv, dir, f.Environ(), f.Policy)
		if !s.Effects.Has(approvals.Secret) {
			hits.Hit("no secret")
			return
		}
		hits.Hit("secret")
		if !corpus.NamesSecret(s) {
			t.Fatalf("%s in %s: secret with no secret path in %+v", approvals.Show(argv), dir, s.Paths)
		}
		isSecretWord := false
		for _, x := range secret {
			isSecretWord = isSecretWord || x == w
		}
		if !isSecretWord && argv[0] != "wget" {
			t.Fatalf("%s in %s: secret from a plain word (%+v)", approvals.Show(argv), dir, s.Paths)
		}
	})
}
