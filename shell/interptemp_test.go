package shell

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

// The interpreter's own named pipes live in the run's private directory;
// a link planted at a name that looks like one in the temporary directory
// is judged as what it points to.
func TestPlantedInterpreterNameIsJudged(t *testing.T) {
	sb := newTestbed(t)
	planted := filepath.Join(os.TempDir(), "sh-interp-"+strconv.Itoa(os.Getpid()))
	if err := os.Symlink(filepath.Join(sb.home, ".ssh", "id_ed25519"), planted); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(planted) })
	for _, script := range []string{`cat < ` + planted, `echo EVIL >> ` + planted} {
		a := answering(approvals.Deny)
		res := runScript(t, script, sb.opts(approvals.DefaultAuto, a))
		if len(a.asked()) != 1 || strings.Contains(Render(res), "PRIVATE") {
			t.Errorf("%s: asked %d:\n%s", script, len(a.asked()), Render(res))
		}
	}
	if b, _ := os.ReadFile(filepath.Join(sb.home, ".ssh", "id_ed25519")); string(b) != "PRIVATE\n" {
		t.Fatalf("the key changed: %q", b)
	}
	// Process substitution still works, from a directory no other run
	// shares, and gone when the run ends.
	res := runScript(t, `echo <(true); cat < <(echo piped); diff <(echo a) <(echo a) && echo same; stat -c 'mode %a' "$(dirname <(true))"`, sb.opts(approvals.DefaultAuto, answering(approvals.Deny)))
	out := Render(res)
	if !strings.Contains(out, "piped") || !strings.Contains(out, "same") || !strings.Contains(out, "mode 700") || res.Status != 0 {
		t.Fatalf("process substitution:\n%s", out)
	}
	pipe := strings.Fields(out[strings.Index(out, "/"):])[0]
	dir := filepath.Dir(pipe)
	if dir == filepath.Clean(os.TempDir()) || !strings.HasPrefix(filepath.Base(dir), "tandem-sh-") {
		t.Errorf("the pipe %s is not in a private directory", pipe)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("the run's directory %s outlived it", dir)
	}
}
