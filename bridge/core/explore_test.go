package core

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The model: a bridge of capacity 2; the editor session's terminal owner and
// two bash calls, each able to register with any of three tokens; a stranger
// token never registered and the all-zero token; up to maxRequests admitted
// requests per process; every event in every state, answers for every id up
// to maxRequests (so also for ids never issued), and a crash (the process
// dies; the next one starts from New).
const (
	modelCapacity    = 2
	modelMaxRequests = 4
	modelOwners      = 3
	unknownOwner     = OwnerID(9) // never added: its removal is stale
)

// modelTokens are the tokens of the model: three an owner may hold, then a
// stranger's (equal to the first but in its last byte, so a comparison that
// stops early would accept it) and the zero token (what a free owner entry
// holds).
var modelTokens = func() [5]Token {
	var t [5]Token
	for i := range 3 {
		for j := range t[i] {
			t[i][j] = byte(0x10*(i+1) + j)
		}
	}
	t[3] = t[0]
	t[3][TokenSize-1] ^= 0xff
	return t
}()

var tokenNames = [5]string{"T1", "T2", "T3", "stranger", "zero"}

func tokenName(t Token) string {
	for i, m := range modelTokens {
		if m == t {
			return tokenNames[i]
		}
	}
	return "?"
}

// modelEvents is every event of the model, in a fixed order.
func modelEvents() []Event {
	evs := []Event{{Kind: Started}, {Kind: Stopped}}
	for o := OwnerID(1); o <= modelOwners; o++ {
		for t := range 3 {
			evs = append(evs, Event{Kind: OwnerAdded, Owner: o, Token: modelTokens[t]})
		}
		evs = append(evs, Event{Kind: OwnerRemoved, Owner: o})
	}
	evs = append(evs, Event{Kind: OwnerRemoved, Owner: unknownOwner})
	for _, t := range modelTokens {
		for _, v := range []uint32{ProtocolVersion, ProtocolVersion + 1} {
			evs = append(evs, Event{Kind: Request, Token: t, Version: v})
		}
	}
	for id := RequestID(0); id <= modelMaxRequests; id++ {
		evs = append(evs,
			Event{Kind: Authorized, ID: id, Allow: true},
			Event{Kind: Authorized, ID: id, Allow: false},
			Event{Kind: CallFinished, ID: id, Outcome: OK},
			Event{Kind: CallFinished, ID: id, Outcome: Failed},
			Event{Kind: CallFinished, ID: id, Outcome: ToolError},
			Event{Kind: ReplyDone, ID: id},
			Event{Kind: ReplyDone, ID: id, Lost: true},
			Event{Kind: ClientGone, ID: id},
		)
	}
	return evs
}

func describe(ev Event) string {
	switch ev.Kind {
	case Started, Stopped:
		return ev.Kind.String()
	case OwnerAdded:
		return fmt.Sprintf("owner_added(%d, %s)", ev.Owner, tokenName(ev.Token))
	case OwnerRemoved:
		return fmt.Sprintf("owner_removed(%d)", ev.Owner)
	case Request:
		return fmt.Sprintf("request(%s, v%d)", tokenName(ev.Token), ev.Version)
	case Authorized:
		return fmt.Sprintf("authorized(%d, allow=%v)", ev.ID, ev.Allow)
	case CallFinished:
		return fmt.Sprintf("call_finished(%d, %s)", ev.ID, ev.Outcome)
	case ReplyDone:
		return fmt.Sprintf("reply_done(%d, lost=%v)", ev.ID, ev.Lost)
	case ClientGone:
		return fmt.Sprintf("client_gone(%d)", ev.ID)
	}
	return "crash"
}

// key is a state of the model, canonical: owners by owner id, held requests
// sorted by id. The core treats slot and owner positions alike, so states
// that differ only there are one state. Five request entries are room for a
// mutant that exceeds the capacity; a state that does not fit is reported.
type key [5 + 3*5]byte

