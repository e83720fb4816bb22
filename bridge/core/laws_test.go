package core

import (
	"fmt"
	"slices"
	"strings"
)

// The laws L1–L15 as executable checks. checkStep judges one step (the state
// before, the event, the state after and the effects) and checkState one
// state. Both are written from the laws, not from core.go: they recompute
// what a correct step must do with their own simple reference code (plain
// token comparison, their own refusal order, their own stage graph) and
// report every difference under the law it breaks.

// numLaws is the number of laws; index 0 of the arrays below is unused.
const numLaws = 15

var lawNames = [numLaws + 1]string{"",
	"L1 AdmitOnlyValid", "L2 RefusalsAreQuiet", "L3 FreshIds", "L4 CallOnlyFromAuthorizing",
	"L5 StagesOnlyAdvance", "L6 OneReplyPerRequest", "L7 ReplyMatchesOutcome",
	"L8 EffectsCarryEntryOwner", "L9 LiveWorkHasOwner", "L10 ClosedIsQuiet", "L11 StaleIsQuiet",
	"L12 DroppedStateIsLogged", "L13 Bounded", "L14 CrashResets", "L15 Drained",
}

// findings collects, per law, how often its premise applied (hits: a check
// that never applies proves nothing) and its violations.
type findings struct {
	hits  [numLaws + 1]int
	bad   [numLaws + 1]int
	first [numLaws + 1]string
	// failed is set by fail and cleared by the caller after each step, so an
	// explorer can stop expanding a state that broke a law.
	failed bool
}

func (f *findings) hit(law int) { f.hits[law]++ }

func (f *findings) fail(law int, format string, args ...any) {
	f.failed = true
	if f.bad[law] == 0 {
		f.first[law] = fmt.Sprintf(format, args...)
	}
	f.bad[law]++
}

// violated lists the laws with at least one violation.
func (f *findings) violated() []int {
	var laws []int
	for l := 1; l <= numLaws; l++ {
		if f.bad[l] > 0 {
			laws = append(laws, l)
		}
	}
	return laws
}

func (f *findings) summary() string {
	var b strings.Builder
	for _, l := range f.violated() {
		fmt.Fprintf(&b, "%s: %d violations, first: %s\n", lawNames[l], f.bad[l], f.first[l])
	}
	return b.String()
}

// refTokenOwner is the reference lookup: which owner in force holds t.
func refTokenOwner(s *State, t Token) (OwnerID, bool) {
	for _, o := range s.owners {
		if o.used && o.token == t {
			return o.id, true
		}
	}
	return 0, false
}

func refOwnerInForce(s *State, id OwnerID) bool {
	for _, o := range s.owners {
		if o.used && o.id == id {
			return true
		}
	}
	return false
}

func refSlot(s *State, id RequestID) (slot, bool) {
	for _, sl := range s.slots {
		if sl.stage != 0 && sl.id == id {
			return sl, true
		}
	}
	return slot{}, false
}

// waits reports whether a request in stage st waits for an event of kind k.
func waits(st Stage, k EventKind) bool {
	switch k {
	case Authorized:
		return st == Authorizing || st == AbandonedAuth
	case CallFinished:
		return st == Calling || st == AbandonedCall
	case ReplyDone:
		return st == Replying
	}
	return false
}

// forward is the stage graph: the stages a request may move to from st.
func forward(from, to Stage) bool {
	switch from {
	case Authorizing:
		return to == Calling || to == Replying || to == AbandonedAuth
	case Calling:
		return to == Replying || to == AbandonedCall
	}
	return false
}

// ends reports whether ev is the event that ends a request in stage st, the
// only event on which it may leave the table.
func ends(st Stage, ev Event, id RequestID) bool {
	if ev.ID != id {
		return false
	}
	switch st {
	case Replying:
		return ev.Kind == ReplyDone
	case AbandonedAuth:
		return ev.Kind == Authorized
	case AbandonedCall:
		return ev.Kind == CallFinished
	}
	return false
}

