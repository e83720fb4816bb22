package classify

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"

	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// corpusSteps are the simple commands of the corpus whose words are known
// before they run, as the argv the runner would classify.
func corpusSteps(b *testing.B, f *corpus.Fixture) [][]string {
	cfg := (&walker{env: f.Environ()}).config()
	cfg.ReadDir2 = nil
	var out [][]string
	for _, s := range corpus.Load(b) {
		file, err := syntax.NewParser().Parse(strings.NewReader(s.Src), s.Name)
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
	f := corpus.NewFixture(b)
	steps := corpusSteps(b, f)
	env := f.Environ()
	var times []time.Duration
	for b.Loop() {
		for _, argv := range steps {
			t0 := time.Now()
			Command(argv, f.WS, env, f.Policy)
			times = append(times, time.Since(t0))
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds()), "p50-ns/step")
	b.ReportMetric(float64(times[len(times)*99/100].Nanoseconds()), "p99-ns/step")
	b.ReportMetric(float64(len(steps)), "steps")
}
