package procstatus

import (
	"runtime"
	"testing"
)

// The peak resident set is at least what is resident now, and both are
// read as numbers.
func TestPeakIsAtLeastTheResidentSet(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/status is Linux's")
	}
	rss, err := KiB("VmRSS")
	if err != nil {
		t.Fatal(err)
	}
	hwm, err := KiB("VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	if rss <= 0 || hwm < rss {
		t.Fatalf("VmRSS %d KiB, VmHWM %d KiB: want 0 < VmRSS <= VmHWM", rss, hwm)
	}
	if _, err := KiB("NoSuchField"); err == nil {
		t.Fatal("a field /proc/self/status lacks read as a number")
	}
}
