package core

import (
	"crypto/subtle"
	"errors"
)

// State is the whole state of one bridge. It is a fixed-size value with no
// pointers: copying it is a snapshot, == compares two states, and Step never
// allocates. The zero State is not usable; start from New.
type State struct {
	open     bool
	capacity uint8
	next     RequestID
	owners   [MaxOwners]owner
	slots    [MaxSlots]slot
}

type owner struct {
	used  bool
	id    OwnerID
	token Token
}

// slot holds one admitted request; stage 0 means free.
type slot struct {
	stage Stage
	id    RequestID
	owner OwnerID
}

// ErrCapacity is returned by New for a capacity outside 1..MaxSlots.
var ErrCapacity = errors.New("bridge capacity must be between 1 and 16")

// New returns the state of a bridge in a new process: closed, no owners,
// no requests, ids from zero (L14).
func New(capacity int) (State, error) {
	if capacity < 1 || capacity > MaxSlots {
		return State{}, ErrCapacity
	}
	return State{capacity: uint8(capacity)}, nil
}

// Open reports whether the bridge admits requests.
func (s *State) Open() bool { return s.open }

// Capacity is the number of requests the bridge holds at most.
func (s *State) Capacity() int { return int(s.capacity) }

// Next returns the id the next admitted request gets.
func (s *State) Next() RequestID { return s.next }

// Held counts the held requests, abandoned ones included.
func (s *State) Held() int {
	n := 0
	for i := range s.slots {
		if s.slots[i].stage != 0 {
			n++
		}
	}
	return n
}

// Stage returns the stage of request id, or 0 if the bridge does not hold
// it.
func (s *State) Stage(id RequestID) Stage {
	if i, ok := s.slotOf(id); ok {
		return s.slots[i].stage
	}
	return 0
}

// Owners counts the owners in force. The shell removes the socket when it
// drops to zero.
func (s *State) Owners() int {
	n := 0
	for i := range s.owners {
		if s.owners[i].used {
			n++
		}
	}
	return n
}

// Step applies one event and returns what the shell must do, in order. It
// does no I/O, reads no clock and takes no lock: the shell calls it from its
// one writer, under its own lock, and runs the effects after.
func (s *State) Step(ev Event) Effects {
	var out Effects
	switch ev.Kind {
	case Started:
		s.open = true
	case Stopped:
		s.stop(&out)
	case OwnerAdded:
		s.addOwner(ev, &out)
	case OwnerRemoved:
		s.removeOwner(ev.Owner, &out)
	case Request:
		s.request(ev, &out)
	case Authorized:
		s.authorized(ev, &out)
	case CallFinished:
		s.callFinished(ev, &out)
	case ReplyDone:
		s.replyDone(ev, &out)
	case ClientGone:
		s.clientGone(ev.ID, &out)
	}
	return out
}

// stop closes the bridge: every token is revoked, every prompt withdrawn and
// every call cancelled (L9, L10). The requests keep their slots until their
// answers arrive (L15).
func (s *State) stop(out *Effects) {
	s.open = false
	s.owners = [MaxOwners]owner{}
	for i := range s.slots {
		s.abandon(i, out)
	}
}

// abandon gives up the live work of slot i: it withdraws a waiting prompt
// or cancels a running call. A reply already being written is left to
// finish.
func (s *State) abandon(i int, out *Effects) {
	sl := &s.slots[i]
	switch sl.stage {
	case Authorizing:
		sl.stage = AbandonedAuth
		out.push(Effect{Kind: Withdraw, ID: sl.id, Owner: sl.owner})
	case Calling:
		sl.stage = AbandonedCall
		out.push(Effect{Kind: Cancel, ID: sl.id, Owner: sl.owner})
	}
}

func (s *State) addOwner(ev Event, out *Effects) {
	free := -1
	for i := range s.owners {
		o := &s.owners[i]
		if !o.used {
			if free < 0 {
				free = i
			}
			continue
		}
		if o.id == ev.Owner || subtle.ConstantTimeCompare(o.token[:], ev.Token[:]) == 1 {
			free = -2 // one token per owner, one owner per token (L13)
			break
		}
	}
	if !s.open || free < 0 {
		out.push(Effect{Kind: Log, Owner: ev.Owner, Log: OwnerRejected})
		return
	}
	s.owners[free] = owner{used: true, id: ev.Owner, token: ev.Token}
}

// removeOwner revokes an owner's token and abandons its live work (L9).
func (s *State) removeOwner(id OwnerID, out *Effects) {
	found := false
	for i := range s.owners {
		if s.owners[i].used && s.owners[i].id == id {
			s.owners[i] = owner{}
			found = true
		}
	}
	if !found {
		out.push(Effect{Kind: Log, Owner: id, Log: OwnerUnknown})
		return
	}
	for i := range s.slots {
		if s.slots[i].stage != 0 && s.slots[i].owner == id {
			s.abandon(i, out)
		}
	}
}

