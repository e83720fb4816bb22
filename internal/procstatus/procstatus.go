// Package procstatus reads this process's own memory figures from
// /proc/self/status (Linux), which the tests that bound tandem's memory
// measure.
package procstatus

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// KiB returns the value of a field of /proc/self/status given in kB, such
// as VmHWM (the peak resident set) or RssFile (resident pages of mapped
// files).
func KiB(field string) (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		v, ok := strings.CutPrefix(line, field+":")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/self/status: %s %q: %v", field, strings.TrimSpace(v), err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("/proc/self/status has no %s line", field)
}
