package documents

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// walkTree is a tree of nine directories, each with an ignored file, a
// symbolic link, a .go file and a .txt file, the .go files' times set apart.
func walkTree(t *testing.T) string {
	dir := t.TempDir()
	writeFile(t, dir, ".gitignore", []byte("*.log\n"))
	for i := range 9 {
		sub := fmt.Sprintf("d%d", i)
		writeFile(t, dir, sub+"/skip.log", []byte("x"))
		writeFile(t, dir, sub+"/notes.txt", []byte("x"))
		p := writeFile(t, dir, sub+"/main.go", []byte("x"))
		mt := fixedTime.Add(time.Duration(i) * time.Hour)
		must(t, os.Chtimes(p, mt, mt))
		must(t, os.Symlink("main.go", filepath.Join(dir, sub, "link.go")))
	}
	return dir
}

// The walk builds each entry's path in a buffer it reuses: the examples a
// notice names must still be the paths met, not what the buffer later held.
func TestWalkExamplesAreThePathsItMet(t *testing.T) {
	dir := walkTree(t)
	tally, err := Walk(context.Background(), "", dir, false, 0, func(Entry, *Tally) {})
	if err != nil {
		t.Fatal(err)
	}
	for class, name := range map[Class]string{ClassIgnoredFile: "skip.log", ClassSymlink: "link.go"} {
		want := []string{filepath.Join(dir, "d0", name), filepath.Join(dir, "d1", name), filepath.Join(dir, "d2", name)}
		if got := tally.Examples[class]; !slices.Equal(got, want) {
			t.Errorf("class %d examples %q, want %q", class, got, want)
		}
		if tally.Count[class] != 9 {
			t.Errorf("class %d counted %d, want 9", class, tally.Count[class])
		}
	}
}

// A walk that hands over only the entries a tool wants counts the tree as
// one that hands over all, gives each entry its time through its directory,
// and hands over nothing else.
func TestWalkWantedEntriesAndTheirTimes(t *testing.T) {
	dir := walkTree(t)
	all, err := Walk(context.Background(), "", dir, true, 0, func(Entry, *Tally) {})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string]int64{}
	some, err := walk(context.Background(), walkSpec{
		start: dir, dirs: true, stat: true,
		want: func(rel string) bool { return strings.HasSuffix(rel, ".go") || rel == "d3" },
		visit: func(e Entry, _ *Tally) {
			mu.Lock()
			got[e.Rel] = e.MTime
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if some.Count != all.Count {
		t.Errorf("counts with a want %v, without %v", some.Count, all.Count)
	}
	want := map[string]int64{}
	for _, rel := range []string{"d0/main.go", "d4/main.go", "d8/main.go", "d3"} {
		info, err := os.Lstat(filepath.Join(dir, rel))
		must(t, err)
		want[rel] = info.ModTime().UnixNano()
	}
	if len(got) != 10 { // nine main.go and d3
		t.Errorf("handed over %d entries, want 10: %v", len(got), got)
	}
	for rel, mt := range want {
		if got[rel] != mt {
			t.Errorf("%s: time %d, want %d (its lstat's)", rel, got[rel], mt)
		}
	}
}

// A glob's cost in allocations follows the paths it finds, not the files it
// passes over: a tree of 40 times more files that do not match costs about
// the same.
func TestGlobAllocatesForWhatMatches(t *testing.T) {
	tree := func(others int) string {
		dir := t.TempDir()
		for i := range 20 {
			writeFile(t, dir, fmt.Sprintf("src/m%d.go", i), nil)
		}
		for i := range others {
			writeFile(t, dir, fmt.Sprintf("src/o%d.txt", i), nil)
		}
		return dir
	}
	small, large := tree(50), tree(2000)
	allocs := func(dir string) float64 {
		return testing.AllocsPerRun(5, func() {
			rep, err := GlobSearch(context.Background(), []string{dir}, GlobRequest{Pattern: "**/*.go"})
			if err != nil || rep.Total != 20 {
				t.Fatal(rep, err)
			}
		})
	}
	a, b := allocs(small), allocs(large)
	if b > a+100 {
		t.Fatalf("a glob over 2,000 other files took %.0f allocations, over 50 %.0f: the files it passes over cost one each", b, a)
	}
}

// A walk cancelled before it lists anything closes no descriptor it did not
// open: descriptor 0 is the editor's end of the server's stdio.
func TestCancelledWalkClosesNothingOfOthers(t *testing.T) {
	dir := walkTree(t)
	r, w, err := os.Pipe()
	must(t, err)
	defer r.Close()
	defer w.Close()
	saved, err := unix.Dup(0)
	must(t, err)
	must(t, unix.Dup2(int(r.Fd()), 0))
	defer func() { unix.Dup2(saved, 0); unix.Close(saved) }()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for range 3 {
		Walk(ctx, "", dir, false, 0, func(Entry, *Tally) {})
	}
	if _, err := unix.FcntlInt(0, unix.F_GETFD, 0); err != nil {
		t.Fatalf("descriptor 0 after a cancelled walk: %v", err)
	}
}
