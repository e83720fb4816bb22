// Package approvals owns what may run without asking: effects and the auto
// set, the path policy, questions and their routing to whoever can answer, and
// the one renderer of refusal and question texts. It imports no tandem
// package but the leaf refusal.
package approvals
