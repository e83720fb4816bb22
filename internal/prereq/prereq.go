// Package prereq lets a test name what the machine must have for it. Under
// the project's test command (make test sets TANDEM_TEST_STRICT=1), a
// missing prerequisite that scripts/setup installs fails the test, so a
// broken setup cannot pass as skipped tests; elsewhere (a plain go test on
// a machine without it) the test is skipped, saying what to install.
package prereq

import (
	"os"
	"os/exec"
	"testing"
)

// Strict reports whether missing prerequisites fail the tests.
func Strict() bool { return os.Getenv("TANDEM_TEST_STRICT") == "1" }

// Missing ends t for a prerequisite the machine lacks: what is missing,
// and how scripts/setup (or the user) installs it.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	if Strict() {
		t.Fatalf("%s is missing, and this test needs it (%s); the test command does not skip it", what, install)
	}
	t.Skipf("%s is missing (%s)", what, install)
}

// Program ends t unless the program name is on PATH.
func Program(t testing.TB, name, install string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		Missing(t, name, install)
	}
}
