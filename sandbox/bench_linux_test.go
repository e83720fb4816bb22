package sandbox

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/tandemdev/tandem/approvals"
)

// BenchmarkProcessStart is what the sandbox adds to starting and waiting
// for one process (cat /dev/null), with a session's policy of this machine's
// home and the default auto set without outside and protected, in a root
// with a repository: plain, sandboxed and launched starts (a program the
// gate cannot see into, which its grant's spawner starts as it starts any
// other) alternate, and the p50 and p99 of each are reported.
func BenchmarkProcessStart(b *testing.B) {
	if err := Supported().Unavailable; err != nil {
		b.Fatal(err)
	}
	home, _ := os.UserHomeDir()
	root := b.TempDir()
	for _, dir := range []string{".git/hooks", ".git/objects"} {
		if err := os.MkdirAll(root+"/"+dir, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(root+"/.git/config", []byte("[core]\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	p := approvals.NewPolicy(approvals.PolicyConfig{Roots: []string{root}, Home: home, Env: os.Environ(),
		Scratch: approvals.DefaultScratch(home, os.Environ())})
	box, err := New(p)
	if err != nil {
		b.Fatal(err)
	}
	defer box.Close()
	grant := approvals.DefaultAuto &^ approvals.Of(approvals.Outside, approvals.Protected)
	run := func(start func(*exec.Cmd) error) time.Duration {
		cmd := exec.Command("cat", "/dev/null")
		t := time.Now()
		if err := start(cmd); err != nil {
			b.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
		return time.Since(t)
	}
	sandboxed := func(c *exec.Cmd) error { return box.Start(c, grant, approvals.Of(approvals.Read), processUmask) }
	launched := func(c *exec.Cmd) error { return box.Start(c, grant, approvals.Of(approvals.Exec), processUmask) }
	run(sandboxed) // builds the ruleset once, as a session's first step does
	var plain, boxed, launches []time.Duration
	for b.Loop() {
		plain = append(plain, run((*exec.Cmd).Start))
		boxed = append(boxed, run(sandboxed))
		launches = append(launches, run(launched))
	}
	pct := func(ds []time.Duration, q float64) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[int(q*float64(len(s)-1))].Microseconds())
	}
	b.ReportMetric(pct(plain, 0.5), "plain-p50-µs")
	b.ReportMetric(pct(plain, 0.99), "plain-p99-µs")
	b.ReportMetric(pct(boxed, 0.5), "sandboxed-p50-µs")
	b.ReportMetric(pct(boxed, 0.99), "sandboxed-p99-µs")
	b.ReportMetric(pct(boxed, 0.5)-pct(plain, 0.5), "added-p50-µs")
	b.ReportMetric(pct(boxed, 0.99)-pct(plain, 0.99), "added-p99-µs")
	b.ReportMetric(pct(launches, 0.5)-pct(plain, 0.5), "launched-added-p50-µs")
	b.ReportMetric(pct(launches, 0.99)-pct(plain, 0.99), "launched-added-p99-µs")
}
