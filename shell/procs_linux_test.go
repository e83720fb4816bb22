package shell

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

// A step's process starts bounded, sandboxed or not: its tasks (RLIMIT_NPROC,
// soft and hard) at the system's tasks plus stepTasks, and the OOM killer's
// first choice (the sandbox may hide /proc/self from it). The program reads
// its own limits after a moment, so the bounds set as it started are in
// place.
func TestAStepsProcessesAreBounded(t *testing.T) {
	sb := newTestbed(t)
	script := `python3 -c '
import resource, time
time.sleep(0.3)
print("Max processes", *resource.getrlimit(resource.RLIMIT_NPROC))
try:
    print("oom", open("/proc/self/oom_score_adj").read())
except OSError as e:
    print("oom unreadable", e)
'`
	for _, sandboxed := range []bool{false, true} {
		o := sb.opts(approvals.DefaultAuto, answering(approvals.Deny))
		if !sandboxed {
			o.Sandbox = nil
		} else if o.Sandbox == nil {
			t.Log("no sandbox here; the sandboxed case is the unsandboxed one")
		}
		tasks, _ := systemTasks()
		res := runScript(t, script, o)
		out := res.Output.Text
		if res.End != Finished || res.Status != 0 {
			t.Fatalf("sandboxed=%v: %s", sandboxed, Render(res))
		}
		m := regexp.MustCompile(`Max processes\s+(\d+)\s+(\d+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("sandboxed=%v: no bounded process limit in:\n%s", sandboxed, out)
		}
		soft, _ := strconv.ParseUint(m[1], 10, 64)
		hard, _ := strconv.ParseUint(m[2], 10, 64)
		if hard > tasks+stepTasks+1024 || soft > hard {
			t.Errorf("sandboxed=%v: the step may have %d (soft) / %d (hard) tasks; the system had %d", sandboxed, soft, hard, tasks)
		}
		if !strings.Contains(out, "oom 1000") && (!sandboxed || !strings.Contains(out, "oom unreadable")) {
			t.Errorf("sandboxed=%v: the step is not the OOM killer's first choice:\n%s", sandboxed, out)
		}
	}
}
