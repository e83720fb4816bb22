package edits

import (
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// helperEnv turns the test binary into a helper process: "hold:PATH" locks
// PATH as a live writer locks its temporary file, says "locked" on its
// standard output, and holds the lock until its standard input ends.
const helperEnv = "TANDEM_EDITS_HELPER"

func TestMain(m *testing.M) {
	if v := os.Getenv(helperEnv); v != "" {
		if p, ok := strings.CutPrefix(v, crashHelper); ok {
			crashCommit(p)
		}
		if p, ok := strings.CutPrefix(v, "hold:"); ok {
			f, err := os.Open(p)
			if err != nil || unix.Flock(int(f.Fd()), unix.LOCK_EX) != nil {
				os.Exit(3)
			}
			fmt.Println("locked")
			_, _ = io.Copy(io.Discard, os.Stdin)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
