package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/internal/prereq"
)

// A Go build that fails in the sandbox prints Go's lower-case errors
// ("mkdir …: permission denied"); the note still names the place and the
// exact access that opens it, as the sandbox's own rules decide.
func TestSandboxNoteNamesTheAccessForGoErrors(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		prereq.Missing(t, "go", "install Go")
		return
	}
	sb := newTestbed(t)
	for name, body := range map[string]string{"go.mod": "module hello\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"} {
		if err := os.WriteFile(filepath.Join(sb.root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sb.env = append(sb.env, "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "CGO_ENABLED=0", "PATH="+filepath.Dir(goBin)+":"+os.Getenv("PATH"))
	res := runScript(t, "go build ./...", sb.opts(approvals.DefaultAuto, nil))
	if res.Status == 0 || !strings.Contains(res.Output.Text, "read-only file system") && !strings.Contains(res.Output.Text, "permission denied") {
		t.Fatalf("the build did not fail with Go's own error:\n%s", Render(res))
	}
	// The home holds a secret (~/.ssh) and protected startup files: making
	// ~/.cache beside them takes all three, as the kernel's rules say.
	want := approvals.Of(approvals.Outside, approvals.Protected, approvals.Secret)
	if !strings.Contains(res.Sandbox, "refusal of "+filepath.Join(sb.home, ".cache")) || !strings.Contains(res.Sandbox, `"access": [`+quotedNames(want)+`]`) ||
		!strings.Contains(res.Sandbox, "writing it needs outside, protected, secret together") {
		t.Fatalf("the note does not name the place and the access to ask for:\n%s", Render(res))
	}
	// The access the note names is what opens it: with it, the cache the
	// build failed to make is made.
	o := sb.opts(approvals.DefaultAuto, nil)
	o.Grant = want
	cache := filepath.Join(sb.home, ".cache", "go-build")
	if res := runScript(t, `python3 -c 'import os, sys; os.makedirs(sys.argv[1])' $(cat cache.txt)`, withFile(t, sb, "cache.txt", cache, o)); res.Status != 0 {
		t.Fatalf("making the cache with the access the note named:\n%s", Render(res))
	}
}

// withFile writes name in the workspace holding text, and returns o.
func withFile(t *testing.T, sb *testbed, name, text string, o Options) Options {
	t.Helper()
	if err := os.WriteFile(filepath.Join(sb.root, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return o
}

// A Go program's read of a private place of the home fails with Go's
// "permission denied"; the note names the file and outside, the one grant
// that opens it. The program takes the path from a file, so the gate
// cannot see it and the kernel is what refuses.
func TestSandboxNoteNamesOutsideForAGoRead(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		prereq.Missing(t, "go", "install Go")
		return
	}
	sb := newTestbed(t)
	src := filepath.Join(t.TempDir(), "readit.go")
	if err := os.WriteFile(src, []byte("package main\n\nimport (\n\t\"fmt\"\n\t\"os\"\n\t\"strings\"\n)\n\n"+
		"func main() {\n\tb, _ := os.ReadFile(\"path.txt\")\n\tif _, err := os.ReadFile(strings.TrimSpace(string(b))); err != nil {\n\t\tfmt.Println(err)\n\t\tos.Exit(1)\n\t}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(goBin, "build", "-o", filepath.Join(sb.root, "readit"), src).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	private := filepath.Join(sb.home, "notes", "x.go")
	if err := os.MkdirAll(filepath.Dir(private), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(private, []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := runScript(t, "./readit", withFile(t, sb, "path.txt", private, sb.opts(approvals.DefaultAuto, nil)))
	if res.Status == 0 || !strings.Contains(res.Output.Text, "open "+private+": permission denied") {
		t.Fatalf("the program did not fail with Go's error:\n%s", Render(res))
	}
	if !strings.Contains(res.Sandbox, "refusal of "+private+": the sandbox keeps it from a step without outside (reading it needs outside: it is in the home directory") || !strings.Contains(res.Sandbox, `"access": ["outside"]`) {
		t.Fatalf("the note does not name the file and outside:\n%s", Render(res))
	}
	o := sb.opts(approvals.DefaultAuto, nil)
	o.Grant = approvals.Of(approvals.Outside)
	if res := runScript(t, "./readit", o); res.Status != 0 {
		t.Fatalf("the read with the access the note named:\n%s", Render(res))
	}
}
