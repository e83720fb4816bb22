package tools

import "context"

// Sub opens a session for a subagent of s: the same workspace, buffers,
// gate, asker, jobs and sandbox, but a seen store of its own from the same
// budget. What the subagent reads is not what the parent's model has seen,
// so the parent cannot edit lines only the subagent read. Closing s ends
// the subagent's calls too; the caller closes the sub-session when the
// subagent is done, which closes only its seen store.
func (s *Session) Sub() *Session {
	ctx, cancel := context.WithCancel(s.ctx)
	sub := &Session{
		ID: s.ID, Roots: s.Roots, Buffers: s.Buffers, opts: s.opts,
		gate: s.gate, jobs: s.jobs, box: s.box, boxOff: s.boxOff, journal: s.journal,
		ctx: ctx, cancel: cancel,
	}
	sub.Seen = seenBudget.NewStore()
	sub.OnClose(sub.Seen.Close)
	return sub
}