// request admits or refuses a client's request in one step: the checks and
// the slot claim cannot be split (L1). A refusal changes nothing and names
// only the first failed check, in the order closed, unauthorized, version,
// busy (L2).
func (s *State) request(ev Event, out *Effects) {
	refuse := func(r Reason) { out.push(Effect{Kind: Refuse, Reason: r}) }
	if !s.open {
		refuse(Closed)
		return
	}
	who, ok := s.ownerOf(ev.Token)
	if !ok {
		refuse(Unauthorized)
		return
	}
	if ev.Version != ProtocolVersion {
		refuse(BadVersion)
		return
	}
	free := -1
	for i := int(s.capacity) - 1; i >= 0; i-- {
		if s.slots[i].stage == 0 {
			free = i
		}
	}
	if free < 0 {
		refuse(Busy)
		return
	}
	id := s.next
	s.next++
	s.slots[free] = slot{stage: Authorizing, id: id, owner: who}
	out.push(Effect{Kind: Authorize, ID: id, Owner: who})
}

// ownerOf finds the owner whose token is t. It compares t with every token in
// force, in constant time, whether or not one matched already.
func (s *State) ownerOf(t Token) (OwnerID, bool) {
	var who OwnerID
	found := 0
	for i := range s.owners {
		o := &s.owners[i]
		used := 0
		if o.used {
			used = 1
		}
		eq := subtle.ConstantTimeCompare(o.token[:], t[:]) & used
		if eq == 1 {
			who = o.id
		}
		found |= eq
	}
	return who, found == 1
}

// authorized applies the permission answer. Only an allow for a request that
// is waiting for it starts a call, on this step (L4); the answer for a
// withdrawn prompt only frees its slot.
func (s *State) authorized(ev Event, out *Effects) {
	sl := s.answered(ev.ID, out)
	if sl == nil {
		return
	}
	switch {
	case sl.stage == Authorizing && ev.Allow:
		sl.stage = Calling
		out.push(Effect{Kind: Call, ID: sl.id, Owner: sl.owner})
	case sl.stage == Authorizing:
		sl.stage = Replying
		out.push(Effect{Kind: Reply, ID: sl.id, Outcome: Denied})
	case sl.stage == AbandonedAuth:
		*sl = slot{}
	default:
		s.stale(ev.ID, out)
	}
}

// callFinished applies the end of a call: its outcome goes to the client, or
// is dropped and logged if the client left (L7, L12).
func (s *State) callFinished(ev Event, out *Effects) {
	sl := s.answered(ev.ID, out)
	if sl == nil {
		return
	}
	switch sl.stage {
	case Calling:
		sl.stage = Replying
		out.push(Effect{Kind: Reply, ID: sl.id, Outcome: ev.Outcome})
	case AbandonedCall:
		*sl = slot{}
		out.push(Effect{Kind: Log, ID: ev.ID, Log: ResultDropped})
	default:
		s.stale(ev.ID, out)
	}
}

// replyDone frees the slot of a written reply; a reply that could not be
// written whole is logged, never retried (L6, L12).
func (s *State) replyDone(ev Event, out *Effects) {
	i, ok := s.slotOf(ev.ID)
	if !ok || s.slots[i].stage != Replying {
		s.stale(ev.ID, out)
		return
	}
	if ev.Lost {
		out.push(Effect{Kind: Log, ID: ev.ID, Log: ReplyLost})
	}
	s.slots[i] = slot{}
}

// clientGone abandons the work of a client that left. A disconnect that
// comes after the work ended, during the reply (whose ReplyDone reports
// it), or after the work was already abandoned emits nothing (L11); one
// for an id never issued is logged as stale.
func (s *State) clientGone(id RequestID, out *Effects) {
	if id >= s.next {
		s.stale(id, out)
		return
	}
	if i, ok := s.slotOf(id); ok {
		s.abandon(i, out)
	}
}

// stale logs an answer the core does not wait for; it changes nothing (L11).
func (s *State) stale(id RequestID, out *Effects) {
	out.push(Effect{Kind: Log, ID: id, Log: Stale})
}

// answered returns the slot that an answer for id belongs to. For an
// answer that matches no held slot, it logs the answer as stale and
// returns nil.
func (s *State) answered(id RequestID, out *Effects) *slot {
	i, ok := s.slotOf(id)
	if !ok {
		s.stale(id, out)
		return nil
	}
	return &s.slots[i]
}

func (s *State) slotOf(id RequestID) (int, bool) {
	for i := range s.slots {
		if s.slots[i].stage != 0 && s.slots[i].id == id {
			return i, true
		}
	}
	return 0, false
}
