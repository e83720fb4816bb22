package core

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomRun drives a bridge of DefaultCapacity with one seeded stream of
// events shaped like a busy session: bash calls coming and going with fresh
// tokens, scripts calling in loops, answers in any order (most of them the
// ones owed, some late, duplicated or for ids never issued), stops, restarts
// and crashes. Every step and state is checked against the laws.
type randomRun struct {
	r      *rand.Rand
	s      State
	f      findings
	owners []owner // in force, as the shell believes
	ended  []Token // tokens of owners that ended
	nextID OwnerID
}

func (run *randomRun) token() Token {
	var t Token
	for i := 0; i < TokenSize; i += 8 {
		v := run.r.Uint64()
		for j := range 8 {
			t[i+j] = byte(v >> (8 * j))
		}
	}
	return t
}

func (run *randomRun) event() (Event, bool) {
	r, s := run.r, &run.s
	switch p := r.IntN(1000); {
	case p < 3:
		return Event{}, true // crash
	case p < 15:
		if s.open {
			return Event{Kind: Stopped}, false
		}
		return Event{Kind: Started}, false
	case p < 60 && !s.open:
		return Event{Kind: Started}, false
	case p < 110:
		run.nextID++
		ev := Event{Kind: OwnerAdded, Owner: run.nextID, Token: run.token()}
		if len(run.owners) > 0 && r.IntN(10) == 0 {
			ev.Token = run.owners[r.IntN(len(run.owners))].token // a duplicate: rejected
		}
		return ev, false
	case p < 150:
		if len(run.owners) == 0 || r.IntN(10) == 0 {
			return Event{Kind: OwnerRemoved, Owner: run.nextID + 1}, false
		}
		return Event{Kind: OwnerRemoved, Owner: run.owners[r.IntN(len(run.owners))].id}, false
	case p < 450:
		ev := Event{Kind: Request, Version: ProtocolVersion}
		switch q := r.IntN(20); {
		case q < 16 && len(run.owners) > 0:
			ev.Token = run.owners[r.IntN(len(run.owners))].token
		case q < 18 && len(run.ended) > 0:
			ev.Token = run.ended[r.IntN(len(run.ended))]
		default:
			ev.Token = run.token()
		}
		if r.IntN(20) == 0 {
			ev.Version = ProtocolVersion + 1 + uint32(r.IntN(3))
		}
		return ev, false
	}
	// An answer: mostly the one owed by a held request, else anything.
	var held []slot
	for _, sl := range s.slots {
		if sl.stage != 0 {
			held = append(held, sl)
		}
	}
	if len(held) > 0 && r.IntN(10) < 8 {
		a := held[r.IntN(len(held))]
		if r.IntN(10) < 7 {
			return owed(a, r.IntN(3) > 0), false
		}
		if r.IntN(2) == 0 {
			return Event{Kind: ClientGone, ID: a.id}, false
		}
		return run.answer(a.id), false
	}
	return run.answer(RequestID(r.IntN(int(s.next) + 3))), false
}

func (run *randomRun) answer(id RequestID) Event {
	r := run.r
	switch r.IntN(4) {
	case 0:
		return Event{Kind: Authorized, ID: id, Allow: r.IntN(2) == 0}
	case 1:
		return Event{Kind: CallFinished, ID: id, Outcome: Outcome(1 + r.IntN(3))}
	case 2:
		return Event{Kind: ReplyDone, ID: id, Lost: r.IntN(5) == 0}
	}
	return Event{Kind: ClientGone, ID: id}
}

// sync keeps the run's view of the owners in force in step with the core's
// (a rejected registration is not in force; a stop revokes every token).
func (run *randomRun) sync() {
	run.owners = run.owners[:0]
	for _, o := range run.s.owners {
		if o.used {
			run.owners = append(run.owners, o)
		}
	}
}

// randomStats says what the sequences exercised.
type randomStats struct{ maxHeld, busy, crashes int }

// randomSequences runs seeds streams of steps events each at DefaultCapacity
// and stops at the first step that breaks a law; failure describes it.
func randomSequences(seeds uint64, steps int) (st randomStats, failure string) {
	for seed := uint64(1); seed <= seeds; seed++ {
		run := randomRun{r: rand.New(rand.NewPCG(seed, 0x6d63702d63616c6c))}
		run.s, _ = New(DefaultCapacity)
		for i := range steps {
			ev, crash := run.event()
			run.f.failed = false
			if crash {
				st.crashes++
				run.s, _ = New(DefaultCapacity)
				checkNew(&run.s, DefaultCapacity, &run.f)
			} else {
				pre := run.s
				out := run.s.Step(ev)
				checkStep(&pre, ev, &run.s, &out, &run.f)
				for _, e := range out.List() {
					if e.Kind == Refuse && e.Reason == Busy {
						st.busy++
					}
				}
				if ev.Kind == OwnerRemoved {
					for _, o := range pre.owners {
						if o.used && o.id == ev.Owner {
							run.ended = append(run.ended, o.token)
						}
					}
				}
			}
			checkState(&run.s, &run.f)
			if i%16 == 0 {
				checkDrained(&run.s, &run.f)
			}
			if run.f.failed {
				return st, fmt.Sprintf("seed %d, step %d (%s):\n%s", seed, i, describe(ev), run.f.summary())
			}
			st.maxHeld = max(st.maxHeld, run.s.Held())
			run.sync()
		}
	}
	return st, ""
}

func TestRandomSequences_capacity_8(t *testing.T) {
	const seeds, steps = 40, 4000
	st, failure := randomSequences(seeds, steps)
	if failure != "" {
		t.Fatal(failure)
	}
	t.Logf("%d seeds × %d events: %d busy refusals, %d crashes, at most %d held", seeds, steps, st.busy, st.crashes, st.maxHeld)
	if st.maxHeld != DefaultCapacity || st.busy == 0 || st.crashes == 0 {
		t.Fatalf("the sequences never filled the bridge or never crashed (%+v): they prove little", st)
	}
}
