package core

import (
	"slices"
	"testing"
)

// plantedBug is a known bug the core can be switched to, and the law whose
// check must catch it.
type plantedBug struct {
	m    mutant
	name string
	law  int
}

// plantedBugs lists every mutant in mutation.go with the law it breaks.
var plantedBugs = []plantedBug{
	{mutAdmitAnyVersion, "a request with another version is admitted", 1},
	{mutVersionBeforeToken, "a refusal leaks the version to a stranger", 2},
	{mutBusyBurnsID, "a busy refusal consumes an id", 2},
	{mutRestartResetsIDs, "an id is reused after a restart", 3},
	{mutLateAllowRuns, "a late allow runs a withdrawn call", 4},
	{mutReplyingAbandoned, "a client leaving mid-reply moves its request back", 5},
	{mutReplyRetried, "a reply is sent twice", 6},
	{mutReplyWrongOutcome, "a denial replies ok", 7},
	{mutCallForFirstOwner, "a call acts for another owner", 8},
	{mutOwnerEndKeepsCalls, "an owner's end leaves its calls running", 9},
	{mutStopKeepsTokens, "a stopped bridge keeps tokens in force", 10},
	{mutStaleSilent, "a stale answer is not logged", 11},
	{mutDroppedResultSilent, "a dropped result is not logged", 12},
	{mutBusyOffByOne, "one request more than the capacity is admitted", 13},
	{mutNewProcessOpen, "a new process starts open", 14},
	{mutDroppedResultKeepsSlot, "a dropped result never frees its slot", 15},
}

// withMutation runs fn with the core switched to bug m.
func withMutation(m mutant, fn func()) {
	mutation = m
	defer func() { mutation = mutNone }()
	fn()
}

// TestPlantedBugs shows every law's check can fail: for each planted bug,
// the exploration must report a violation of the law it breaks, and so
// must the seeded random sequences at capacity 8.
func TestPlantedBugs(t *testing.T) {
	for _, b := range plantedBugs {
		t.Run(b.name, func(t *testing.T) {
			var x *exploration
			withMutation(b.m, func() { x = explore(b.law) })
			got := x.violated()
			if !slices.Contains(got, b.law) {
				t.Fatalf("not killed: expected a violation of %s, got %v\n%s", lawNames[b.law], got, x.summary())
			}
			t.Logf("killed by %s after %d states: %s\ntrace: %s", lawNames[b.law], x.states, x.first[b.law], x.traces[b.law])

			// The seeded sequences at capacity 8 catch it too.
			var f findings
			withMutation(b.m, func() { f, _, _ = randomSequences(40, 4000) })
			if !slices.Contains(f.violated(), b.law) {
				t.Fatalf("random sequences missed it: expected %s, got %v", lawNames[b.law], f.violated())
			}
		})
	}
}

// TestPlantedBugs_cover_every_mutant keeps the table and mutation.go in step.
func TestPlantedBugs_cover_every_mutant(t *testing.T) {
	for m := mutNone + 1; m <= mutDroppedResultKeepsSlot; m++ {
		if !slices.ContainsFunc(plantedBugs, func(b plantedBug) bool { return b.m == m }) {
			t.Errorf("mutant %d is not in plantedBugs", m)
		}
	}
}
