package shell

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/interp"

	"github.com/tandemdev/tandem/refusal"
)

// The bounds of what one script may hold in tandem's process. Every script
// runs inside tandem, so a script that grew without end (`x=$x$x` in a loop,
// `: "$(yes)"`, `f() { f | f; }; f`) would end tandem and every session of
// the editor with it.
const (
	// ValueBytes bounds each string a script makes: a variable's value (an
	// array's elements together), one expansion, a command substitution's
	// output, a here-document or here-string, a line read, the script a
	// shell reads.
	ValueBytes = 4 << 20
	// XargsInputBytes bounds the input tandem's xargs reads before it runs
	// its commands (a long list of file names is everyday input).
	XargsInputBytes = 64 << 20
	// NestDepth bounds function calls, eval, source and sh -c nested in one
	// another.
	NestDepth = 1000
	// SubshellsAtOnce bounds the subshells of a run running at once:
	// pipeline stages, `&` commands, process substitutions.
	SubshellsAtOnce = 256
	// StepsRecorded is how many steps a run records; the steps past it run
	// (and are gated) as the others, and are only counted.
	StepsRecorded = 10000
	// stepTextKept is how much of a step's text its record keeps.
	stepTextKept = 4 << 10
	// MemoryBound is the Go heap (objects and goroutine stacks) tandem lets
	// its running scripts take it to: past it every running script is
	// stopped. The bounds above hold each value; this one holds many of
	// them together.
	MemoryBound = 1 << 30
)

// newLimits returns a run's bounds, shared by every interpreter of the run.
func newLimits() *interp.Limits {
	return &interp.Limits{Bytes: ValueBytes, Depth: NestDepth, Subshells: SubshellsAtOnce}
}

// errMemory is the error that ends a run stopped because tandem's memory
// passed MemoryBound.
var errMemory = &interp.LimitError{Limit: "bytes of tandem's memory", Max: MemoryBound}

// boundRefusal returns what the model reads of a run that a bound stopped:
// which bound, and what to do instead.
func boundRefusal(le *interp.LimitError) *refusal.Error {
	const stopped = "and was stopped there; earlier steps' changes stay."
	var text string
	switch {
	case le.Limit == interp.BytesLimit:
		text = fmt.Sprintf("The script made a value larger than tandem's bound of %d MiB for one value (a variable, an expansion, a command substitution's output, a here-document, a line read, a script or input a shell or xargs reads), %s Keep large data in files and let programs read them (`cmd > out.txt`, then `grep … out.txt`) instead of holding it in the shell, then call again.", le.Max>>20, stopped)
	case le.Limit == interp.DepthLimit:
		text = fmt.Sprintf("The script nested function calls, eval, source and sh -c deeper than tandem's bound of %d, %s Give the recursion an end, or use a loop, then call again.", le.Max, stopped)
	case le.Limit == interp.SubshellsLimit:
		text = fmt.Sprintf("The script ran more subshells at once (pipeline stages, `&` commands, process substitutions) than tandem's bound of %d, %s Start fewer at once (`wait` for background commands before starting more), then call again.", le.Max, stopped)
	case le == errMemory:
		text = fmt.Sprintf("tandem's memory passed its bound of %d MiB while the script ran, %s Every script running then was stopped. Keep large data in files rather than in shell variables, then call again.", le.Max>>20, stopped)
	default:
		text = fmt.Sprintf("The script went past tandem's bound of %d %s, %s Change it to hold less, then call again.", le.Max, le.Limit, stopped)
	}
	return refusal.New(refusal.TooLarge, text)
}

// readBounded reads r to its end, or fails past max bytes.
func readBounded(r io.Reader, max int) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
	if err == nil && len(b) > max {
		return nil, &interp.LimitError{Limit: interp.BytesLimit, Max: max}
	}
	return b, err
}

// running is every run whose interpreter is going on: the memory watch
// stops them when tandem's memory passes MemoryBound.
var running = struct {
	sync.Mutex
	runs     map[*Run]bool
	watching bool
}{runs: map[*Run]bool{}}

// watchEvery is how often the memory watch reads the heap.
const watchEvery = 50 * time.Millisecond

func (x *Run) watchMemory() {
	// Garbage an earlier script left (one stopped at a bound leaves much)
	// is no new script's to pay for: it is collected before the watch
	// counts this one.
	if heapBytes() > MemoryBound/2 {
		runtime.GC()
	}
	running.Lock()
	defer running.Unlock()
	running.runs[x] = true
	if !running.watching {
		running.watching = true
		go watchHeap()
	}
}

func (x *Run) unwatchMemory() {
	running.Lock()
	delete(running.runs, x)
	running.Unlock()
}

// heapBytes returns the bytes of Go objects (live and not yet collected) and
// of goroutine stacks: a script's deep recursions in many subshells at once
// are stacks, not objects.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() + s[1].Value.Uint64()
}

func watchHeap() {
	for {
		time.Sleep(watchEvery)
		over := heapBytes() > MemoryBound
		running.Lock()
		if len(running.runs) == 0 {
			running.watching = false
			running.Unlock()
			return
		}
		var stop []*Run
		if over {
			for x := range running.runs {
				stop = append(stop, x)
			}
		}
		running.Unlock()
		for _, x := range stop {
			x.stopBounded(errMemory)
		}
	}
}

// stopBounded ends the run because of a bound, unless it ended already.
func (x *Run) stopBounded(le *interp.LimitError) {
	x.mu.Lock()
	if x.bounded == nil && x.result.End == "" {
		x.bounded = le
	}
	x.mu.Unlock()
	x.cancel()
}

// asLimit returns the bound that err reports, when a bound ended the run.
func asLimit(err error) (*interp.LimitError, bool) {
	var le *interp.LimitError
	if errors.As(err, &le) {
		return le, true
	}
	return nil, false
}
