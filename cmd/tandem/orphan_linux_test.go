package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/tandemdev/tandem/acpserver/acptest"
)

// TestLaw_steps_die_with_tandem: tandem killed with SIGKILL leaves no step
// running. A real tandem runs a bash step, sleep, through its sandbox;
// once the sleep runs, tandem is killed -9, and the sleep is gone soon
// after (the process table is polled; nothing is timed).
func TestLaw_steps_die_with_tandem(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	cmd := exec.Command(builtTandem(t), "tool", "bash", `{"command":"sleep 1000.4711"}`)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_STATE_HOME="+filepath.Join(home, "state"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		// A sleep a failure left behind, by its pid.
		dirs, _ := filepath.Glob("/proc/[0-9]*")
		for _, d := range dirs {
			if b, _ := os.ReadFile(filepath.Join(d, "cmdline")); string(b) == "sleep\x001000.4711\x00" {
				pid, _ := strconv.Atoi(filepath.Base(d))
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	acptest.Eventually(t, "the step's sleep", func() bool { return acptest.Running("sleep", "1000.4711") })
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	acptest.Eventually(t, "the sleep to die with tandem", func() bool { return !acptest.Running("sleep", "1000.4711") })
}
