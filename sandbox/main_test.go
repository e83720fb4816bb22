package sandbox

import (
	"os"
	"os/exec"
	"testing"

	"github.com/tandemdev/tandem/internal/denysys"
)

// plantedToken stands for a credential in tandem's own environment: the
// tests run again with it in theirs, where /proc/PID/environ shows it.
const plantedToken = "TANDEM_TEST_PLANTED=ghp_planted0123456789"

func TestMain(m *testing.M) {
	denysys.ExecIfAsked()
	if os.Getenv("TANDEM_TEST_PLANTED") == "" {
		cmd := exec.Command(os.Args[0], os.Args[1:]...)
		cmd.Env = append(os.Environ(), plantedToken)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				os.Exit(ee.ExitCode())
			}
			panic(err)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
