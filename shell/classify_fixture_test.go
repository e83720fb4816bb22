package shell

import (
	"os"
	"path/filepath"
	"testing"

	"mvdan.cc/sh/v3/expand"

	"github.com/tandemdev/tandem/approvals"
)

// corpusFixture is the world the shell corpus runs in (see
// testdata/shell-corpus/README.md): a temp HOME with credential stores, a
// workspace (the working directory) with .git, .tandem, a symlink into
// ~/.ssh, a chain of links and a loop, and a PATH dir.
type corpusFixture struct {
	tmp, home, ws, bin, out string
	env                     []string
	policy                  *approvals.Policy
	files                   map[string]string // relative to tmp
}

// writeFiles (re)writes the fixture's files.
func (f *corpusFixture) writeFiles(t testing.TB) {
	for rel, body := range f.files {
		p := filepath.Join(f.tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (f *corpusFixture) environ() expand.Environ { return expand.ListEnviron(f.env...) }

func newCorpusFixture(t testing.TB) *corpusFixture {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &corpusFixture{tmp: tmp, home: filepath.Join(tmp, "home"), ws: filepath.Join(tmp, "ws"),
		bin: filepath.Join(tmp, "bin"), out: filepath.Join(tmp, "out")}
	files := map[string]string{
		"home/.ssh/id_ed25519":            "PRIVATE KEY\n",
		"home/.ssh/authorized_keys":       "ssh-ed25519 AAAA user\n",
		"home/.aws/credentials":           "[default]\naws_secret_access_key=x\n",
		"home/.netrc":                     "machine example.com password x\n",
		"home/.git-credentials":           "https://u:p@example.com\n",
		"home/.config/tandem/config.json": "{}\n",
		"home/.kube/config":               "apiVersion: v1\n",
		"home/notes.txt":                  "notes\n",
		"ws/.git/config":                  "[core]\n",
		"ws/.git/HEAD":                    "ref: refs/heads/main\n",
		"ws/.git/hooks/pre-commit":        "#!/bin/sh\n",
		"ws/.tandem/settings.json":        "{}\n",
		"ws/src/a.go":                     "package a\n",
		"ws/src/b.go":                     "package a\n",
		"ws/README.md":                    "# ws\n",
		"ws/list.txt":                     "src/a.go\n",
		"ws/script.sed":                   "s/a/b/\n",
		"ws/bin/cat":                      "#!/bin/sh\n",
		"bin/tool":                        "#!/bin/sh\n",
		"out/old.txt":                     "old\n",
	}
	f.files = files
	f.writeFiles(t)
	links := map[string]string{

		"ws/keys":   f.home + "/.ssh",
		"ws/chain1": "chain2",
		"ws/chain2": "keys/id_ed25519",
		"ws/loop1":  "loop2",
		"ws/loop2":  "loop1",
		"ws/up":     "..",
		"ws/docs":   "src",
	}
	for rel, target := range links {
		if err := os.Symlink(target, filepath.Join(tmp, rel)); err != nil {
			t.Fatal(err)
		}
	}
	f.env = []string{"HOME=" + f.home, "PATH=" + f.bin + ":/usr/bin:/bin", "OUT=" + f.out, "LANG=C"}
	f.policy = approvals.NewPolicy(approvals.PolicyConfig{Roots: []string{f.ws}, Home: f.home, Env: f.env})
	return f
}

// classify classifies one argv in the workspace.
func (f *corpusFixture) classify(argv ...string) approvals.Step {
	return Classify(argv, f.ws, f.environ(), f.policy)
}

// scriptEffects is the union of the effects of every step of a script,
// classified statically in the workspace.
func (f *corpusFixture) scriptEffects(t testing.TB, src string) (approvals.Effects, []approvals.Step) {
	steps, err := ClassifyScript(src, f.ws, f.environ(), f.policy)
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