func isAnswer(k EventKind) bool { return k == Authorized || k == CallFinished || k == ReplyDone }

func sameEffects(got []Effect, want ...Effect) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// checkState checks the invariants of one reachable state.
func checkState(s *State, f *findings) {
	// L3 IdsBelowNext, L13 one entry per id, at most capacity held.
	held := 0
	for i, a := range s.slots {
		if a.stage == 0 {
			continue
		}
		held++
		if a.id >= s.next {
			f.fail(3, "held id %d is not below next %d", a.id, s.next)
		}
		for _, b := range s.slots[i+1:] {
			if b.stage != 0 && b.id == a.id {
				f.fail(13, "two entries hold id %d", a.id)
			}
		}
		// L9: live work has an owner in force.
		if a.stage == Authorizing || a.stage == Calling {
			f.hit(9)
			if !refOwnerInForce(s, a.owner) {
				f.fail(9, "request %d is %s for owner %d whose token is revoked", a.id, a.stage, a.owner)
			}
		}
	}
	if held > int(s.capacity) {
		f.fail(13, "%d requests held, capacity %d", held, s.capacity)
	}
	if held == int(s.capacity) {
		f.hit(13)
	}
	// L13: one token per owner, one owner per token.
	for i, a := range s.owners {
		if !a.used {
			continue
		}
		for _, b := range s.owners[i+1:] {
			if b.used && (b.id == a.id || b.token == a.token) {
				f.fail(13, "owners %d and %d share an id or a token", a.id, b.id)
			}
		}
	}
	// L10: a closed bridge holds no token and no live work.
	if !s.open {
		f.hit(10)
		if s.Owners() != 0 {
			f.fail(10, "closed bridge holds %d tokens", s.Owners())
		}
		for _, a := range s.slots {
			if a.stage == Authorizing || a.stage == Calling {
				f.fail(10, "closed bridge has request %d %s", a.id, a.stage)
			}
		}
	}
}

// checkNew checks the state a new process starts from (L14).
func checkNew(s *State, capacity int, f *findings) {
	f.hit(14)
	want := State{capacity: uint8(capacity)}
	if *s != want {
		f.fail(14, "a new process starts with open=%v next=%d owners=%d held=%d capacity=%d",
			s.open, s.next, s.Owners(), s.Held(), s.capacity)
	}
}

