package shell

import (
	"sort"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// corpusSteps are the simple commands of the corpus whose words are known
// before they run, as the argv the runner would classify.
func corpusSteps(b *testing.B, f *corpusFixture) [][]string {
	cfg := (&walker{env: f.environ()}).config()
	cfg.ReadDir2 = nil
	var out [][]string
	for _, s := range loadCorpus(b) {
		file, err := syntax.NewParser().Parse(strings.NewReader(s.src), s.name)
		if err != nil {
			b.Fatal(err)
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
				if argv, err := expand.Fields(cfg, call.Args...); err == nil && len(argv) > 0 {
					out = append(out, argv)
				}
			}
			return true
		})
	}
	return out
}

// BenchmarkClassifyStep classifies every step of the adversarial corpus, one
// at a time as the runner does before each runs, and reports the median and
// 99th percentile time of one step.
func BenchmarkClassifyStep(b *testing.B) {
	f := newCorpusFixture(b)
	steps := corpusSteps(b, f)
	env := f.environ()
	var times []time.Duration
	for b.Loop() {
		for _, argv := range steps {
			t0 := time.Now()
			Classify(argv, f.ws, env, f.policy)
			times = append(times, time.Since(t0))
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns/step")
	b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds()), "p99-ns/step")
	b.ReportMetric(float64(len(steps)), "steps")
}
