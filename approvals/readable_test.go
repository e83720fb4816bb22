package approvals

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The home outside the workspace is held back by default: a read of what
// no rule opens is private (asked as outside), while the toolchains, git's
// config, the scratch places, PATH and the user's readable places are not.
func TestHomeIsPrivateButForTheReadablePlaces(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, ws := filepath.Join(tmp, "home"), filepath.Join(tmp, "home/src/ws")
	for _, f := range []string{".config/unknown-store/token", ".gitconfig", ".config/git/ignore", ".cargo/bin/cargo",
		".cargo/credentials.toml", ".rustup/settings.toml", ".local/share/pipx/venvs/x", ".local/share/other/db",
		".cache/pip/x", "bin/mine", "mine/notes", "src/ws/a.go", "src/other/b.go", ".nodenv/versions/x",
		".bashrc", ".config/go/env"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := NewPolicy(PolicyConfig{
		Roots: []string{ws}, Home: home, Scratch: []string{filepath.Join(home, ".cache")},
		Env:      []string{"HOME=" + home, "PATH=" + filepath.Join(home, "bin") + ":" + home + ":/usr/bin", "NVM_DIR=" + filepath.Join(home, ".nodenv")},
		Readable: []string{filepath.Join(home, "mine")},
	})
	for rel, private := range map[string]bool{
		".config/unknown-store/token": true, // a store no list names
		".local/share/other/db":       true,
		"src/other/b.go":              true,  // another project beside the workspace
		".bashrc":                     true,  // protected for writes, private for reads
		"missing":                     false, // not found in the kernel's view either
		".gitconfig":                  false,
		".config/git/ignore":          false,
		".config/go/env":              false,
		".cargo/bin/cargo":            false,
		".rustup/settings.toml":       false,
		".local/share/pipx/venvs/x":   false,
		".cache/pip/x":                false, // a scratch place
		"bin/mine":                    false, // on PATH
		".nodenv/versions/x":          false, // named by NVM_DIR
		"mine/notes":                  false, // the user's readable place
		"src/ws/a.go":                 false, // the workspace
	} {
		j := p.Examine(ws, filepath.Join(home, rel))
		if j.Private != private {
			t.Errorf("%s: private %v, want %v (%+v)", rel, j.Private, private, j)
		}
	}
	// A secret in a readable place stays secret, not private; the home
	// itself (PATH names it) is never opened whole.
	if j := p.Examine(ws, filepath.Join(home, ".cargo/credentials.toml")); j.Class != PathSecret || j.Private {
		t.Errorf("cargo's credentials: %+v", j)
	}
	for _, r := range p.Readable() {
		if r == home {
			t.Errorf("the home itself is readable: %q", p.Readable())
		}
	}
	if got := p.HomeEntries(); len(got) != 1 || got[0] != home {
		t.Errorf("home entries %q", got)
	}
	// Without a home, nothing is held back.
	if NewPolicy(PolicyConfig{Roots: []string{ws}}).Examine(ws, filepath.Join(home, ".bashrc")).Private {
		t.Error("private without a home")
	}
}

// A question names the private path and what opens it; a document read of
// one asks as outside.
func TestPrivateReadIsAskedAsOutside(t *testing.T) {
	l := newLayout(t)
	var asked Question
	g := NewGate("s", DefaultAuto, l.p, AskerFunc(func(_ context.Context, q Question) Answer {
		asked = q
		return AllowOnce
	}))
	if _, err := g.Access(context.Background(), AccessRead, l.ws, "../home/notes.txt"); err != nil {
		t.Fatal(err)
	}
	text := QuestionText(asked)
	if !strings.Contains(text, "effects: read, outside") || !strings.Contains(text, "outside, in the home directory (outside lets the step read it): "+l.home+"/notes.txt") {
		t.Fatalf("question:\n%s", text)
	}
}

// The files git's global config includes or names are read by every git
// command as part of it (an unreadable include stops git with "bad config
// line"): they are readable places.
func TestGitConfigIncludesAreReadable(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		".gitconfig": "[user]\n\tname = u\n[include]\n\tpath = ~/.gitconfig.local\n[includeIf \"gitdir:~/work/\"]\n\tpath = dotfiles/work.inc\n" +
			"[core]\n\texcludesFile = ~/.gitignore_global\n[alias]\n\tpath = ~/not-a-config\n",
		".gitconfig.local": "x", ".gitignore_global": "x", "dotfiles/work.inc": "x", "not-a-config": "x",
		".config/git/config": "[Include]\n\tpath = \"/abs/inc\" ; a comment, as git reads it\n",
	}
	for rel, body := range files {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := NewPolicy(PolicyConfig{Home: home, Env: []string{"HOME=" + home}})
	for rel, private := range map[string]bool{".gitconfig.local": false, ".gitignore_global": false, "dotfiles/work.inc": false, "not-a-config": true} {
		if j := p.Examine("/", filepath.Join(home, rel)); j.Private != private {
			t.Errorf("%s: private %v, want %v", rel, j.Private, private)
		}
	}
	if got := gitIncludes(home, filepath.Join(home, ".config/git/config")); len(got) != 1 || got[0] != "/abs/inc" {
		t.Errorf("includes of the XDG config: %q", got)
	}
}
