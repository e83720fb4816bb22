package shell

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/internal/prereq"
)

// The conformance suite: small scripts, one file per category under
// testdata/conformance, each run by bash (`bash --norc --noprofile -c`, the
// expectation, computed here and now) and by tandem, in a fresh workspace
// each with a clean environment (HOME in the sandbox, the test's PATH,
// LANG=C). Their output (stdout and stderr together, in order) and exit
// status must be identical, after one normalisation: each side's own
// workspace and home paths read $ROOT and $HOME. A case known to differ
// says why on a `#! differs: …` line (the gate, a feature the interpreter
// refuses with an error naming it, or a gap of the interpreter); it must
// still differ (so the list stays true), and every other case must match. No case may run past
// its time limit: a script that hangs is a failure whatever it says.
//
// The identical-output rate per category is logged (go test -v -run
// TestConformance ./shell/ | grep '^    conformance'), and docs/evidence/shell.md
// reports it.

// conformanceCase is one script of a category file.
type conformanceCase struct {
	name, script string
	differs      string // why the case differs from bash
}

// readConformance parses a category file: `### NAME` starts a case, an
// optional `#! differs: WHY` line follows it, and the lines up to the next
// case are the script.
func readConformance(t *testing.T, path string) []conformanceCase {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []conformanceCase
	var lines []string
	flush := func() {
		if len(out) > 0 {
			out[len(out)-1].script = strings.TrimSuffix(strings.Join(lines, "\n"), "\n") + "\n"
		}
		lines = nil
	}
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "### "):
			flush()
			out = append(out, conformanceCase{name: strings.TrimSpace(l[4:])})
		case strings.HasPrefix(l, "#! differs: ") && len(out) > 0 && len(lines) == 0:
			out[len(out)-1].differs = strings.TrimPrefix(l, "#! differs: ")
		case len(out) > 0:
			lines = append(lines, l)
		}
	}
	flush()
	return out
}

// conformanceLimit bounds one side's run of one case.
const conformanceLimit = 10 * time.Second

type conformanceRun struct {
	out    string
	status int
	hung   bool
}

func (r conformanceRun) String() string {
	if r.hung {
		return fmt.Sprintf("(still running after %v)\n%s", conformanceLimit, r.out)
	}
	return fmt.Sprintf("(status %d)\n%s", r.status, r.out)
}

func (sb *testbed) normalise(s string) string {
	return strings.NewReplacer(sb.root, "$ROOT", sb.home, "$HOME").Replace(s)
}

func runBash(t *testing.T, script string) conformanceRun {
	sb := newTestbed(t)
	ctx, cancel := context.WithTimeout(context.Background(), conformanceLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--norc", "--noprofile", "-c", script)
	cmd.Dir, cmd.Env = sb.root, sb.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	_ = cmd.Run()
	return conformanceRun{out: sb.normalise(out.String()), status: cmd.ProcessState.ExitCode(), hung: ctx.Err() != nil}
}

func runTandem(t *testing.T, script string) conformanceRun {
	sb := newTestbed(t)
	res, hung, err := runBounded(script, conformanceLimit, sb.opts(approvals.DefaultAuto, nil))
	switch {
	case err != nil:
		return conformanceRun{out: err.Error() + "\n", status: 2}
	case hung:
		return conformanceRun{out: fmt.Sprintf("%s\nsteps: %+v", res.Output.Text, res.Steps), hung: true}
	}
	out := sb.normalise(res.Output.Text)
	if res.End == Refused || res.End == Failed {
		// Not a difference to hide: the case shows the gate's or the
		// interpreter's word.
		why := res.Error
		if res.Refusal != nil {
			why = res.Refusal.Error()
		}
		out += fmt.Sprintf("(%s: %s)\n", res.End, why)
	}
	return conformanceRun{out: out, status: res.Status}
}

type conformanceTally struct {
	mu                            sync.Mutex
	cases, same, deliberate, hung int
}

func TestConformance(t *testing.T) {
	prereq.Program(t, "bash", "the expectations are bash's; scripts/setup installs it with apt")
	files, err := filepath.Glob(filepath.Join("testdata", "conformance", "*.sh"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance files: %v", err)
	}
	tallies := map[string]*conformanceTally{}
	t.Run("cases", func(t *testing.T) {
		for _, file := range files {
			category := strings.TrimSuffix(filepath.Base(file), ".sh")
			tally := &conformanceTally{}
			tallies[category] = tally
			for _, c := range readConformance(t, file) {
				t.Run(category+"/"+c.name, func(t *testing.T) {
					t.Parallel()
					want, got := runBash(t, c.script), runTandem(t, c.script)
					same := !got.hung && !want.hung && got.out == want.out && got.status == want.status
					tally.mu.Lock()
					tally.cases++
					if same {
						tally.same++
					}
					if c.differs != "" {
						tally.deliberate++
					}
					if got.hung {
						tally.hung++
					}
					tally.mu.Unlock()
					switch {
					case got.hung:
						t.Errorf("tandem hangs on\n%s%s", c.script, got)
					case want.hung:
						t.Errorf("bash hangs on\n%s%s", c.script, want)
					case same && c.differs != "":
						t.Errorf("identical to bash now; remove the differs line\n%s", c.script)
					case !same && c.differs == "":
						t.Errorf("differs from bash\n%s--- bash %s--- tandem %s", c.script, want, got)
					}
				})
			}
		}
	})
	var names []string
	var all conformanceTally
	for name, c := range tallies {
		names = append(names, name)
		all.cases, all.same, all.deliberate, all.hung = all.cases+c.cases, all.same+c.same, all.deliberate+c.deliberate, all.hung+c.hung
	}
	sort.Strings(names)
	for _, name := range append(names, "all") {
		c := tallies[name]
		if name == "all" {
			c = &all
		}
		if c.cases > 0 {
			t.Logf("conformance %-14s %3d cases  %3d identical (%5.1f%%)  %2d differ, each explained  %d hang", name, c.cases, c.same, 100*float64(c.same)/float64(c.cases), c.deliberate, c.hung)
		}
	}
}
