// Package agent is tandem's agent: the turn loop that sends a chat to a
// model (through agent/providers), runs the tools it asks for through the
// chat's own tools session — the same registry, gate and questions every
// front door has — and reports what happens as ACP session updates, which
// every client renders: tandem's own editor chats, any ACP editor, and the
// headless `tandem chat`.
//
// A turn ends with an ACP stop reason: end_turn, max_tokens,
// max_turn_requests, refusal, or cancelled. Cancelling a turn's context is
// stop: the provider stream ends, running tools are cancelled (a bash
// step's processes are killed), open questions settle, and nothing runs
// after the turn has returned.
package agent