// checkStep checks one step: pre --ev--> post with effects out.
func checkStep(pre *State, ev Event, post *State, out *Effects, f *findings) {
	effs := out.List()
	unchanged := *post == *pre

	// L13: more than one effect only on a stop or an owner's end.
	if len(effs) > 1 && ev.Kind != Stopped && ev.Kind != OwnerRemoved {
		f.fail(13, "%s emitted %d effects", ev.Kind, len(effs))
	}
	if post.capacity != pre.capacity {
		f.fail(13, "capacity changed from %d to %d", pre.capacity, post.capacity)
	}

	// Admissions: ids held after but not before.
	var buf [MaxSlots]slot
	admitted := buf[:0]
	for _, b := range post.slots {
		if b.stage == 0 {
			continue
		}
		if _, ok := refSlot(pre, b.id); !ok {
			admitted = append(admitted, b)
		}
	}
	for _, b := range admitted {
		f.hit(1)
		who, inForce := refTokenOwner(pre, ev.Token)
		switch {
		case ev.Kind != Request:
			f.fail(1, "request %d admitted on %s", b.id, ev.Kind)
		case len(admitted) > 1:
			f.fail(1, "one request admitted %d entries", len(admitted))
		case !pre.open:
			f.fail(1, "request %d admitted on a closed bridge", b.id)
		case !inForce:
			f.fail(1, "request %d admitted without a token in force", b.id)
		case ev.Version != ProtocolVersion:
			f.fail(1, "request %d admitted with version %d", b.id, ev.Version)
		case pre.Held() >= int(pre.capacity):
			f.fail(1, "request %d admitted with no free slot (%d held, capacity %d)", b.id, pre.Held(), pre.capacity)
		case b.stage != Authorizing:
			f.fail(1, "request %d admitted in stage %s, not waiting for the permission check", b.id, b.stage)
		case b.owner != who:
			f.fail(8, "request %d admitted for owner %d, its token belongs to %d", b.id, b.owner, who)
		case !sameEffects(effs, Effect{Kind: Authorize, ID: b.id, Owner: who}):
			f.fail(1, "admission of %d emitted %v, want one authorize", b.id, effs)
		}
		// L3: each admission takes the next id.
		f.hit(3)
		if b.id != pre.next || post.next != pre.next+1 {
			f.fail(3, "admission took id %d with next %d -> %d", b.id, pre.next, post.next)
		}
	}
	if len(admitted) == 0 && post.next != pre.next {
		f.fail(3, "next moved from %d to %d without an admission (%s)", pre.next, post.next, ev.Kind)
	}

	// L2: a refused request changes nothing and gets the first failed check.
	for _, e := range effs {
		if e.Kind == Refuse && ev.Kind != Request {
			f.fail(2, "refusal on %s", ev.Kind)
		}
	}
	if ev.Kind == Request && len(admitted) == 0 {
		f.hit(2)
		_, inForce := refTokenOwner(pre, ev.Token)
		var want Reason
		switch {
		case !pre.open:
			want = Closed
		case !inForce:
			want = Unauthorized
		case ev.Version != ProtocolVersion:
			want = BadVersion
		case pre.Held() >= int(pre.capacity):
			want = Busy
		}
		switch {
		case want == 0:
			f.fail(2, "a valid request was refused: %v", effs)
		case !unchanged:
			f.fail(2, "refusal (%s) changed the state", want)
		case !sameEffects(effs, Effect{Kind: Refuse, Reason: want}):
			f.fail(2, "request refused with %v, want only %s", effs, want)
		}
	}

	// Effects on existing requests: L4, L6, L7, L8, L9.
	calls, replies := 0, 0
	for _, e := range effs {
		a, held := refSlot(pre, e.ID)
		b, _ := refSlot(post, e.ID)
		switch e.Kind {
		case Call:
			calls++
			f.hit(4)
			if ev.Kind != Authorized || !ev.Allow || ev.ID != e.ID || !held || a.stage != Authorizing || b.stage != Calling {
				f.fail(4, "call for %d on %s (allow=%v, id %d) from stage %s to %s", e.ID, ev.Kind, ev.Allow, ev.ID, a.stage, b.stage)
			}
			f.hit(8)
			if held && e.Owner != a.owner {
				f.fail(8, "call for %d acts for owner %d, the request's owner is %d", e.ID, e.Owner, a.owner)
			}
		case Reply:
			replies++
			f.hit(6)
			if ev.ID != e.ID || !held || (a.stage != Authorizing && a.stage != Calling) || b.stage != Replying {
				f.fail(6, "reply for %d on %s while the request goes from %s to %s", e.ID, ev.Kind, a.stage, b.stage)
			}
			f.hit(7)
			switch ev.Kind {
			case Authorized:
				if e.Outcome != Denied {
					f.fail(7, "a denial of %d replied %s", e.ID, e.Outcome)
				}
			case CallFinished:
				if e.Outcome != ev.Outcome {
					f.fail(7, "call %d ended %s, replied %s", e.ID, ev.Outcome, e.Outcome)
				}
			default:
				f.fail(7, "reply for %d before its result, on %s", e.ID, ev.Kind)
			}
		case Withdraw, Cancel:
			f.hit(9)
			from, to := Authorizing, AbandonedAuth
			if e.Kind == Cancel {
				from, to = Calling, AbandonedCall
			}
			if !held || a.stage != from || b.stage != to {
				f.fail(9, "%s of %d while it goes from %s to %s", e.Kind, e.ID, a.stage, b.stage)
			}
			if held && e.Owner != a.owner {
				f.fail(8, "%s of %d names owner %d, the request's owner is %d", e.Kind, e.ID, e.Owner, a.owner)
			}
		case Authorize:
			f.hit(8)
			if b.owner != e.Owner {
				f.fail(8, "authorize of %d acts for owner %d, the request's owner is %d", e.ID, e.Owner, b.owner)
			}
		}
	}
	if calls > 1 {
		f.fail(4, "%d calls in one step", calls)
	}
	if replies > 1 {
		f.fail(6, "%d replies in one step", replies)
	}

	// L5: stages only advance, owners never change, and a request leaves the
	// table only on the event that ends its stage.
	for _, a := range pre.slots {
		if a.stage == 0 {
			continue
		}
		f.hit(5)
		b, ok := refSlot(post, a.id)
		switch {
		case !ok && !ends(a.stage, ev, a.id):
			f.fail(5, "request %d left the table from %s on %s", a.id, a.stage, ev.Kind)
		case ok && b.owner != a.owner:
			f.fail(5, "request %d changed owner from %d to %d", a.id, a.owner, b.owner)
		case ok && b.stage != a.stage && !forward(a.stage, b.stage):
			f.fail(5, "request %d moved from %s to %s on %s", a.id, a.stage, b.stage, ev.Kind)
		}
	}

	// Every stage change is announced by its effect: the shell learns of a
	// move only through one.
	for _, a := range pre.slots {
		b, ok := refSlot(post, a.id)
		if a.stage == 0 || !ok || b.stage == a.stage {
			continue
		}
		var want EffectKind
		law := 5
		switch b.stage {
		case Calling:
			want, law = Call, 4
		case Replying:
			want, law = Reply, 7
		case AbandonedAuth:
			want, law = Withdraw, 9
		case AbandonedCall:
			want, law = Cancel, 9
		}
		if !slices.ContainsFunc(effs, func(e Effect) bool { return e.Kind == want && e.ID == a.id }) {
			f.fail(law, "request %d moved from %s to %s on %s without a %s effect", a.id, a.stage, b.stage, ev.Kind, want)
		}
	}

	// The owners in force change only as the event says: one added, one
	// removed, or all revoked by a stop; the bridge opens and closes only on
	// started and stopped.
	for _, o := range pre.owners {
		if !o.used || ev.Kind == Stopped || (ev.Kind == OwnerRemoved && ev.Owner == o.id) {
			continue
		}
		if who, ok := refTokenOwner(post, o.token); !ok || who != o.id {
			f.fail(13, "owner %d lost its token on %s", o.id, ev.Kind)
		}
	}
	for _, o := range post.owners {
		if o.used && !(ev.Kind == OwnerAdded && ev.Owner == o.id) && !refOwnerInForce(pre, o.id) {
			f.fail(13, "owner %d came into force on %s", o.id, ev.Kind)
		}
	}
	if post.open != pre.open && ev.Kind != Started && ev.Kind != Stopped {
		f.fail(10, "the bridge went from open=%v to %v on %s", pre.open, post.open, ev.Kind)
	}

	// What each event must do to the requests it names.
	a, held := refSlot(pre, ev.ID)
	switch ev.Kind {
	case Started:
		want := *pre
		want.open = true
		if *post != want || len(effs) != 0 {
			f.fail(10, "started changed more than open: %v", effs)
		}
	case Stopped:
		f.hit(10)
		if post.open || post.Owners() != 0 {
			f.fail(10, "stopped left open=%v with %d tokens", post.open, post.Owners())
		}
		letGo(pre, effs, func(s slot) bool { return true }, f)
	case OwnerAdded:
		f.hit(13)
		_, tokenTaken := refTokenOwner(pre, ev.Token)
		taken := refOwnerInForce(pre, ev.Owner) || tokenTaken
		valid := pre.open && !taken && pre.Owners() < MaxOwners
		want := *pre
		if valid {
			if !refOwnerInForce(post, ev.Owner) || len(effs) != 0 {
				f.fail(13, "a valid owner %d was not put in force: %v", ev.Owner, effs)
			} else if who, _ := refTokenOwner(post, ev.Token); who != ev.Owner {
				f.fail(13, "owner %d put in force with another token", ev.Owner)
			}
		} else if *post != want || !sameEffects(effs, Effect{Kind: Log, Owner: ev.Owner, Log: OwnerRejected}) {
			f.fail(13, "rejected owner %d (open=%v) changed the state or was not logged: %v", ev.Owner, pre.open, effs)
		}
	case OwnerRemoved:
		if !refOwnerInForce(pre, ev.Owner) {
			f.hit(11)
			if !unchanged || !sameEffects(effs, Effect{Kind: Log, Owner: ev.Owner, Log: OwnerUnknown}) {
				f.fail(11, "removal of unknown owner %d changed the state or was not logged: %v", ev.Owner, effs)
			}
			break
		}
		f.hit(9)
		if refOwnerInForce(post, ev.Owner) {
			f.fail(9, "owner %d still in force after its end", ev.Owner)
		}
		letGo(pre, effs, func(s slot) bool { return s.owner == ev.Owner }, f)
	case ClientGone:
		switch {
		case ev.ID >= pre.next:
			f.hit(11)
			if !unchanged || !sameEffects(effs, Effect{Kind: Log, ID: ev.ID, Log: Stale}) {
				f.fail(11, "disconnect of never-issued id %d: %v", ev.ID, effs)
			}
		case held && (a.stage == Authorizing || a.stage == Calling):
			letGo(pre, effs, func(s slot) bool { return s.id == ev.ID }, f)
		default:
			f.hit(11)
			if !unchanged || len(effs) != 0 {
				f.fail(11, "disconnect of %d after its work (%s) changed the state or said %v", ev.ID, a.stage, effs)
			}
		}
	}
	if isAnswer(ev.Kind) {
		checkAnswer(pre, ev, post, effs, a, held, unchanged, f)
	}
	// Log kinds only where they belong.
	for _, e := range effs {
		if e.Kind != Log {
			continue
		}
		switch e.Log {
		case Stale:
			stale := (isAnswer(ev.Kind) && (!held || !waits(a.stage, ev.Kind))) || (ev.Kind == ClientGone && ev.ID >= pre.next)
			if !stale || e.ID != ev.ID {
				f.fail(11, "stale logged for %d on %s in stage %s", e.ID, ev.Kind, a.stage)
			}
		case ResultDropped, ReplyLost:
			if e.ID != ev.ID {
				f.fail(12, "%s logged for %d on an event for %d", e.Log, e.ID, ev.ID)
			}
		}
	}
}

