package main

import (
	"strings"
	"testing"

	"github.com/fsnotify/fsnotify"
)

// doctor counts the inotify watches the user's processes hold (three more
// in this process are three more counted) and names the count and the limit.
func TestDoctorCountsTheWatchesInUse(t *testing.T) {
	before := inotifyWatches("/proc/self")
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for range 3 {
		if err := w.Add(t.TempDir()); err != nil {
			t.Fatal(err)
		}
	}
	if after := inotifyWatches("/proc/self"); after != before+3 {
		t.Fatalf("three watches added, counted %d before and %d after", before, after)
	}
	used, limit, ok := watchesInUse()
	if !ok || limit <= 0 || used < 3 {
		t.Fatalf("the user's watches: %d of %d (%v)", used, limit, ok)
	}
	c := fileWatchCheck(t.TempDir())
	if !strings.Contains(c.info, "inotify watches a user may hold") {
		t.Fatalf("the check does not name the count and the limit: %+v", c)
	}
}
