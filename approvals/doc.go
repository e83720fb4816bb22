// Package approvals owns what may run without asking: effects and the auto
// set, the path policy, questions and their routing to whoever can answer, and
// the texts of questions and of the gate's own refusals (other packages write
// their refusals beside the check that refuses). It imports no tandem
// package but the leaf refusal.
package approvals
