package edits

import (
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// helperEnv turns the test binary into a helper process: "hold:PATH" locks
// PATH as a live writer locks its temporary file and sleeps.
const helperEnv = "TANDEM_EDITS_HELPER"

func TestMain(m *testing.M) {
	if v := os.Getenv(helperEnv); v != "" {
		if p, ok := strings.CutPrefix(v, "hold:"); ok {
			f, err := os.Open(p)
			if err != nil || unix.Flock(int(f.Fd()), unix.LOCK_EX) != nil {
				os.Exit(3)
			}
			time.Sleep(30 * time.Second)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
