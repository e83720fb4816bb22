package core

import "fmt"

// Bounds of the core. They are compile-time constants so that State and
// Effects are fixed-size values: a step never allocates.
const (
	// MaxSlots is the largest capacity a bridge may have.
	MaxSlots = 16
	// DefaultCapacity is the number of requests a bridge holds unless the
	// user's settings say otherwise. Request number DefaultCapacity+1 is
	// refused busy.
	DefaultCapacity = 8
	// MaxOwners bounds the tokens in force at once: the editor terminals plus
	// every running bash call. A registration past it is rejected (logged
	// owner_rejected) and that owner's commands get no bridge access.
	MaxOwners = 32
	// MaxEffects bounds the effects of one step. A stop or an owner's end
	// emits at most one effect per held request, so MaxSlots is enough.
	MaxEffects = MaxSlots
	// TokenSize is the length of an owner's token in bytes.
	TokenSize = 32
	// ProtocolVersion is the version a client must send in its request. A
	// request with another version is refused BadVersion, but only after its
	// token was found in force (L2): a stranger learns nothing about versions.
	ProtocolVersion uint32 = 1
)

// Token is an owner's secret: 32 random bytes that the shell generates with
// crypto/rand and hands to the owner's commands. The core only compares
// tokens, in constant time. A Token formats as "[token]" with every verb of
// package fmt, so it cannot reach a log line by accident; encode it with
// hex.EncodeToString(t[:]) where it must be written (a child's environment).
type Token [TokenSize]byte

// Format redacts the token for every fmt verb.
func (Token) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte("[token]")) }

// OwnerID names an owner: one running bash call, or one editor session's
// integrated terminals. The shell picks it and never reuses one within a
// process, so an effect's owner always means one capability.
type OwnerID uint64

// RequestID is the id the core gives a request when it admits it: 0, 1, 2, …
// within one process, never reused in that process (L3). It is the dedupe
// key of every answer the shell gives back.
type RequestID uint64

// Stage is where an admitted request stands. Stages only advance (L5):
//
//	Authorizing ──allow──▶ Calling ──call_finished──▶ Replying ──reply_done──▶ (gone)
//	     │ └────deny──────────────────────────────────▶ Replying
//	     └─client_gone/owner end/stop─▶ AbandonedAuth ──authorized──▶ (gone)
//	Calling ─client_gone/owner end/stop─▶ AbandonedCall ──call_finished──▶ (gone)
//
// An abandoned request keeps its slot until the answer its stage waits for
// arrives, so capacity counts prompts and calls that are still running.
type Stage uint8

// The stages. The zero Stage means "not held".
const (
	Authorizing   Stage = iota + 1 // waiting for the permission check
	Calling                        // the MCP call runs
	Replying                       // the reply is being written to the client
	AbandonedAuth                  // prompt withdrawn; waiting for its answer to free the slot
	AbandonedCall                  // call cancelled; waiting for its end to free the slot
)

var stageNames = [...]string{"none", "authorizing", "calling", "replying", "abandoned_auth", "abandoned_call"}

func (s Stage) String() string { return name(stageNames[:], int(s)) }

// EventKind says what happened. I/O results come back as Authorized,
// CallFinished, ReplyDone and ClientGone; failures are their field values.
type EventKind uint8

// The events.
const (
	Started      EventKind = iota + 1 // the bridge opens (the user's settings enable it)
	Stopped                           // the bridge closes: shutdown, or the setting turned off
	OwnerAdded                        // Owner with Token is in force (a bash call starts, a terminal env is handed out)
	OwnerRemoved                      // Owner's token is revoked (its bash call ended, its editor session ended)
	Request                           // a client sent Token and Version on a new connection
	Authorized                        // the permission check for ID answered Allow (or not: denied, unanswered)
	CallFinished                      // the MCP call for ID ended with Outcome (OK, Failed or ToolError)
	ReplyDone                         // the reply for ID was written whole, or Lost
	ClientGone                        // the connection of ID closed before its reply
)

var eventNames = [...]string{"none", "started", "stopped", "owner_added", "owner_removed", "request", "authorized", "call_finished", "reply_done", "client_gone"}

func (k EventKind) String() string { return name(eventNames[:], int(k)) }

