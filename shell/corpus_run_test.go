package shell

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// snapshot is every entry under root: kind, mode, link target or content hash.
func snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		case d.IsDir():
			out[rel] = fmt.Sprintf("dir %v", info.Mode())
		default:
			b, _ := os.ReadFile(p)
			out[rel] = fmt.Sprintf("file %v %x", info.Mode(), sha256.Sum256(b))
		}
		// Owner and, for a file, times: a change of either is a change too.
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			out[rel] += fmt.Sprintf(" %d:%d", st.Uid, st.Gid)
			if !d.IsDir() {
				out[rel] += " " + info.ModTime().String()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func changed(before, after map[string]string, under func(string) bool) []string {
	var out []string
	for p, v := range before {
		if under(p) && after[p] != v {
			out = append(out, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok && under(p) {
			out = append(out, p+" (new)")
		}
	}
	return out
}

func runCorpus(t *testing.T, f *corpus.Fixture, src string, auto approvals.Effects, a *asker) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := Start(ctx, src, Options{Dir: f.WS, Env: f.Env, Gate: approvals.NewGate("corpus", auto, f.Policy, a)})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return r.Result()
}

// TestCorpusRunsGated runs every script of the adversarial corpus for real,
// in its own world (a temporary HOME and workspace), with an asker that
// records each question and answers no:
//
//   - with nothing in the auto set, no step with any effect runs, and the
//     world is byte for byte what it was: nothing ran unasked, and a no
//     changed nothing;
//   - with the default auto set, no step with secret runs, a script whose
//     expected effects hold secret asked about it, no question came
//     without a step outside the auto set in it, a script that is not exec
//     and whose effects are all in the auto set asked nothing, and no
//     credential store changed.
func TestCorpusRunsGated(t *testing.T) {
	for _, s := range corpus.Load(t) {
		t.Run(strings.TrimSuffix(s.Name, ".sh"), func(t *testing.T) {
			f := corpus.NewFixture(t)
			before := snapshot(t, f.Tmp)
			a := answering(approvals.Deny)
			res := runCorpus(t, f, s.Src, 0, a)
			for _, st := range res.Steps {
				if st.Ran && st.Effects != 0 {
					t.Errorf("with an empty auto set, step %q (%v) ran unasked\n%s", st.Text, st.Effects, s.Src)
				}
			}
			if d := changed(before, snapshot(t, f.Tmp), func(string) bool { return true }); len(d) > 0 {
				t.Errorf("denied, yet the script changed %v\n%s\nresult: %s", d, s.Src, Render(res))
				f = corpus.NewFixture(t) // the second run needs the world as it was
				before = snapshot(t, f.Tmp)
			}

			a = answering(approvals.Deny)
			res = runCorpus(t, f, s.Src, approvals.DefaultAuto, a)
			for _, st := range res.Steps {
				if st.Ran && st.Effects.Has(approvals.Secret) {
					t.Errorf("step %q (%v) ran without a yes\n%s", st.Text, st.Effects, s.Src)
				}
			}
			if s.Expect.Has(approvals.Secret) {
				asked := false
				for _, q := range a.asked() {
					for _, st := range q.Steps {
						asked = asked || st.Effects.Has(approvals.Secret)
					}
				}
				if !asked {
					t.Errorf("expected %v, but no question about a secret step was asked\n%s\nresult: %s", s.Expect, s.Src, Render(res))
				}
			}
			// A pipeline asks about all its steps at once; a question none of
			// whose steps needs one should not have been asked, and a script
			// whose every effect is in the auto set asks nothing (unless it
			// is exec: its words may hold more when it runs).
			for _, q := range a.asked() {
				needed := false
				for _, st := range q.Steps {
					needed = needed || !st.Effects.Within(approvals.DefaultAuto)
				}
				if !needed {
					t.Errorf("the default auto set holds every step of a question about %q, yet it was asked\n%s", q.Steps[0].Text, s.Src)
				}
			}
			if qs := a.asked(); s.Expect.Within(approvals.DefaultAuto) && !s.Expect.Has(approvals.Exec) && len(qs) > 0 {
				t.Errorf("the default auto set holds every effect of the script, yet it asked about %q\n%s", qs[0].Steps[0].Text, s.Src)
			}
			secretStore := func(p string) bool {
				for _, s := range []string{"home/.ssh", "home/.aws", "home/.netrc", "home/.git-credentials", "home/.kube"} {
					if p == s || strings.HasPrefix(p, s+"/") {
						return true
					}
				}
				return false
			}
			if d := changed(before, snapshot(t, f.Tmp), secretStore); len(d) > 0 {
				t.Errorf("denied, yet a credential store changed: %v\n%s", d, s.Src)
			}
		})
	}
}

// A glob that passes directories which only hold a secret (the home, the
// directory holding it: every absolute glob into a workspace under the home
// does) learns names there and asks nothing; a glob into the secret itself
// still asks before it lists it.
func TestGlobThroughADirectoryHoldingASecretAsksNothing(t *testing.T) {
	f := corpus.NewFixture(t)
	a := answering(approvals.Deny)
	res := runCorpus(t, f, `ls ~/*.txt "$PWD"/src/*.go`, approvals.DefaultAuto, a)
	if qs := a.asked(); len(qs) > 0 || res.End != Finished {
		t.Fatalf("asked %d question(s), ended %v:\n%s", len(qs), res.End, Render(res))
	}
	out := Render(res)
	for _, want := range []string{"home/notes.txt", "ws/src/a.go", "ws/src/b.go"} {
		if !strings.Contains(out, want) {
			t.Errorf("the globs did not match %s:\n%s", want, out)
		}
	}
	a = answering(approvals.Deny)
	res = runCorpus(t, f, `echo ~/.ssh/*`, approvals.DefaultAuto, a)
	if len(a.asked()) != 1 || strings.Contains(Render(res), "id_ed25519") {
		t.Fatalf("a glob into ~/.ssh listed it without a yes:\n%s", Render(res))
	}
}
