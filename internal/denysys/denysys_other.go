//go:build !linux

package denysys

// ExecIfAsked does nothing where there is no seccomp: no test asks for a
// run without system calls there.
func ExecIfAsked() {}
