package core

// mutation plants one known bug in the core so the tests can show that the
// law checks catch it (mutants_test.go sets it for one exploration and puts
// it back). Nothing outside _test.go files sets it: in every build it is
// mutNone and each check below is a comparison that is false.
var mutation mutant

type mutant uint8

// The planted bugs, each named for what it breaks.
const (
	mutNone                   mutant = iota
	mutAdmitAnyVersion               // L1: a request with another version is admitted
	mutVersionBeforeToken            // L2: a stranger learns the bridge's version
	mutBusyBurnsID                   // L2, L3: a busy refusal consumes an id
	mutRestartResetsIDs              // L3: a restart reuses ids still held by old requests
	mutLateAllowRuns                 // L4: a late allow runs a withdrawn call
	mutReplyingAbandoned             // L5: a client leaving mid-reply moves the request back to calling's abandonment
	mutReplyRetried                  // L6: a lost reply is sent a second time
	mutReplyWrongOutcome             // L7: a denial replies ok
	mutCallForFirstOwner             // L8: a call runs with the first owner's access instead of its own
	mutOwnerEndKeepsCalls            // L9: an owner's end leaves its calls running
	mutStopKeepsTokens               // L10: a stopped bridge keeps tokens in force
	mutStaleSilent                   // L11: a stale answer is not logged
	mutDroppedResultSilent           // L12: a result whose client left is dropped without a log line
	mutBusyOffByOne                  // L13: one request more than the capacity is admitted
	mutNewProcessOpen                // L14: a new process starts open
	mutDroppedResultKeepsSlot        // L15: a dropped result never frees its slot
)

// firstOwner is the owner in the first used entry; only mutCallForFirstOwner
// uses it.
func (s *State) firstOwner() OwnerID {
	for i := range s.owners {
		if s.owners[i].used {
			return s.owners[i].id
		}
	}
	return 0
}
