package acptest

import (
	"os"
	"path/filepath"
	"strings"
)

// Running reports whether a process whose command line holds each of
// words, in order, runs (Linux: read from /proc). Tests give a child a
// unique argument, such as sleep's 31.4159, to find it.
func Running(words ...string) bool {
	want := strings.Join(words, "\x00")
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err == nil && strings.Contains(string(b), want) {
			return true
		}
	}
	return false
}
