// Package lawhit makes a property test show that it exercised its claim.
// A law such as "a path under a secret is Secret" is checked only by the
// generated cases that reach its assertion; a generator that rarely builds
// such a case passes without proving anything. Each branch of the claim
// counts its cases, and the test fails when a branch got fewer than the
// stated minimum; the counts are logged (go test -v) for the record.
package lawhit

import (
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Counter counts the cases that reached each branch of one law.
type Counter struct {
	mu   sync.Mutex
	hits map[string]int
}

// New starts counting for t's law: when t ends, each branch of min must
// have been reached at least min[branch] times.
func New(t testing.TB, min map[string]int) *Counter {
	t.Helper()
	c := &Counter{hits: map[string]int{}}
	t.Cleanup(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		names := make([]string, 0, len(c.hits))
		for n := range c.hits {
			names = append(names, n)
		}
		sort.Strings(names)
		var parts []string
		for _, n := range names {
			parts = append(parts, n+" "+strconv.Itoa(c.hits[n]))
		}
		t.Logf("cases per branch: %s", strings.Join(parts, ", "))
		for branch, want := range min {
			if c.hits[branch] < want {
				t.Errorf("the law's %q branch was reached by %d generated cases, want at least %d: the generator must build more of them", branch, c.hits[branch], want)
			}
		}
	})
	return c
}

// Hit records that a case reached branch.
func (c *Counter) Hit(branch string) {
	c.mu.Lock()
	c.hits[branch]++
	c.mu.Unlock()
}
