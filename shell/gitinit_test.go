package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

// git init copies the template init.templateDir names in the user's git
// config into .git; a config that names ~/.ssh would copy the keys into
// the workspace, and a template's hooks run later. The gated git init
// copies no template.
func TestGitInitCopiesNoTemplateFromTheUsersConfig(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: ", err)
	}
	sb := newTestbed(t)
	config := "[init]\n\ttemplateDir = " + filepath.Join(sb.home, ".ssh") + "\n"
	if err := os.WriteFile(filepath.Join(sb.home, ".gitconfig"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	a := answering(approvals.Deny)
	res := runScript(t, `git init -q sub && ls -A sub/.git`, sb.opts(approvals.All&^approvals.Of(approvals.Secret), a))
	if res.End != Finished || res.Status != 0 || len(a.asked()) != 0 {
		t.Fatalf("asked %d, ended %v %d:\n%s", len(a.asked()), res.End, res.Status, Render(res))
	}
	if _, err := os.Stat(filepath.Join(sb.root, "sub", ".git", "id_ed25519")); err == nil {
		t.Fatalf("git init copied the key from the template ~/.ssh:\n%s", Render(res))
	}
	if _, err := os.Stat(filepath.Join(sb.root, "sub", ".git", "HEAD")); err != nil {
		t.Fatalf("git init made no repository: %v\n%s", err, Render(res))
	}
}