func encode(s *State) (key, bool) {
	var k key
	if s.open {
		k[0] = 1
	}
	if s.next > 250 {
		return k, false
	}
	k[1] = byte(s.next)
	for _, o := range s.owners {
		if !o.used {
			continue
		}
		t := slices.Index(modelTokens[:3], o.token)
		if o.id < 1 || o.id > modelOwners || t < 0 {
			return k, false
		}
		k[1+o.id] = byte(t + 1)
	}
	var buf [MaxSlots]slot
	held := buf[:0]
	for _, sl := range s.slots {
		if sl.stage != 0 {
			held = append(held, sl)
		}
	}
	if len(held) > 5 {
		return k, false
	}
	slices.SortFunc(held, func(a, b slot) int { return int(a.id) - int(b.id) })
	for i, sl := range held {
		if sl.id > 250 || sl.owner > modelOwners {
			return k, false
		}
		k[5+3*i], k[6+3*i], k[7+3*i] = byte(sl.stage), byte(sl.id), byte(sl.owner)
	}
	return k, true
}

func decode(k key) State {
	s := State{open: k[0] == 1, capacity: modelCapacity, next: RequestID(k[1])}
	n := 0
	for o := 1; o <= modelOwners; o++ {
		if t := k[1+o]; t != 0 {
			s.owners[n] = owner{used: true, id: OwnerID(o), token: modelTokens[t-1]}
			n++
		}
	}
	for i := range 5 {
		if st := Stage(k[5+3*i]); st != 0 {
			s.slots[i] = slot{stage: st, id: RequestID(k[6+3*i]), owner: OwnerID(k[7+3*i])}
		}
	}
	return s
}

// parent records how the explorer first reached a state, for traces.
type parent struct {
	from  key
	ev    Event
	crash bool
	root  bool
}

// exploration is the result of one breadth-first exploration.
type exploration struct {
	states, steps int
	findings
	traces [numLaws + 1]string // shortest trace to the first violation of each law
}

// explore visits every state of the model reachable from a new process,
// applies every event (and a crash) to each, and checks every step, every
// state reached and draining from every state. A step that breaks a law is
// recorded with its trace and not expanded further, so a mutant's whole set
// of broken laws is found. With stopAt > 0 the exploration ends at the
// first violation of that law.
func explore(stopAt int) *exploration {
	var x exploration
	seen := map[key]parent{}
	trace := func(k key, last string) string {
		var evs []string
		for p := seen[k]; !p.root; p = seen[p.from] {
			if p.crash {
				evs = append(evs, "crash")
			} else {
				evs = append(evs, describe(p.ev))
			}
		}
		slices.Reverse(evs)
		return strings.Join(append(evs, last), " → ")
	}
	// note records the trace of each law that a check just broke.
	note := func(before *[numLaws + 1]int, k key, last func() string) {
		for l := 1; l <= numLaws; l++ {
			if x.bad[l] > before[l] && x.traces[l] == "" {
				x.traces[l] = trace(k, last())
			}
		}
	}
	events := modelEvents()

	s0, _ := New(modelCapacity)
	checkNew(&s0, modelCapacity, &x.findings)
	checkState(&s0, &x.findings)
	k0, _ := encode(&s0)
	seen[k0] = parent{root: true}
	note(&[numLaws + 1]int{}, k0, func() string { return "new process" })
	queue := []key{k0}
	for len(queue) > 0 && (stopAt == 0 || x.bad[stopAt] == 0) {
		k := queue[0]
		queue = queue[1:]
		x.states++
		pre := decode(k)
		before := x.bad
		checkDrained(&pre, &x.findings)
		note(&before, k, func() string { return "answers owed" })
		// visit checks one transition and queues the state it reaches.
		visit := func(post *State, p parent, check func()) {
			before := x.bad
			x.failed = false
			check()
			checkState(post, &x.findings)
			nk, ok := encode(post)
			if !ok {
				x.fail(13, "state outside the model's bounds")
			}
			if x.failed {
				note(&before, k, func() string {
					if p.crash {
						return "crash"
					}
					return describe(p.ev)
				})
				return
			}
			if _, dup := seen[nk]; !dup {
				seen[nk] = p
				queue = append(queue, nk)
			}
		}
		for _, ev := range events {
			if ev.Kind == Request && pre.next >= modelMaxRequests {
				continue
			}
			x.steps++
			post := pre
			out := post.Step(ev)
			visit(&post, parent{from: k, ev: ev}, func() { checkStep(&pre, ev, &post, &out, &x.findings) })
		}
		x.steps++
		fresh, _ := New(modelCapacity)
		visit(&fresh, parent{from: k, crash: true}, func() { checkNew(&fresh, modelCapacity, &x.findings) })
	}
	return &x
}

