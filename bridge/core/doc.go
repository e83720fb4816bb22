// Package core is the pure state machine of the MCP-call bridge: which
// requests from `tandem mcp call` clients are admitted, which permission
// checks and MCP calls run for whom, and what each client is told.
//
// It holds no I/O, no clock, no goroutines and no locks, so every reachable
// state of a small bridge can be explored in a test and every law checked on
// every step (explore_test.go). The shell in package bridge owns the socket,
// the connections, the permission route and the MCP client; it feeds what
// happened to Step as events and runs the effects Step returns.
//
// # What crosses
//
// Events carry tokens, a version, request ids, owner ids and enums; effects
// carry ids, owners and enums. Tool names, arguments and results never enter
// the core: the shell keeps them by request id. Effects hold no token, so a
// log line or a refusal built from an effect cannot leak one.
//
// # Driving the core
//
// The shell keeps one State (from New, capacity from the user's settings,
// DefaultCapacity unless set) under one mutex, and for each thing that
// happens calls Step with that mutex held, then runs the returned effects in
// order (it may release the mutex first: an effect starts I/O, it never
// waits for it):
//
//   - Bridge enabled: Step(Event{Kind: Started}). Shutdown or the setting
//     turned off: Step(Event{Kind: Stopped}); this revokes every token, so
//     the shell then closes the listener and removes the socket.
//   - A bash call starts, or an editor session asks for terminal variables:
//     generate a Token with crypto/rand, pick an OwnerID never used before in
//     this process, Step(Event{Kind: OwnerAdded, Owner: o, Token: t}). A Log
//     effect of kind OwnerRejected means the token is not in force (closed,
//     duplicate, or MaxOwners reached): do not hand it out. The call or
//     session ends: Step(Event{Kind: OwnerRemoved, Owner: o}).
//   - A client's request line parsed: Step(Event{Kind: Request, Token: t,
//     Version: v}). The result is exactly one effect: Refuse (write the
//     reason, close) or Authorize with the new request id, which the shell
//     binds to this connection, its tool and arguments.
//   - Authorize{ID, Owner}: ask the approvals route for Owner's tool call;
//     its answer is Step(Event{Kind: Authorized, ID: id, Allow: yes}); a
//     denial or no answer is Allow false.
//   - Call{ID, Owner}: run the MCP call with Owner's access; its end is
//     Step(Event{Kind: CallFinished, ID: id, Outcome: OK|Failed|ToolError}).
//   - Reply{ID, Outcome}: write the reply (with the result kept for ID, if
//     any) to ID's connection; then Step(Event{Kind: ReplyDone, ID: id,
//     Lost: !writtenWhole}) and close the connection.
//   - The connection of ID closes before its reply: Step(Event{Kind:
//     ClientGone, ID: id}).
//   - Withdraw{ID}: withdraw ID's prompt; Cancel{ID}: cancel ID's call. Their
//     answers still arrive later as Authorized and CallFinished and free the
//     slot, so capacity counts work that is still running.
//   - Log{ID, Log}: one line under "mcp-call" with the id and the kind.
//
// A new process starts from New: closed, no owners, no requests, ids from 0.
// Nothing is saved. Every answer the shell owes (a permission answer for a
// request that waits for one, the end of each call, the end of each reply)
// eventually frees its slot, so the table drains.
//
// # Laws
//
// Step obeys L1–L15 (docs/protocol.md, "Bridge core"): admission only when
// open, with a token in force, the supported version and a free slot (L1);
// refusals change nothing and give the first failed check of closed,
// unauthorized, version, busy (L2); fresh ids (L3); a call only from an allow
// of a waiting request (L4); stages only advance (L5); one reply per request
// (L6) carrying the call's outcome or denied (L7); effects act for the
// request's owner (L8); no live prompt or call for a revoked owner (L9); a
// closed bridge holds no token and starts nothing (L10); stale answers change
// nothing and are logged (L11); dropped results and lost replies are logged
// (L12); bounded (L13); a new process starts from nothing (L14); every
// admitted request drains once its answers come (L15).
package core