// Event is one input of Step. Only the fields its Kind names are read. It
// carries no tool name, arguments or result: those stay in the shell, keyed
// by request id.
//
// The fields are ordered to pack an Event into 56 bytes.
type Event struct {
	Owner   OwnerID   // OwnerAdded, OwnerRemoved
	ID      RequestID // Authorized, CallFinished, ReplyDone, ClientGone
	Token   Token     // OwnerAdded, Request
	Version uint32    // Request: the client's protocol version
	Kind    EventKind
	Allow   bool    // Authorized: true only for an allow; false for a denial or no answer
	Outcome Outcome // CallFinished: OK, Failed or ToolError
	Lost    bool    // ReplyDone: the reply could not be written whole
}

// Outcome is how a request ended, as its reply tells the client.
type Outcome uint8

// The outcomes.
const (
	OK        Outcome = iota + 1 // the tool ran and returned a result
	Failed                       // the server was down, slow or broke the call
	ToolError                    // the tool ran and reported an error (isError)
	Denied                       // the permission check did not allow the call
)

var outcomeNames = [...]string{"none", "ok", "failed", "tool_error", "denied"}

func (o Outcome) String() string { return name(outcomeNames[:], int(o)) }

// Reason is why a request was refused. Checks run in this order and the
// first that fails is the only reason given (L2).
type Reason uint8

// The refusal reasons, in check order.
const (
	Closed       Reason = iota + 1 // the bridge is not open
	Unauthorized                   // the token is not in force
	BadVersion                     // the client speaks another protocol version
	Busy                           // every slot is held; nothing ran, safe to retry
)

var reasonNames = [...]string{"none", "closed", "unauthorized", "unsupported_version", "busy"}

func (r Reason) String() string { return name(reasonNames[:], int(r)) }

// EffectKind says what the shell must do.
type EffectKind uint8

// The effects.
const (
	Refuse    EffectKind = iota + 1 // answer the request just stepped with Reason, then close it
	Authorize                       // run the permission check for ID, acting for Owner
	Call                            // run the MCP call for ID with Owner's access
	Withdraw                        // withdraw the permission prompt of ID; its answer still comes as Authorized
	Cancel                          // cancel the MCP call of ID; its end still comes as CallFinished
	Reply                           // write Outcome (and the result, if OK or ToolError) to ID's client
	Log                             // log Log with ID (and Owner for owner events) under "mcp-call"
)

var effectNames = [...]string{"none", "refuse", "authorize", "call", "withdraw", "cancel", "reply", "log"}

func (k EffectKind) String() string { return name(effectNames[:], int(k)) }

// LogKind names a stale, dropped or lost event (L11, L12) or a rejected
// owner change.
type LogKind uint8

// The log kinds.
const (
	Stale         LogKind = iota + 1 // an answer for an id that is gone, never issued, or whose stage does not wait for it
	ResultDropped                    // a call ended after its client left; its result is dropped
	ReplyLost                        // a reply could not be written whole
	OwnerRejected                    // OwnerAdded while closed, with an id or token already in force, or past MaxOwners
	OwnerUnknown                     // OwnerRemoved for an owner not in force
)

var logNames = [...]string{"none", "stale", "result_dropped", "reply_lost", "owner_rejected", "owner_unknown"}

func (k LogKind) String() string { return name(logNames[:], int(k)) }

// Effect is one thing the shell must do. Only the fields its Kind names are
// set. It holds no token and no payload, so logging an effect leaks nothing.
type Effect struct {
	ID      RequestID // every kind but Refuse (and Log of an owner event)
	Owner   OwnerID   // Authorize, Call, Withdraw, Cancel: the request's owner; Log of an owner event
	Kind    EffectKind
	Reason  Reason  // Refuse
	Outcome Outcome // Reply
	Log     LogKind // Log
}

// Effects is the fixed-size output of one step: at most MaxEffects effects,
// in the order the shell must run them.
type Effects struct {
	n    uint8
	list [MaxEffects]Effect
}

// Len is the number of effects.
func (e *Effects) Len() int { return int(e.n) }

// At returns effect i, 0 ≤ i < Len().
func (e *Effects) At(i int) Effect { return e.list[:e.n][i] }

// List is a view of the effects; it aliases e.
func (e *Effects) List() []Effect { return e.list[:e.n] }

// push appends an effect. The bounds make overflow impossible (a step emits
// at most one effect per slot, and MaxEffects = MaxSlots); the check keeps
// the core free of panics even so.
func (e *Effects) push(f Effect) {
	if int(e.n) < MaxEffects {
		e.list[e.n] = f
		e.n++
	}
}

func name(names []string, i int) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("unknown(%d)", i)
}