// stopAt is set only where TestPlantedBugs runs a law's test on a patched
// copy: one violation of the law is all it must show there.
var stopAt = flag.Int("stopat", 0, "end the exploration at the first violation of law `n`")

var (
	exploreOnce sync.Once
	explored    *exploration
)

// coreExploration explores the core once for all law tests.
func coreExploration(t *testing.T) *exploration {
	t.Helper()
	exploreOnce.Do(func() { explored = explore(*stopAt) })
	return explored
}

// requireLaw fails t if the exploration of the real core found a violation of
// law, or never met a situation the law speaks about.
func requireLaw(t *testing.T, law int) {
	t.Helper()
	x := coreExploration(t)
	t.Logf("%s: %d states, %d steps explored; the law applied %d times", lawNames[law], x.states, x.steps, x.hits[law])
	if x.bad[law] > 0 {
		t.Fatalf("%s broken %d times; first: %s\ntrace: %s", lawNames[law], x.bad[law], x.first[law], x.traces[law])
	}
	if x.hits[law] == 0 {
		t.Fatalf("%s never applied in the exploration: its check proves nothing", lawNames[law])
	}
	if !slices.ContainsFunc(plantedBugs, func(b plantedBug) bool { return b.law == law }) {
		t.Fatalf("%s has no planted bug showing its check can fail", lawNames[law])
	}
}

func TestExploration_finds_no_violation(t *testing.T) {
	x := coreExploration(t)
	t.Logf("explored %d states and %d steps (capacity %d, %d owners, up to %d requests)",
		x.states, x.steps, modelCapacity, modelOwners, modelMaxRequests)
	if v := x.violated(); len(v) > 0 {
		t.Fatalf("the core breaks laws:\n%s", x.summary())
	}
}

func TestLaw_L1_admit_only_valid(t *testing.T)               { requireLaw(t, 1) }
func TestLaw_L2_refusals_are_quiet(t *testing.T)             { requireLaw(t, 2) }
func TestLaw_L3_fresh_ids(t *testing.T)                      { requireLaw(t, 3) }
func TestLaw_L4_call_only_from_authorizing(t *testing.T)     { requireLaw(t, 4) }
func TestLaw_L5_stages_only_advance(t *testing.T)            { requireLaw(t, 5) }
func TestLaw_L6_one_reply_per_request(t *testing.T)          { requireLaw(t, 6) }
func TestLaw_L7_reply_matches_outcome(t *testing.T)          { requireLaw(t, 7) }
func TestLaw_L8_effects_carry_entry_owner(t *testing.T)      { requireLaw(t, 8) }
func TestLaw_L9_live_work_has_owner(t *testing.T)            { requireLaw(t, 9) }
func TestLaw_L10_closed_is_quiet(t *testing.T)               { requireLaw(t, 10) }
func TestLaw_L11_stale_is_quiet(t *testing.T)                { requireLaw(t, 11) }
func TestLaw_L12_dropped_state_is_logged(t *testing.T)       { requireLaw(t, 12) }
func TestLaw_L13_bounded(t *testing.T)                       { requireLaw(t, 13) }
func TestLaw_L14_crash_resets(t *testing.T)                  { requireLaw(t, 14) }
func TestLaw_L15_every_admitted_request_drains(t *testing.T) { requireLaw(t, 15) }
