// Package approvals owns what may run without asking: effects and the auto
// set, the path policy, questions and their routing to whoever can answer, and
// the texts of questions (QuestionText) and of the gate's own refusals
// (Render); other packages write their refusals beside the check that
// refuses. It imports no tandem package but the leaf refusal.
//
// Its terms, used across tandem:
//
//   - A step is one thing that runs and is judged on its own: a simple
//     command of a bash script with its real expanded arguments, or a
//     document access such as a write of one path (Step).
//   - An effect is one thing a step can do that the user may want to be
//     asked about: read, write, exec, net, outside, protected or secret
//     (Effect).
//   - The auto set is the set of effects that run without a question. It
//     comes from the user's own settings only (shell.autoEffects,
//     ParseAuto) and never holds secret.
//   - The path policy (Policy) gives every path a step names a class:
//     secret, protected, inside, scratch, outside or harmless.
//   - The gate (Gate) decides whether each step runs, needs a yes, or is
//     refused; a question (Question) asks the user for that yes, and an
//     Asker routes it to whoever can answer.
package approvals
