//go:build !linux && !darwin

package sandbox

import (
	"errors"
	"os/exec"

	"github.com/tandemdev/tandem/approvals"
)

// Supported returns what this system can hold: nothing.
func Supported() Support {
	return Support{Unavailable: errors.New("tandem has no sandbox for this operating system, so what a step's programs do is held only by the gate's questions")}
}

// kernelSupport returns what starting a sandbox needs to know.
func kernelSupport() Support { return Supported() }

func (s *Sandbox) start(cmd *exec.Cmd, _ approvals.Effects, _ bool, _ uint32) error {
	return cmd.Start()
}

// startWatched starts cmd: no watcher here outlives tandem, and its
// program keeps the process's file mode mask.
func startWatched(cmd *exec.Cmd, _ uint32) error { return cmd.Start() }
