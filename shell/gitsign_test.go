package shell

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/internal/prereq"
)

// A plain git log verifies each commit's signature when the repository's
// own config says format.pretty=%G?, and that config also chooses the
// verifier: gpg.format=ssh with gpg.ssh.program names any program. git log
// is a read step, so that program must never run, whatever the auto set.
func TestGitLogNeverRunsTheRepositorysSignatureProgram(t *testing.T) {
	prereq.Program(t, "git", "scripts/setup installs it with apt")
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	marker := filepath.Join(tmp, "ran")
	verifier := filepath.Join(tmp, "verify")
	if err := os.WriteFile(verifier, []byte("#!/bin/sh\ntouch "+marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
	git := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env, cmd.Stdin = ws, env, strings.NewReader(stdin)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	git("", "init", "-q")
	git("", "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x")
	commit := git("", "cat-file", "-p", "HEAD")
	signed := strings.Replace(commit, "\n\n", "\ngpgsig -----BEGIN SSH SIGNATURE-----\n U1NIU0lH\n -----END SSH SIGNATURE-----\n\n", 1)
	git("", "update-ref", "HEAD", git(signed+"\n", "hash-object", "-t", "commit", "-w", "--stdin", "--literally"))
	for _, kv := range [][2]string{{"gpg.format", "ssh"}, {"gpg.ssh.program", verifier}, {"gpg.ssh.allowedSignersFile", verifier}, {"format.pretty", "%G? %s"}} {
		git("", "config", kv[0], kv[1])
	}

	p := approvals.NewPolicy(approvals.PolicyConfig{Roots: []string{ws}, Home: home, Env: env})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := Start(ctx, "git log -1", Options{Dir: ws, Env: env,
		Gate: approvals.NewGate("git", approvals.Of(approvals.Read), p, &asker{})})
	if err != nil {
		t.Fatal(err)
	}
	res := r.Result()
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("git log ran the repository's signature program unasked: %s", Render(res))
	}
	if res.End != Finished || len(res.Steps) != 1 || !res.Steps[0].Ran {
		t.Fatalf("git log did not run as a read step: %s", Render(res))
	}
}
