package shell

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/internal/procstatus"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// peakRSS is the process's peak resident set since the last resetPeakRSS
// (VmHWM), in bytes.
func peakRSS(t *testing.T) int64 {
	t.Helper()
	kb, err := procstatus.KiB("VmHWM")
	if err != nil {
		t.Skip(err)
	}
	return kb << 10
}

// resetPeakRSS starts a new peak: the memory of earlier cases is collected
// and given back, and VmHWM restarts from the resident set now.
func resetPeakRSS(t *testing.T) {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak resident set: %v", err)
	}
}

// RSSBound is the peak resident set the tests hold a script that tries to
// exhaust tandem's memory to (docs/evidence/shell.md states it).
const RSSBound = 1536 << 20

// TestScriptsPastABoundEndAndTandemStaysSmall runs the corpus's resource
// cases (360–379), and recursions that hold goroutine stacks, for real: each
// would take the process's memory or stack without end (several ended
// tandem). Each ends within seconds, as
// "bounded" with a too_large refusal that names the bound and says what to
// do instead, and the process's peak resident set stays under RSSBound. The
// long loop of builtins runs to its end with its record cut at
// StepsRecorded steps.
func TestScriptsPastABoundEndAndTandemStaysSmall(t *testing.T) {
	scripts := []corpus.Script{{
		// Stacks, not objects: 250 background recursions 990 deep.
		Name: "deep-recursions-in-many-subshells.sh",
		Src:  `g() { if [ "$1" -lt 990 ]; then g $(($1+1)); else sleep 30; fi; }; for i in $(seq 250); do g 0 & done; wait`,
	}}
	for _, s := range corpus.Load(t) {
		if n, _ := strconv.Atoi(s.Name[:3]); n >= 360 && n <= 379 {
			scripts = append(scripts, s)
		}
	}
	for _, s := range scripts {
		t.Run(strings.TrimSuffix(s.Name, ".sh"), func(t *testing.T) {
			f := corpus.NewFixture(t)
			resetPeakRSS(t)
			start := time.Now()
			res := runCorpus(t, f, s.Src, approvals.DefaultAuto, answering(approvals.Deny))
			took, peak := time.Since(start), peakRSS(t)
			t.Logf("%s after %v, peak RSS %d MiB", res.End, took.Round(time.Millisecond), peak>>20)
			if peak > RSSBound {
				t.Errorf("the peak resident set was %d MiB, over the bound of %d MiB", peak>>20, RSSBound>>20)
			}
			if res.End == Finished {
				if res.Unrecorded == 0 || len(res.Steps) != StepsRecorded || !strings.Contains(Render(res), "more steps, not recorded") {
					t.Fatalf("finished without a bound: %d steps recorded, %d not\n%s", len(res.Steps), res.Unrecorded, Render(res))
				}
				return
			}
			if res.End != Bounded || res.Refusal == nil || res.Refusal.Code != refusal.TooLarge {
				t.Fatalf("ended %s after %v, want bounded:\n%s", res.End, took, Render(res))
			}
			text := res.Refusal.Text
			if !strings.Contains(text, "bound of") || !strings.HasSuffix(text, "then call again.") {
				t.Errorf("the refusal does not name the bound and the next action: %s", text)
			}
		})
	}
}

// A long text is cut in a step's record, not in what runs.
func TestALongStepIsCutInItsRecord(t *testing.T) {
	sb := newTestbed(t)
	long := strings.Repeat("a", 3*stepTextKept)
	res := runScript(t, "echo "+long+" | wc -c", sb.opts(approvals.DefaultAuto, answering(approvals.Deny)))
	if res.End != Finished || !bytes.Contains([]byte(res.Output.Text), []byte(strconv.Itoa(len(long)+1))) {
		t.Fatalf("%s", Render(res))
	}
	if got := res.Steps[0].Text; len(got) > stepTextKept+64 || !strings.HasSuffix(got, "bytes in all)") {
		t.Fatalf("the record kept %d bytes of the step's text: %.80q…", len(got), got)
	}
}

// A job stopped by a bound says so, as its call's result would: bounded,
// not refused at a step it never reached.
func TestABoundedJobSaysItWasBounded(t *testing.T) {
	sb := newTestbed(t)
	r, err := Start(context.Background(), `x=a; while :; do x=$x$x; done`, sb.opts(approvals.DefaultAuto, nil))
	if err != nil {
		t.Fatal(err)
	}
	jobs := NewJobs(nil)
	defer jobs.Close()
	j := jobs.Add(r, "the doubling")
	<-r.Done()
	if info := j.Info(); info.State != string(Bounded) || !strings.HasPrefix(info.Refusal, "bounded (too_large): ") {
		t.Errorf("the job's end: %s %q", info.State, info.Refusal)
	}
}
