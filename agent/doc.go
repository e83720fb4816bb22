// Package agent is tandem's agent. It owns the turn loop, the agent
// sessions of one connection (Service), chats on disk, checkpoints and
// restore, compaction, plan mode, and usage and cost.
//
// A chat is one conversation with a model; a turn is one prompt of the
// user and all the model does to answer it. The turn loop sends a chat to
// a model (through agent/providers), runs the tools the model asks for
// through the chat's own tools session (the same registry, gate and
// questions every front door has), and reports what happens as ACP session
// updates. Every client renders those: tandem's own editor chats, any ACP
// editor, and the headless `tandem chat`.
//
// A turn ends with an ACP stop reason: end_turn, max_tokens,
// max_turn_requests, refusal, or cancelled. Cancelling a turn's context
// stops the turn: the provider stream ends, running tools are cancelled (a
// bash step's processes are killed), open questions settle, and nothing
// runs after the turn has returned.
package agent
