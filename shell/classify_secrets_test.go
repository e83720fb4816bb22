package shell

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/internal/lawhit"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// secretState is every entry under the credential stores of a home: name,
// mode and content (or link target). A change to any secret changes it.
func secretState(t testing.TB, home string) string {
	var lines []string
	for _, root := range []string{".ssh", ".aws", ".netrc", ".kube", ".git-credentials"} {
		_ = filepath.WalkDir(filepath.Join(home, root), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				lines = append(lines, p+" "+err.Error())
				return nil
			}
			fi, _ := os.Lstat(p)
			line := fmt.Sprintf("%s %v", p, fi.Mode())
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				tgt, _ := os.Readlink(p)
				line += " -> " + tgt
			case fi.Mode().IsRegular():
				b, _ := os.ReadFile(p)
				line += fmt.Sprintf(" %x", sha256.Sum256(b))
			}
			lines = append(lines, line)
			return nil
		})
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestLaw_secrets_need_yes: no sequence of agent steps without a yes changes
// a secret. Scripts are generated from commands that write, remove, move,
// copy, link, truncate and redirect, directly and through wrappers, sh -c,
// eval, find and xargs, aimed at the credential stores by absolute paths,
// ~, .., cd, and random symlink layouts in the workspace (chains, loops,
// links to ancestors); they run for real under a random auto set with no
// client to answer. Afterwards every secret is as it was.
func TestLaw_secrets_need_yes(t *testing.T) {
	f := corpus.NewFixture(t)
	ctx := context.Background()
	hits := lawhit.New(t, map[string]int{"refused at a step": 30, "outside or protected in the auto set": 20})
	rapid.Check(t, func(rt *rapid.T) {
		// Each run starts from the same world, so a failure replays.
		if err := os.RemoveAll(f.Home); err != nil {
			rt.Fatal(err)
		}
		f.WriteFiles(t)
		before := secretState(t, f.Home)
		// A random layout of links in the workspace, removed afterwards.
		// Every name a link may take, made or not: a script may create one.
		var made []string
		for i := 0; i < 4; i++ {
			made = append(made, filepath.Join(f.WS, fmt.Sprintf("l%d", i)))
		}
		defer func() {
			for _, m := range made {
				_ = os.RemoveAll(m)
			}
		}()
		linkTargets := []string{f.Home + "/.ssh", f.Home + "/.ssh/authorized_keys", f.Home, f.Home + "/.aws/credentials",
			f.Home + "/.netrc", "..", "chain1", "keys", "l0", "l1", "missing"}
		links := rapid.IntRange(0, 3).Draw(rt, "links")
		for i := 0; i < links; i++ {
			if err := os.Symlink(rapid.SampledFrom(linkTargets).Draw(rt, "target"), made[i]); err != nil {
				rt.Fatal(err)
			}
		}
		list := filepath.Join(f.WS, "targets.txt")
		made = append(made, list, filepath.Join(f.WS, "copy"), filepath.Join(f.WS, "moved"))

		targets := []string{"~/.ssh/authorized_keys", "~/.ssh/id_ed25519", "~/.ssh", "~/.ssh/new", "keys/authorized_keys",
			"keys/new", "chain1", "~/.netrc", "~/.aws/credentials", "~", "up/home/.ssh/id_ed25519", "src/../keys/id_ed25519",
			"l0", "l0/authorized_keys", "l1/.ssh/id_ed25519", "$HOME/.kube/config", "~/.git-credentials"}
		target := rapid.SampledFrom(targets).Draw(rt, "secret")
		if err := os.WriteFile(list, []byte(strings.ReplaceAll(target, "~", f.Home)+"\n"), 0o644); err != nil {
			rt.Fatal(err)
		}
		forms := []string{
			"rm -rf %s", "echo pwned > %s", "echo pwned >> %s", "touch %s", "truncate -s 0 %s", "chmod 777 %s",
			"cp README.md %s", "mv %s moved", "mv README.md %s", "ln -sf /etc/passwd %s", "tee %s < README.md",
			"sed -i s/a/b/ %s", "dd if=README.md of=%s", "mkdir -p %s/x", "env rm -rf %s", "command rm -rf %s",
			"timeout 5 rm -f %s", "nice -n 1 rm -rf %s", "sh -c 'rm -rf %s'", "bash -c 'echo x > %s'", "eval 'rm -rf %s'",
			"find %s -delete", "find %s -exec rm -rf {} +", "xargs rm -rf < targets.txt", "xargs truncate -s 0 < targets.txt",
			"cd %s && rm -rf *", "cd %s; echo x > authorized_keys", "cp -r src %s", "sort -o %s README.md",
			"uniq README.md %s", "f() { rm -rf \"$1\"; }; f %s", "x=%s; rm -rf $x", "rm -rf $(echo %s)",
			"for p in %s; do rm -rf $p; done", "exec rm -rf %s", "git log > %s",
		}
		n := rapid.IntRange(1, 3).Draw(rt, "steps")
		var lines []string
		for i := 0; i < n; i++ {
			form := rapid.SampledFrom(forms).Draw(rt, "form")
			if !strings.Contains(form, "%s") {
				lines = append(lines, form)
				continue
			}
			lines = append(lines, fmt.Sprintf(form, target))
		}
		script := strings.Join(lines, rapid.SampledFrom([]string{"\n", "; ", " && ", " || "}).Draw(rt, "join"))
		// Any set a user may grant, the ones beyond the default included.
		auto := approvals.Effects(rapid.IntRange(0, int(approvals.Grantable)).Draw(rt, "auto")) & approvals.Grantable
		if auto.Has(approvals.Outside) || auto.Has(approvals.Protected) {
			hits.Hit("outside or protected in the auto set")
		}
		gate := approvals.NewGate("prop", auto, f.Policy, approvals.Nobody)
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		run, err := Start(cctx, script, Options{Dir: f.WS, Env: f.Env, Gate: gate})
		if err != nil {
			return // a script that does not parse runs nothing
		}
		res := run.Result()
		hits.Hit(map[bool]string{true: "refused at a step", false: "ended otherwise"}[res.End == Refused])
		if after := secretState(t, f.Home); after != before {
			rt.Fatalf("auto %v, no yes: %q changed a secret (ended %s)\nbefore:\n%s\nafter:\n%s", auto, script, res.End, before, after)
		}
	})
}
