package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"sync"

	"github.com/tandemdev/tandem/approvals"
)

// sandboxExec runs a program under a Seatbelt profile given as text.
const sandboxExec = "/usr/bin/sandbox-exec"

var support = sync.OnceValue(func() Support {
	if _, err := os.Stat(sandboxExec); err != nil {
		return Support{Unavailable: errors.New("this macOS has no " + sandboxExec + ", so what a step's programs do is held only by the gate's questions")}
	}
	return Support{Net: true, Guards: true, Layers: []string{"Seatbelt (" + sandboxExec + ") holds what each program reads and writes, the connections it makes, and git's config and hooks and .tandem"}}
})

// Supported returns what this system can hold.
func Supported() Support { return support() }

// kernelSupport returns what starting a sandbox needs to know.
func kernelSupport() Support { return support() }

// start runs cmd's program under sandbox-exec with the step's profile. The
// program's argv[0] becomes its path: sandbox-exec runs it by that name.
// The guarded places hold for every program not granted protected, one
// judged by its words too (git writes its config only when asked).
func (s *Sandbox) start(cmd *exec.Cmd, grant approvals.Effects, _ bool) error {
	var g Guarded
	if !grant.Has(approvals.Protected) {
		g = GuardedIn(s.places.Roots)
	}
	argv := append([]string{"sandbox-exec", "-p", SeatbeltProfile(s.places, grant, g), cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = sandboxExec, argv
	return cmd.Start()
}
