package shell

import (
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/internal/prereq"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// With exec out of the auto set, a script that writes ~/.lesskey (a plain
// file outside the workspace) and then reads a file with less must not get
// the program its #env LESSOPEN names run unasked.
func TestLessIgnoresTheLesskeyFilesAStepWrote(t *testing.T) {
	prereq.Program(t, "less", "scripts/setup installs it with apt")
	f := corpus.NewFixture(t)
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
