package core

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"
)

func TestNew_refuses_capacity_out_of_range(t *testing.T) {
	for _, c := range []int{-1, 0, MaxSlots + 1} {
		if _, err := New(c); err != ErrCapacity {
			t.Errorf("New(%d) = %v, want ErrCapacity", c, err)
		}
	}
	for _, c := range []int{1, DefaultCapacity, MaxSlots} {
		if s, err := New(c); err != nil || s.Capacity() != c {
			t.Errorf("New(%d) = capacity %d, %v", c, s.Capacity(), err)
		}
	}
}

// TestStep_allocates_nothing: the core runs on every request event of a
// busy bridge; its effects live in a fixed array.
func TestStep_allocates_nothing(t *testing.T) {
	s, _ := New(DefaultCapacity)
	tok := Token{1, 2, 3}
	s.Step(Event{Kind: Started})
	owner := OwnerID(0)
	allocs := testing.AllocsPerRun(200, func() {
		owner++
		s.Step(Event{Kind: OwnerAdded, Owner: owner, Token: tok})
		out := s.Step(Event{Kind: Request, Token: tok, Version: ProtocolVersion})
		id := out.At(0).ID
		s.Step(Event{Kind: Authorized, ID: id, Allow: true})
		s.Step(Event{Kind: CallFinished, ID: id, Outcome: OK})
		s.Step(Event{Kind: ReplyDone, ID: id})
		s.Step(Event{Kind: Authorized, ID: id}) // stale: logged
		s.Step(Event{Kind: OwnerRemoved, Owner: owner})
	})
	if allocs != 0 {
		t.Fatalf("a request's steps allocate %.1f times", allocs)
	}
}

// TestOwners_past_the_bound_are_rejected: the owner table is fixed; one past
// MaxOwners is left out and logged, and its token is refused like a stranger's.
func TestOwners_past_the_bound_are_rejected(t *testing.T) {
	s, _ := New(DefaultCapacity)
	s.Step(Event{Kind: Started})
	var f findings
	for i := range MaxOwners + 1 {
		pre := s
		ev := Event{Kind: OwnerAdded, Owner: OwnerID(i), Token: Token{byte(i), 0xaa}}
		out := s.Step(ev)
		checkStep(&pre, ev, &s, &out, &f)
		if i == MaxOwners && !sameEffects(out.List(), Effect{Kind: Log, Owner: OwnerID(i), Log: OwnerRejected}) {
			t.Fatalf("owner %d past the bound: %v", i, out.List())
		}
	}
	if s.Owners() != MaxOwners || f.failed {
		t.Fatalf("%d owners in force; %s", s.Owners(), f.summary())
	}
	out := s.Step(Event{Kind: Request, Token: Token{MaxOwners, 0xaa}, Version: ProtocolVersion})
	if !sameEffects(out.List(), Effect{Kind: Refuse, Reason: Unauthorized}) {
		t.Fatalf("the rejected owner's token got %v", out.List())
	}
	out = s.Step(Event{Kind: Request, Token: Token{MaxOwners - 1, 0xaa}, Version: ProtocolVersion})
	if out.At(0).Kind != Authorize || out.At(0).Owner != MaxOwners-1 {
		t.Fatalf("the last owner in force got %v", out.List())
	}
}

// TestToken_never_formats: a token printed by mistake shows no byte of it.
func TestToken_never_formats(t *testing.T) {
	tok := Token{0xde, 0xad, 0xbe, 0xef}
	ev := Event{Kind: Request, Token: tok}
	for _, verb := range []string{"%v", "%+v", "%#v", "%x", "%X", "%s", "%q", "%d"} {
		for _, v := range []any{tok, ev, &ev} {
			got := fmt.Sprintf(verb, v)
			if !strings.Contains(got, "[token]") || strings.Contains(strings.ToLower(got), "dead") || strings.Contains(got, "222") {
				t.Errorf("Sprintf(%q, %T) = %q", verb, v, got)
			}
		}
	}
}

// FuzzStep drives a bridge with an arbitrary event stream: no panic, and no
// law broken on any step.
func FuzzStep(f *testing.F) {
	f.Add([]byte{2, 1, 0, 0, 3, 1, 0, 5, 0, 0, 6, 0, 1, 7, 0, 1, 8, 0, 0})
	f.Add([]byte{0, 1, 0, 0, 3, 1, 1, 5, 0, 1, 5, 0, 1, 9, 0, 0, 2, 0, 0, 6, 0, 1})
	f.Add([]byte{15, 1, 0, 0, 3, 2, 2, 3, 3, 2, 5, 3, 2, 4, 3, 0, 6, 9, 1})
	tokens := [4]Token{{1}, {2}, {3}, {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 9}}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		capacity := 1 + int(data[0])%MaxSlots
		s, _ := New(capacity)
		var fd findings
		for i := 1; i+2 < len(data); i += 3 {
			k, a, b := data[i]%10, data[i+1], data[i+2]
			fd.failed = false
			if k == 0 {
				s, _ = New(capacity)
				checkNew(&s, capacity, &fd)
			} else {
				ev := Event{
					Kind:    EventKind(k),
					Owner:   OwnerID(a % 5),
					Token:   tokens[b%4],
					Version: ProtocolVersion + uint32(b>>7),
					ID:      RequestID(a % 20),
					Allow:   b&1 == 1,
					Outcome: Outcome(1 + b%3),
					Lost:    b&2 == 2,
				}
				pre := s
				out := s.Step(ev)
				checkStep(&pre, ev, &s, &out, &fd)
			}
			checkState(&s, &fd)
			checkDrained(&s, &fd)
			if fd.failed {
				t.Fatalf("step %d:\n%s", i/3, fd.summary())
			}
		}
	})
}

// TestSizes keeps what crosses a step small: an event under 64 bytes, the
// effects of a step in one fixed array.
func TestSizes(t *testing.T) {
	if n := unsafe.Sizeof(Event{}); n > 64 {
		t.Errorf("an Event is %d bytes", n)
	}
	if n := unsafe.Sizeof(Effects{}); n > MaxEffects*24+8 {
		t.Errorf("Effects is %d bytes", n)
	}
}