// letGo checks that exactly the live work of the selected requests was let
// go: each waiting prompt withdrawn, each running call cancelled (L9), and
// nothing else emitted.
func letGo(pre *State, effs []Effect, selected func(slot) bool, f *findings) {
	var buf [MaxSlots]Effect
	want := buf[:0]
	for _, a := range pre.slots {
		if a.stage == 0 || !selected(a) {
			continue
		}
		switch a.stage {
		case Authorizing:
			want = append(want, Effect{Kind: Withdraw, ID: a.id, Owner: a.owner})
		case Calling:
			want = append(want, Effect{Kind: Cancel, ID: a.id, Owner: a.owner})
		}
	}
	if len(want) > 0 {
		f.hit(9)
	}
	if len(effs) != len(want) {
		f.fail(9, "letting work go emitted %v, want %v", effs, want)
		return
	}
	for _, w := range want {
		found := false
		for _, e := range effs {
			found = found || e == w
		}
		if !found {
			f.fail(9, "letting work go emitted %v, missing %v", effs, w)
		}
	}
}

// checkAnswer checks an Authorized, CallFinished or ReplyDone event.
func checkAnswer(pre *State, ev Event, post *State, effs []Effect, a slot, held, unchanged bool, f *findings) {
	if !held || !waits(a.stage, ev.Kind) {
		// L11: late, duplicated or never issued: changes nothing, logged.
		f.hit(11)
		if !unchanged || !sameEffects(effs, Effect{Kind: Log, ID: ev.ID, Log: Stale}) {
			f.fail(11, "stale %s for %d (stage %s) changed the state or was not logged: %v", ev.Kind, ev.ID, a.stage, effs)
		}
		return
	}
	switch {
	case a.stage == Authorizing && ev.Allow:
		f.hit(4)
		if !sameEffects(effs, Effect{Kind: Call, ID: ev.ID, Owner: a.owner}) {
			f.fail(4, "allow of waiting %d emitted %v, want one call", ev.ID, effs)
		}
	case a.stage == Authorizing:
		f.hit(7)
		if !sameEffects(effs, Effect{Kind: Reply, ID: ev.ID, Outcome: Denied}) {
			f.fail(7, "denial of %d emitted %v, want reply denied", ev.ID, effs)
		}
	case a.stage == Calling:
		f.hit(7)
		if !sameEffects(effs, Effect{Kind: Reply, ID: ev.ID, Outcome: ev.Outcome}) {
			f.fail(7, "end of call %d (%s) emitted %v", ev.ID, ev.Outcome, effs)
		}
	case a.stage == AbandonedAuth:
		f.hit(4)
		if len(effs) != 0 {
			f.fail(4, "answer for withdrawn prompt %d emitted %v", ev.ID, effs)
		}
	case a.stage == AbandonedCall:
		f.hit(12)
		if !sameEffects(effs, Effect{Kind: Log, ID: ev.ID, Log: ResultDropped}) {
			f.fail(12, "result of %d whose client left: %v, want result_dropped logged", ev.ID, effs)
		}
	case a.stage == Replying && ev.Lost:
		f.hit(12)
		if !sameEffects(effs, Effect{Kind: Log, ID: ev.ID, Log: ReplyLost}) {
			f.fail(12, "lost reply of %d: %v, want reply_lost logged", ev.ID, effs)
		}
	case a.stage == Replying:
		if len(effs) != 0 {
			f.fail(6, "written reply of %d emitted %v", ev.ID, effs)
		}
	}
	// Nothing but the named request changes (whether the event that ends
	// its stage also frees its slot is L15's to check, by draining).
	want := *pre
	if i, ok := want.slotOf(ev.ID); ok {
		if b, ok := refSlot(post, ev.ID); ok {
			want.slots[i] = b
		} else {
			want.slots[i] = slot{}
		}
	}
	if *post != want {
		f.fail(5, "%s for %d changed other requests or owners", ev.Kind, ev.ID)
	}
}

// owed is the answer the shell owes a request in stage st: the permission
// answer, the end of its call, or the end of its reply.
func owed(a slot, allow bool) Event {
	switch a.stage {
	case Authorizing, AbandonedAuth:
		return Event{Kind: Authorized, ID: a.id, Allow: allow}
	case Calling, AbandonedCall:
		o := OK
		if !allow {
			o = Failed
		}
		return Event{Kind: CallFinished, ID: a.id, Outcome: o}
	}
	return Event{Kind: ReplyDone, ID: a.id, Lost: !allow}
}

// checkDrained checks L15 from s: giving every request the answers owed
// (allowing and succeeding, or denying and failing) empties the table within
// three answers per request.
func checkDrained(s *State, f *findings) {
	held := s.Held()
	if held == 0 {
		return
	}
	f.hit(15)
	for _, allow := range [2]bool{true, false} {
		d := *s
		for n := 0; d.Held() > 0; n++ {
			if n > 3*held {
				f.fail(15, "%d requests still held after %d owed answers (allow=%v)", d.Held(), n, allow)
				return
			}
			for _, a := range d.slots {
				if a.stage != 0 {
					d.Step(owed(a, allow))
					break
				}
			}
		}
	}
}
