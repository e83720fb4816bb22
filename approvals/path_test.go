package approvals

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/internal/lawhit"
	"github.com/tandemdev/tandem/refusal"
)

// layout is a temp HOME, a workspace and a PATH dir, with the credential
// stores and protected dirs the policy knows.
type layout struct {
	tmp, home, ws, bin string
	secrets            []string // real secret entries that exist
	protected          []string // real protected entries that exist
	p                  *Policy
}

func newLayout(t testing.TB) *layout {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := &layout{tmp: tmp, home: filepath.Join(tmp, "home"), ws: filepath.Join(tmp, "ws"), bin: filepath.Join(tmp, "bin")}
	files := map[string]string{
		"home/.ssh/id_ed25519":            "KEY",
		"home/.ssh/authorized_keys":       "ssh-ed25519 AAAA",
		"home/.aws/credentials":           "[default]",
		"home/.netrc":                     "machine x",
		"home/.cargo/credentials.toml":    "token",
		"home/.config/gh/hosts.yml":       "x",
		"home/.config/tandem/config.json": "{}",
		"home/notes.txt":                  "notes",
		"home/other/creds.ini":            "aws",
		"ws/.git/config":                  "[core]",
		"ws/.git/hooks/pre-commit":        "#!/bin/sh",
		"ws/.tandem/settings.json":        "{}",
		"ws/src/a.go":                     "package a",
		"ws/sub/.git/HEAD":                "ref",
		"bin/tool":                        "#!/bin/sh",
	}
	for rel, body := range files {
		p := filepath.Join(tmp, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{".ssh", ".aws", ".netrc", ".cargo/credentials.toml", ".config/gh", "other/creds.ini"} {
		l.secrets = append(l.secrets, filepath.Join(l.home, s))
	}
	l.protected = []string{filepath.Join(l.home, ".config/tandem"), filepath.Join(l.ws, ".git"),
		filepath.Join(l.ws, ".tandem"), filepath.Join(l.ws, "sub/.git"), l.bin, filepath.Join(tmp, "opt/tools/bin")}
	l.p = NewPolicy(PolicyConfig{
		Roots: []string{l.ws},
		Home:  l.home,
		Env: []string{"HOME=" + l.home, "PATH=" + l.bin + ":" + filepath.Join(tmp, "opt/tools/bin") + ":/usr/bin:/bin",
			"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(l.home, "other/creds.ini")},
	})
	return l
}

func under2(path, root string) bool { return path == root || strings.HasPrefix(path, root+"/") }

func TestPolicyClasses(t *testing.T) {
	l := newLayout(t)
	cases := map[string]PathClass{
		"src/a.go":                             PathInside,
		"src/new.go":                           PathInside,
		l.ws + "/src":                          PathInside,
		l.home + "/.ssh/id_ed25519":            PathSecret,
		l.home + "/.ssh":                       PathSecret,
		l.home + "/.cargo/credentials.toml":    PathSecret,
		l.home + "/.cargo/credentials":         PathSecret,
		l.home + "/.cargo/config.toml":         PathOutside,
		l.home + "/other/creds.ini":            PathSecret,
		l.home + "/other":                      PathProtected,
		l.home:                                 PathProtected,
		"/":                                    PathProtected,
		l.home + "/notes.txt":                  PathOutside,
		l.home + "/.config/tandem/config.json": PathSecret, // carries execution gates
		".git/hooks/pre-commit":                PathProtected,
		".git/hooks/new":                       PathProtected,
		".tandem/settings.json":                PathProtected,
		"sub/.git/HEAD":                        PathProtected,
		"sub":                                  PathProtected, // holds .git
		l.ws:                                   PathProtected, // holds .git
		l.bin + "/tool":                        PathProtected,
		l.bin + "/new":                         PathProtected,
		"/dev/null":                            PathHarmless,
		"/dev/stderr":                          PathHarmless,
		"/tmp/" + filepath.Base(l.tmp) + "-absent/x": PathOutside,
		"/usr/bin/ls":                    PathProtected,
		"/usr":                           PathProtected,
		"src/../../home/.ssh/id_ed25519": PathSecret,
		// what a later shell, login, editor or git runs
		l.home + "/.bashrc":                      PathProtected,
		l.home + "/.profile":                     PathProtected,
		l.home + "/.zshenv":                      PathProtected,
		l.home + "/.inputrc":                     PathProtected,
		l.home + "/.vimrc":                       PathProtected,
		l.home + "/.emacs.d/init.el":             PathProtected,
		l.home + "/.gitconfig":                   PathProtected,
		l.home + "/.config/git/config":           PathProtected,
		l.home + "/.config/git/ignore":           PathOutside,
		l.home + "/.config/fish/config.fish":     PathProtected,
		l.home + "/.config/autostart/x.desktop":  PathProtected,
		l.home + "/.config/systemd/user/x.timer": PathProtected,
		l.home + "/.local/share/systemd/user/x":  PathProtected,
		l.home + "/.config/nvim/init.lua":        PathSecret, // the editor's user settings
		l.home + "/.bashrc.bak":                  PathOutside,
		"/var/spool/cron/crontabs/u":             PathProtected,
	}
	for p, want := range cases {
		if got := l.p.Judge(p); got != want {
			t.Errorf("Judge(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestPolicySymlinks(t *testing.T) {
	l := newLayout(t)
	must := func(err error) {
		if err != nil {
			t.Helper()
			t.Fatal(err)
		}
	}
	must(os.Symlink(l.home+"/.ssh", l.ws+"/keys"))
	must(os.Symlink("keys/id_ed25519", l.ws+"/c1"))
	must(os.Symlink("c1", l.ws+"/c2"))
	must(os.Symlink("loop2", l.ws+"/loop1"))
	must(os.Symlink("loop1", l.ws+"/loop2"))
	must(os.Symlink(l.home+"/.ssh/absent", l.ws+"/dangling"))
	must(os.Symlink("src/a.go", l.ws+"/ok"))
	for p, want := range map[string]PathClass{
		"keys/id_ed25519":  PathSecret,
		"keys":             PathSecret,
		"c2":               PathSecret,
		"dangling":         PathSecret,
		"keys/../notes":    PathOutside, // .. from the real directory: home/notes
		"ok":               PathInside,
		"loop1":            PathOutside,
		"loop1/x/y":        PathOutside,
		"src/../keys/../x": PathOutside,
	} {
		if got := l.p.Judge(p); got != want {
			t.Errorf("Judge(%q) = %v, want %v", p, got, want)
		}
	}
	if r := Resolve(l.ws, "loop1"); !r.Looped {
		t.Errorf("Resolve(loop1) = %+v, want a loop", r)
	}
	// A link whose name is inside but whose target is a secret is judged by
	// the worse of both; one whose name sits in .git by its name.
	must(os.Symlink(l.ws+"/src/a.go", l.ws+"/.git/hooks/post-commit"))
	if got := l.p.Judge(".git/hooks/post-commit"); got != PathProtected {
		t.Errorf("a link in .git/hooks = %v, want protected", got)
	}
}

// genLayout makes random symlinks under the layout: their places and
// targets mix the workspace, the home, the credential stores, other links,
// missing names and loops.
func genLayout(t *rapid.T, l *layout) []string {
	dirs := []string{l.ws, l.ws + "/src", l.home, l.tmp}
	targets := []string{l.home + "/.ssh", l.home + "/.ssh/id_ed25519", l.home, "..", "../..", ".", "src",
		l.ws + "/.git", l.ws + "/.git/hooks", l.bin, "/", "absent", l.home + "/.netrc", l.home + "/.config",
		l.ws + "/src/a.go", l.home + "/other", l.tmp}
	n := rapid.IntRange(0, 6).Draw(t, "links")
	var links []string
	for i := 0; i < n; i++ {
		d := rapid.SampledFrom(dirs).Draw(t, "dir")
		name := filepath.Join(d, fmt.Sprintf("l%d", i))
		var target string
		if len(links) > 0 && rapid.Bool().Draw(t, "toLink") {
			target = rapid.SampledFrom(append(links, name)).Draw(t, "linkTarget")
		} else {
			target = rapid.SampledFrom(targets).Draw(t, "target")
		}
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
		links = append(links, name)
	}
	return links
}

func genPath(t *rapid.T, l *layout, links []string) string {
	bases := append([]string{l.ws, l.ws + "/src", l.home, l.home + "/.ssh", l.ws + "/.git", l.tmp, "/", l.bin}, links...)
	p := rapid.SampledFrom(bases).Draw(t, "base")
	for i := rapid.IntRange(0, 3).Draw(t, "depth"); i > 0; i-- {
		p += "/" + rapid.SampledFrom([]string{"..", ".", "id_ed25519", "x", ".git", "src", "a.go", ".ssh", "hooks", "l0", "l1"}).Draw(t, "seg")
	}
	return p
}

func cleanUp(t *rapid.T, links []string) {
	for _, s := range links {
		_ = os.Remove(s)
	}
}

// genSecretWard is a path that leads into a credential store, or right
// beside one: through the home, the workspace, ".." and the random links,
// to an existing secret or its neighbour.
func genSecretWard(t *rapid.T, l *layout, links []string) string {
	p := rapid.SampledFrom([]string{l.home, l.ws + "/../home", l.tmp + "/home", l.ws + "/src/../../home"}).Draw(t, "start")
	if len(links) > 0 && rapid.Bool().Draw(t, "viaLink") {
		p = rapid.SampledFrom(links).Draw(t, "link")
	}
	return p + "/" + rapid.SampledFrom([]string{".ssh/id_ed25519", ".ssh", ".ssh/./authorized_keys", ".aws/credentials",
		".netrc", ".cargo/credentials.toml", ".config/gh/hosts.yml", "other/creds.ini", "notes.txt", ".config/tandem/config.json"}).Draw(t, "into")
}

// TestLaw_path_secret_wins: a path whose real path is under a secret entry is
// Secret, whatever links led there.
func TestLaw_path_secret_wins(t *testing.T) {
	l := newLayout(t)
	hits := lawhit.New(t, map[string]int{"secret": 20, "not secret": 5})
	rapid.Check(t, func(t *rapid.T) {
		links := genLayout(t, l)
		defer cleanUp(t, links)
		p := genPath(t, l, links)
		if rapid.IntRange(0, 2).Draw(t, "secretward") > 0 {
			p = genSecretWard(t, l, links)
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			hits.Hit("missing or looping")
			return // the oracle cannot say
		}
		secret := false
		for _, s := range l.secrets {
			if under2(real, s) {
				secret = true
				if got := l.p.Judge(p); got != PathSecret {
					t.Fatalf("Judge(%q) (real %q) = %v, want secret", p, real, got)
				}
			}
		}
		if secret {
			hits.Hit("secret")
		} else {
			hits.Hit("not secret")
		}
	})
}

// TestLaw_path_inside_is_safe: Inside only when no loop, no secret covers the
// path, no rule protects it, it is no ancestor of an entry, and a root holds
// it.
func TestLaw_path_inside_is_safe(t *testing.T) {
	l := newLayout(t)
	// A loop inside the root, however it is reached, is never Inside.
	for _, ln := range [][2]string{{"loop1", "loop2"}, {"loop2", "loop1"}, {"self", "self"}} {
		if err := os.Symlink(ln[1], filepath.Join(l.ws, ln[0])); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"loop1", "loop2/x", "src/../loop1", "self", l.ws + "/self/a"} {
		if c := l.p.Judge(p); c == PathInside {
			t.Errorf("Judge(%q), whose links loop, = inside", p)
		}
	}
	hits := lawhit.New(t, map[string]int{"inside": 8})
	rapid.Check(t, func(t *rapid.T) {
		links := genLayout(t, l)
		defer cleanUp(t, links)
		p := genPath(t, l, links)
		if l.p.Judge(p) != PathInside {
			hits.Hit("not inside")
			return
		}
		hits.Hit("inside")
		real, err := filepath.EvalSymlinks(p)
		if errors.Is(err, syscall.ELOOP) {
			t.Fatalf("Judge(%q) = inside, but its links loop", p)
		}
		if err != nil {
			// Missing: the existing prefix is real, the rest as written.
			real = Resolve("/", p).Path
		}
		if !under2(real, l.ws) {
			t.Fatalf("Judge(%q) = inside, real %q is outside the root", p, real)
		}
		for _, e := range append(append([]string{}, l.secrets...), l.protected...) {
			if under2(real, e) || under2(e, real) {
				t.Fatalf("Judge(%q) = inside, real %q is under or above the entry %q", p, real, e)
			}
		}
		rel := strings.TrimPrefix(real, l.ws)
		if strings.Contains(rel+"/", "/.git/") || strings.Contains(rel+"/", "/.tandem/") {
			t.Fatalf("Judge(%q) = inside, real %q is in a named protected dir", p, real)
		}
	})
}

// TestLaw_path_ancestor_guarded: an ancestor of a protected or secret entry
// is Protected or Secret, by its own name or through a link to it.
func TestLaw_path_ancestor_guarded(t *testing.T) {
	l := newLayout(t)
	n := 0
	for _, e := range append(append([]string{}, l.secrets...), l.protected...) {
		for a := filepath.Dir(e); ; a = filepath.Dir(a) {
			if c := l.p.Judge(a); c != PathProtected && c != PathSecret {
				t.Errorf("Judge(%q), an ancestor of %q, = %v", a, e, c)
			}
			link := filepath.Join(l.ws, "src", fmt.Sprintf("anc%d", n))
			n++
			if err := os.Symlink(a, link); err != nil {
				t.Fatal(err)
			}
			if c := l.p.Judge(link); c != PathProtected && c != PathSecret {
				t.Errorf("Judge(%q → %q) = %v", link, a, c)
			}
			if a == "/" {
				break
			}
		}
	}
}

// TestLaw_gate_write_auto_never_secret: no auto set lets a write to a secret
// run without a yes, whatever path leads there.
func TestLaw_gate_write_auto_never_secret(t *testing.T) {
	l := newLayout(t)
	if err := os.Symlink(l.home+"/.ssh", l.ws+"/keys"); err != nil {
		t.Fatal(err)
	}
	for _, auto := range everySet() {
		for _, p := range []string{l.home + "/.ssh/authorized_keys", "keys/authorized_keys", "keys/new", l.home + "/.netrc"} {
			a := &countingAsker{answer: Unanswered}
			g := NewGate("s", auto, l.p, a)
			_, err := g.Access(context.Background(), AccessWrite, l.ws, p)
			var r *Refused
			if !errors.As(err, &r) || r.Refusal.Code != refusal.Unanswered || a.asked.Load() != 1 {
				t.Fatalf("auto=%v write %s: %v (asked %d)", auto, p, err, a.asked.Load())
			}
			if !a.last.Steps[0].Effects.Has(Secret) || !strings.HasPrefix(a.last.Steps[0].Text, "write ") {
				t.Fatalf("question %+v", a.last)
			}
		}
	}
	// Inside writes run unasked when the auto set holds write; outside ones
	// need outside too.
	g := NewGate("s", Of(Write), l.p, Nobody)
	if _, err := g.Access(context.Background(), AccessWrite, l.ws, "src/b.go"); err != nil {
		t.Fatalf("inside write: %v", err)
	}
	if _, err := g.Access(context.Background(), AccessWrite, l.ws, l.home+"/notes.txt"); err == nil {
		t.Fatal("an outside write ran without outside in the auto set")
	}
	if _, err := g.Access(context.Background(), AccessWrite, l.ws, ".git/hooks/pre-commit"); err == nil {
		t.Fatal("a protected write ran without protected in the auto set")
	}
}

// TestLaw_gate_secret_read_needs_yes: a read of a secret runs only on a yes.
func TestLaw_gate_secret_read_needs_yes(t *testing.T) {
	l := newLayout(t)
	for _, auto := range everySet() {
		for _, ans := range []Answer{Unanswered, Deny, AllowOnce} {
			for _, acc := range []Access{AccessRead, AccessSearch} {
				a := &countingAsker{answer: ans}
				g := NewGate("s", auto, l.p, a)
				real, err := g.Access(context.Background(), acc, l.ws, "../home/.ssh/id_ed25519")
				if (err == nil) != ans.Allows() || a.asked.Load() != 1 {
					t.Fatalf("auto=%v %v %v: err %v asked %d", auto, acc, ans, err, a.asked.Load())
				}
				if real.Path != l.home+"/.ssh/id_ed25519" {
					t.Fatalf("real path %q", real.Path)
				}
			}
		}
	}
	// Searching the home, which holds secrets, asks; reading a plain file
	// there asks as outside (the home is held back by default); reading a
	// plain file outside the home does not ask.
	g := NewGate("s", DefaultAuto, l.p, Nobody)
	if _, err := g.Access(context.Background(), AccessSearch, l.ws, l.home); err == nil {
		t.Fatal("a search of the home ran unasked")
	}
	var refused *Refused
	if _, err := g.Access(context.Background(), AccessRead, l.ws, l.home+"/notes.txt"); !errors.As(err, &refused) || !strings.Contains(refused.Error(), "(read+outside)") {
		t.Fatalf("a plain read in the home: %v", err)
	}
	if _, err := g.Access(context.Background(), AccessRead, l.ws, l.bin+"/tool"); err != nil {
		t.Fatalf("a plain read outside the home: %v", err)
	}
}

// The environment names more secrets and moves tandem's own directories.
func TestPolicyFromEnvironment(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, ws := filepath.Join(tmp, "home"), filepath.Join(tmp, "ws")
	p := NewPolicy(PolicyConfig{Roots: []string{ws}, Home: home, Env: []string{
		"AWS_CONFIG_FILE=" + tmp + "/etc/aws.cfg",
		"CLOUDSDK_CONFIG=" + tmp + "/gcloud",
		"KUBECONFIG=" + tmp + "/k1:" + tmp + "/k2",
		"DOCKER_CONFIG=" + tmp + "/docker",
		"XDG_CONFIG_HOME=" + tmp + "/cfg",
		"XDG_STATE_HOME=" + tmp + "/state",
		"XDG_DATA_HOME=" + tmp + "/data",
		"ZDOTDIR=" + tmp + "/zdot",
		"PATH=bin:/usr/bin",
	}})
	for path, want := range map[string]PathClass{
		tmp + "/etc/aws.cfg":                   PathSecret,
		tmp + "/gcloud/creds.db":               PathSecret,
		tmp + "/k2":                            PathSecret,
		tmp + "/docker/config.json":            PathSecret,
		tmp + "/docker/other.json":             PathOutside,
		tmp + "/cfg/gh/hosts.yml":              PathSecret,
		tmp + "/data/keyrings/a":               PathSecret,
		tmp + "/cfg/tandem/config.json":        PathSecret, // carries execution gates
		tmp + "/state/tandem/mcp-servers.json": PathSecret,
		tmp + "/state/tandem/lsp.log":          PathSecret, // what earlier steps read with a yes
		tmp + "/state/tandem/chats/0011.jsonl": PathSecret,
		tmp + "/cfg/autostart/x.desktop":       PathProtected,
		tmp + "/cfg/git/config":                PathProtected,
		tmp + "/zdot/.zshrc":                   PathProtected,
		home + "/.config/tandem/x":             PathOutside,   // XDG_CONFIG_HOME moved it
		ws + "/bin/tool":                       PathProtected, // a relative PATH entry, from the first root
		ws + "/src/a.go":                       PathInside,
	} {
		if got := p.Judge(path); got != want {
			t.Errorf("Judge(%q) = %v, want %v", path, got, want)
		}
	}
}

// /proc/self is the process that opens it. For a program a step starts, it
// is that program, whose cwd is the step's directory: /proc/self/cwd/… in
// ~/.ssh is the key, however it is reached. For tandem itself (the
// document tools), it is tandem, whose environment is another process's
// to the policy: secret, like every other process's.
func TestProgramViewOfProc(t *testing.T) {
	l := newLayout(t)
	ssh := filepath.Join(l.home, ".ssh")
	if err := os.Symlink("/proc/self/cwd", filepath.Join(l.ws, "here")); err != nil {
		t.Fatal(err)
	}
	for written, want := range map[string]string{
		"/proc/self/cwd/id_ed25519":        filepath.Join(ssh, "id_ed25519"),
		"/proc/thread-self/cwd/id_ed25519": filepath.Join(ssh, "id_ed25519"),
		"/dev/fd/../cwd/id_ed25519":        filepath.Join(ssh, "id_ed25519"),
		"/proc/self/task/1/cwd/planted":    filepath.Join(ssh, "planted"),
		"/proc/self/root" + ssh + "/x":     filepath.Join(ssh, "x"),
		l.ws + "/here/id_ed25519":          filepath.Join(ssh, "id_ed25519"),
		"/proc/self/exe":                   "/proc/self/exe",
		"/dev/stdin":                       "/proc/self/fd/0",
		"/proc/self/fd":                    "/proc/self/fd",
	} {
		j := l.p.ExamineForProgram(ssh, written)
		if j.Path != want {
			t.Errorf("in ~/.ssh, %s is %s, want %s", written, j.Path, want)
		}
		if wantSecret := strings.HasPrefix(want, ssh); wantSecret != (j.Class == PathSecret) {
			t.Errorf("in ~/.ssh, %s is %v", written, j.Class)
		}
	}
	for written, want := range map[string]PathClass{
		"/proc/self/fd/1":        PathHarmless,
		"/proc/thread-self/fd/2": PathHarmless,
		"/proc/self/fd/0":        PathOutside, // a write through it reopens the input's file
		"/proc/self/environ":     PathOutside, // the program's own, without credentials
		"/proc/1/environ":        PathSecret,
		"/proc/1/task/1/cmdline": PathSecret,
		"/proc/1/mem":            PathSecret,
		"/proc/1":                PathProtected,
		"/proc":                  PathProtected,
		"/proc/cpuinfo":          PathOutside,
	} {
		if j := l.p.ExamineForProgram(l.ws, written); j.Class != want {
			t.Errorf("for a program, %s is %v, want %v", written, j.Class, want)
		}
	}
	if !l.p.ExamineForProgram(l.ws, "/proc/1").HoldsSecret {
		t.Errorf("/proc/1 does not hold a secret")
	}
	// tandem's own view: /proc/self is tandem's pid.
	if j := l.p.Examine(l.ws, "/proc/self/environ"); j.Class != PathSecret || j.Path != fmt.Sprintf("/proc/%d/environ", os.Getpid()) {
		t.Errorf("for tandem, /proc/self/environ is %s %v", j.Path, j.Class)
	}
	// The policy does not look into a program's own entries for it: they
	// would be tandem's.
	if _, err := l.p.ReadFile(ResolveForProgram(l.ws, "/proc/self/environ"), 100); err == nil {
		t.Errorf("ReadFile read tandem's environment for a program")
	}
}

// The credential stores users have are secret wherever the programs keep
// them: under the home, under the XDG directories and their defaults, and
// where a variable moves them.
func TestPolicyKnowsTheStoresUsersHave(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, ws := filepath.Join(tmp, "home"), filepath.Join(tmp, "ws")
	p := NewPolicy(PolicyConfig{Roots: []string{ws}, Home: home, Env: []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + tmp + "/cfg",
		"XDG_DATA_HOME=" + tmp + "/data",
		"CLAUDE_CONFIG_DIR=" + tmp + "/claude",
		"CODEX_HOME=" + tmp + "/codex",
		"CARGO_HOME=" + tmp + "/cargo",
		"PGPASSFILE=" + tmp + "/pg/pass",
		"HISTFILE=" + tmp + "/hist",
	}})
	for path, want := range map[string]PathClass{
		home + "/.config/git/credentials":             PathSecret,
		tmp + "/cfg/git/credentials":                  PathSecret,
		home + "/.config/github-copilot/apps.json":    PathSecret,
		tmp + "/cfg/github-copilot/hosts.json":        PathSecret,
		home + "/.bash_history":                       PathSecret,
		home + "/.zsh_history":                        PathSecret,
		home + "/.python_history":                     PathSecret,
		home + "/.psql_history":                       PathSecret,
		home + "/.mysql_history":                      PathSecret,
		home + "/.node_repl_history":                  PathSecret,
		home + "/.sqlite_history":                     PathSecret,
		home + "/.lesshst":                            PathSecret,
		home + "/.local/share/fish/fish_history":      PathSecret,
		tmp + "/data/fish/fish_history":               PathSecret,
		tmp + "/hist":                                 PathSecret,
		home + "/.claude/.credentials.json":           PathSecret,
		home + "/.claude/settings.json":               PathOutside,
		tmp + "/claude/.credentials.json":             PathSecret,
		home + "/.codex/auth.json":                    PathSecret,
		home + "/.codex/config.toml":                  PathOutside,
		tmp + "/codex/auth.json":                      PathSecret,
		home + "/.pgpass":                             PathSecret,
		tmp + "/pg/pass":                              PathSecret,
		home + "/.vault-token":                        PathSecret,
		home + "/.terraform.d/credentials.tfrc.json":  PathSecret,
		home + "/.terraform.d/plugins/x":              PathOutside,
		home + "/.config/rclone/rclone.conf":          PathSecret,
		home + "/.config/gcloud/credentials.db":       PathSecret,
		home + "/.azure/msal_token_cache.json":        PathSecret,
		home + "/.oci/config":                         PathSecret,
		home + "/.local/share/keyrings/login.keyring": PathSecret,
		home + "/.password-store/x.gpg":               PathSecret,
		home + "/.gnupg/private-keys-v1.d/k":          PathSecret,
		home + "/.config/gh/hosts.yml":                PathSecret,
		home + "/.config/hub":                         PathSecret,
		home + "/.npmrc":                              PathSecret,
		home + "/.pypirc":                             PathSecret,
		home + "/.docker/config.json":                 PathSecret,
		home + "/.kube/config":                        PathSecret,
		home + "/.cargo/credentials.toml":             PathSecret,
		tmp + "/cargo/credentials.toml":               PathSecret,
		home + "/.m2/settings.xml":                    PathSecret,
		home + "/.m2/repository/x.jar":                PathOutside,
		home + "/.gradle/gradle.properties":           PathSecret,
		home + "/.gradle/caches/x":                    PathOutside,
		home + "/.git-credentials":                    PathSecret,
		home + "/.netrc":                              PathSecret,
		home + "/.config":                             PathProtected, // holds secrets
	} {
		if got := p.Judge(path); got != want {
			t.Errorf("Judge(%q) = %v, want %v", path, got, want)
		}
	}
}

// The agents' and daemons' sockets are secret, whether tandem's environment
// names them or they are in their usual places; a directory holding one
// is no secret holder (a recursive read cannot read a socket), so /tmp,
// where ssh-agent puts its socket, asks nothing.
func TestPolicyAgentSockets(t *testing.T) {
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, ws, run := filepath.Join(tmp, "home"), filepath.Join(tmp, "ws"), filepath.Join(tmp, "run")
	agent := filepath.Join(tmp, "ssh-XXXX", "agent.42")
	p := NewPolicy(PolicyConfig{Roots: []string{ws}, Home: home, Env: []string{
		"HOME=" + home,
		"SSH_AUTH_SOCK=" + agent,
		"XDG_RUNTIME_DIR=" + run,
		"DBUS_SESSION_BUS_ADDRESS=unix:path=" + tmp + "/dbus/bus,guid=1;unix:abstract=/tmp/x",
		"DOCKER_HOST=unix://" + tmp + "/d.sock",
	}})
	for path, want := range map[string]PathClass{
		agent:                              PathSecret,
		run + "/gnupg/S.gpg-agent":         PathSecret,
		run + "/gnupg/S.gpg-agent.ssh":     PathSecret,
		run + "/bus":                       PathSecret,
		run + "/docker.sock":               PathSecret,
		run + "/keyring/ssh":               PathSecret,
		tmp + "/dbus/bus":                  PathSecret,
		tmp + "/d.sock":                    PathSecret,
		"/run/docker.sock":                 PathSecret,
		"/var/run/docker.sock":             PathSecret,
		home + "/.docker/run/docker.sock":  PathSecret,
		home + "/.gnupg/S.gpg-agent":       PathSecret,
		filepath.Join(tmp, "ssh-XXXX"):     PathOutside,
		filepath.Join(tmp, "ssh-XXXX/log"): PathOutside,
		run + "/other.sock":                PathOutside,
	} {
		if got := p.Judge(path); got != want {
			t.Errorf("Judge(%q) = %v, want %v", path, got, want)
		}
	}
	if d := filepath.Dir(agent); p.Examine("/", d).HoldsSecret {
		t.Errorf("%s holds an agent's socket and nothing else, yet holds a secret", d)
	}
}
