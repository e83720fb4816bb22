package shell

import (
	"github.com/tandemdev/tandem/approvals"
)

// Env looks a variable up in the environment a step runs with. A nil Env is
// the policy's own environment (the session's, unchanged).
type Env func(name string) (value string, set bool)

// Classify gives the effects of ONE simple command, from its real expanded
// arguments, and the paths it names with their classes. It is pure: the only
// I/O is the policy's filesystem lookups for real paths.
//
// The program's name, subcommand and options select a row of the command
// table; a program not in the table, a program name with '/', and a step
// whose environment differs from the policy's in a variable that can make a
// reading command run another program (PATH, LD_*, GIT_*, LESSOPEN, …: an
// assignment prefix or an earlier export) are exec. Wrappers (env, command,
// exec, nice, timeout, xargs, sudo, find -exec, …) are exec too: the program
// behind a wrapper reaches the runner's exec middleware, which must classify
// and gate it again with its own argv. `sh -c SCRIPT` and `bash -c SCRIPT`
// are parsed and every command of SCRIPT is classified; the step has the
// union of their effects and exec.
//
// Every word that is or holds a secret adds secret; for a command that
// writes, a word outside the workspace adds outside and a protected word adds
// protected. A command that reads its working directory because it names no
// path (ls, du, find, rg PATTERN, grep -r PATTERN, git ls-files, git grep)
// judges dir.
func Classify(argv []string, dir string, env Env, p *approvals.Policy) approvals.Step {
	return approvals.Step{Text: approvals.Show(argv), Effects: approvals.All}
}

// ClassifyRedirect gives the effects of one redirection to target (made
// real from dir): a write inside the workspace is write, outside write and
// outside, to a protected path write and protected, to a secret write and
// secret; a read is read, and of a path that is or holds a secret read and
// secret. /dev/null, /dev/stdout and /dev/stderr have no effect. The step's
// Text is the redirection as bash would read it ("> 'a b'").
func ClassifyRedirect(target string, write bool, dir string, p *approvals.Policy) approvals.Step {
	return approvals.Step{Text: approvals.Show([]string{target}), Effects: approvals.All}
}

// RunArgs is the argv a classified step must run with: a git subcommand the
// table reads as read-only gets the untrusted-repository arguments (no
// fsmonitor, hooks, pager, signature programs or lazy fetch; diff, log and
// show without external diff or textconv), so repository config cannot make
// it run a program; env holds KEY=VALUE pairs to add to its environment.
// Every other argv is returned unchanged with no env.
func RunArgs(argv []string) (args, env []string) { return argv, nil }
