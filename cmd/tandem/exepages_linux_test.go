package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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

// Released are the executable's mappings whose pages are all still the
// file's; a read-only one the process wrote before (a position-independent
// build's relocated pointers), a writable one and any other file's stay.
func TestOnlyUnchangedMappingsOfTheExecutableAreReleased(t *testing.T) {
	smaps, err := os.Open(filepath.Join("testdata", "smaps-pie"))
	if err != nil {
		t.Fatal(err)
	}
	defer smaps.Close()
	got := cleanExeRanges(smaps, "/opt/my tools/tandem")
	want := []exeRange{
		{0x55e4e1b0d000, 0x55e4e1ce9000}, // r--p, the start of the file
		{0x55e4e1ce9000, 0x55e4e24ae000}, // r-xp, the code
		{0x55e4e24ae000, 0x55e4e2aae000}, // r--p, read-only data
	}
	if !slices.Equal(got, want) {
		t.Fatalf("released %x, want %x (not the relocated 55e4e2aae000-55e4e2c9f000 nor the writable data)", got, want)
	}
	if got := cleanExeRanges(strings.NewReader(""), "/opt/my tools/tandem"); len(got) != 0 {
		t.Fatalf("released %x from no mappings", got)
	}
}

// Distributions build Go programs position-independent (-buildmode=pie);
// such a tandem must survive the release its one-call commands start with.
func TestAPositionIndependentBuildRunsATool(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tandem")
	if out, err := exec.Command("go", "build", "-buildmode=pie", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build -buildmode=pie: %v\n%s", err, out)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "tool", "grep", `{"pattern":"hello"}`)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "1:hello") {
		t.Fatalf("tandem tool grep in a PIE build: %v\n%s", err, out)
	}
}
