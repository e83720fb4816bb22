package corpus

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"

	"github.com/tandemdev/tandem/approvals"
)

// Fixture is the world the shell corpus runs in (see
// testdata/shell-corpus/README.md): a temp HOME with credential stores, a
// workspace (the working directory) with .git, .tandem, a symlink into
// ~/.ssh, a chain of links and a loop, and a PATH dir.
type Fixture struct {
	Tmp, Home, WS, Bin, Out string
	Env                     []string
	Policy                  *approvals.Policy
	files                   map[string]string // relative to Tmp
}

// WriteFiles (re)writes the fixture's files.
func (f *Fixture) WriteFiles(t testing.TB) {
	for rel, body := range f.files {
		p := filepath.Join(f.Tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Environ is the fixture's environment, as a step sees it.
func (f *Fixture) Environ() expand.Environ { return expand.ListEnviron(f.Env...) }

// NewFixture builds the world in a temporary directory of t.
func NewFixture(t testing.TB) *Fixture {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &Fixture{Tmp: tmp, Home: filepath.Join(tmp, "home"), WS: filepath.Join(tmp, "ws"),
		Bin: filepath.Join(tmp, "bin"), Out: filepath.Join(tmp, "out")}
	files := map[string]string{
		"home/.ssh/id_ed25519":                                  "PRIVATE KEY\n",
		"home/.ssh/authorized_keys":                             "ssh-ed25519 AAAA user\n",
		"home/.aws/credentials":                                 "[default]\naws_secret_access_key=x\n",
		"home/.netrc":                                           "machine example.com password x\n",
		"home/.git-credentials":                                 "https://u:p@example.com\n",
		"home/.config/tandem/config.json":                       "{}\n",
		"home/.kube/config":                                     "apiVersion: v1\n",
		"home/.config/git/credentials":                          "https://u:git-config-pass@example.com\n",
		"home/.bash_history":                                    "export TOKEN=typed-history-token\n",
		"home/.local/state/tandem/chats/0123456789abcdef.jsonl": "{\"output\": \"chat-kept-secret\"}\n",
		"home/notes.txt":                                        "notes\n",
		"home/.config/unnamed-vault/token":                      "unnamed-vault-token\n",
		"home/.gitconfig":                                       "[user]\n\tname = Corpus User\n",
		"ws/.git/config":                                        "[core]\n",
		"ws/.git/HEAD":                                          "ref: refs/heads/main\n",
		"ws/.git/hooks/pre-commit":                              "#!/bin/sh\n",
		"ws/.tandem/settings.json":                              "{}\n",
		"ws/src/a.go":                                           "package a\n",
		"ws/src/b.go":                                           "package a\n",
		"ws/README.md":                                          "# ws\n",
		"ws/list.txt":                                           "src/a.go\n",
		"ws/script.sed":                                         "s/a/b/\n",
		"ws/bin/cat":                                            "#!/bin/sh\n",
		"bin/tool":                                              "#!/bin/sh\n",
		"out/old.txt":                                           "old\n",
	}
	f.files = files
	f.WriteFiles(t)
	links := map[string]string{

		"ws/keys":   f.Home + "/.ssh",
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
	f.Env = []string{"HOME=" + f.Home, "PATH=" + f.Bin + ":/usr/bin:/bin", "OUT=" + f.Out, "LANG=C",
		"SSH_AUTH_SOCK=" + filepath.Join(tmp, "agent", "ssh.sock")}
	f.Policy = approvals.NewPolicy(approvals.PolicyConfig{Roots: []string{f.WS}, Home: f.Home, Env: f.Env})
	return f
}
