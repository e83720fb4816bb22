package main

import (
	"testing"

	"github.com/tandemdev/tandem/internal/procstatus"
)

// rssFileKiB is this process's resident pages of files it maps, its
// executable's among them.
func rssFileKiB(t *testing.T) int64 {
	t.Helper()
	kb, err := procstatus.KiB("RssFile")
	if err != nil {
		t.Fatal(err)
	}
	return kb
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
