package shell

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

// A lesskey file's #env section can set LESSOPEN, and less then runs that
// program on every file it shows: naming such a file is exec.
func TestLessWithALesskeyFileIsExec(t *testing.T) {
	f := newCorpusFixture(t)
	for _, argv := range [][]string{
		{"less", "--lesskey-src=src/a.go", "README.md"},
		{"less", "--lesskey-s", "src/a.go", "README.md"},
		{"less", "-k", "src/a.go", "README.md"},
		{"less", "--lesskey-file=src/a.go", "README.md"},
		{"less", "--lesskey-content=#env\nLESSOPEN=|id %s", "README.md"},
	} {
		if s := Classify(argv, f.ws, nil, f.policy); !s.Effects.Has(approvals.Exec) {
			t.Errorf("%q: %v, want exec", argv, s.Effects)
		}
	}
	if s := Classify([]string{"less", "README.md"}, f.ws, nil, f.policy); s.Effects.Has(approvals.Exec) {
		t.Errorf("less README.md: %v, want no exec", s.Effects)
	}
}

// With exec out of the auto set, a script that writes ~/.lesskey (a plain
// file outside the workspace) and then reads a file with less must not get
// the program its #env LESSOPEN names run unasked.
func TestLessIgnoresTheLesskeyFilesAStepWrote(t *testing.T) {
	if _, err := exec.LookPath("less"); err != nil {
		t.Skip("less is not installed")
	}
	f := newCorpusFixture(t)
	lesskey := `printf '#env\nLESSOPEN=|echo RAN-%%s\n'`
	src := lesskey + " > ~/.lesskey\n" +
		lesskey + " > ~/.config/lesskey\n" +
		"less README.md\n"
	a := &asker{}
	res := runCorpus(t, f, src, approvals.Of(approvals.Read, approvals.Write, approvals.Outside), a)
	if strings.Contains(res.Output.Text, "RAN-") {
		t.Fatalf("less ran the program a lesskey file named, unasked:\n%s", res.Output.Text)
	}
	if res.End != Finished || res.Status != 0 || !strings.Contains(res.Output.Text, "# ws") {
		t.Fatalf("less did not show the file: %s %d %q", res.End, res.Status, res.Output.Text)
	}
}
