package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// rssFileKiB is this process's resident pages of files it maps, its
// executable's among them.
func rssFileKiB(t *testing.T) int {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatalf("RssFile %q: %v", v, err)
			}
			return n
		}
	}
	t.Fatal("/proc/self/status has no RssFile line")
	return 0
}

// A one-call command's peak memory rests on this: the executable's pages
// that starting read are no longer counted once released.
func TestReleasingTheExecutablesPagesUnmapsThem(t *testing.T) {
	before := rssFileKiB(t)
	releaseExePages()
	after := rssFileKiB(t)
	if before-after < 1024 {
		t.Fatalf("resident file pages went from %d KiB to %d KiB; want at least 1 MiB of the executable's released", before, after)
	}
	t.Logf("resident file pages: %d KiB before, %d KiB after", before, after)
}
