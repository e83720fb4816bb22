package documents

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/internal/lawhit"
)

// A page served from a session's kept search is the page a fresh walk
// gives at that moment: whatever changed between the pages — a file
// created, deleted, renamed, rewritten in place with its old modification
// time put back, an ignore file edited, an editor buffer opened — the next
// page of grep and of glob shows what a search run just then shows, and
// when nothing changed it is served without walking.
func TestLaw_served_page_is_a_fresh_page(t *testing.T) {
	// Files here are stamped in nanoseconds by a clock this test shares;
	// the margin for coarser ones would make each case wait seconds.
	defer func(m time.Duration) { changeMargin = m }(changeMargin)
	changeMargin = 20 * time.Millisecond
	base := t.TempDir()
	hits := lawhit.New(t, map[string]int{"served": 20, "walked again": 20})
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		dir := filepath.Join(base, fmt.Sprint(n))
		defer os.RemoveAll(dir)
		// Same-sized texts, so that a rewrite can keep the size.
		needle, hay := []byte("needle\n"), []byte("haystk\n")
		var names []string
		for i := range rapid.IntRange(30, 50).Draw(rt, "files") {
			name := fmt.Sprintf("f%02d.go", i)
			if i%3 == 1 {
				name = "sub/" + name
			}
			text := needle
			if i%5 == 4 {
				text = hay
			}
			writeFile(rt, dir, name, text)
			names = append(names, name)
		}
		writeFile(rt, dir, ".gitignore", []byte("*.log\n"))
		time.Sleep(3 * changeMargin)

		store, buffers, roots := NewStore(), NewOverlay(), []string{dir}
		ctx := context.Background()
		greq, lreq := GrepRequest{Pattern: "needle"}, GlobRequest{Pattern: "**/*.go", Limit: 7}
		g1, err := store.GrepPage(ctx, buffers, roots, greq)
		must(rt, err)
		l1, err := store.GlobPage(ctx, roots, lreq)
		must(rt, err)
		if g1.Next == 0 || l1.Next == 0 {
			rt.Fatalf("the first pages have no next page (grep %d, glob %d)", g1.Next, l1.Next)
		}

		pick := func() string { return rapid.SampledFrom(names).Draw(rt, "file") }
		changed := true
		switch change := rapid.IntRange(-3, 8).Draw(rt, "change"); change {
		case -3, -2, -1, 0:
			changed = false
		case 1: // a new file, maybe in a new directory
			writeFile(rt, dir, rapid.SampledFrom([]string{"a0.go", "sub/f99.go", "new/deep/x.go", "zz.go"}).Draw(rt, "new"), needle)
		case 2:
			must(rt, os.Remove(filepath.Join(dir, pick())))
		case 3:
			p := pick()
			must(rt, os.Rename(filepath.Join(dir, p), filepath.Join(dir, p+".log")))
		case 4, 5: // rewritten in place, the same size, the old modification time put back
			p := filepath.Join(dir, pick())
			info, err := os.Stat(p)
			must(rt, err)
			old, _ := os.ReadFile(p)
			text := needle
			if bytes.Equal(old, needle) {
				text = hay
			}
			must(rt, os.WriteFile(p, text, 0o644))
			must(rt, os.Chtimes(p, info.ModTime(), info.ModTime()))
		case 6: // the ignore file, edited in place
			p := filepath.Join(dir, ".gitignore")
			info, err := os.Stat(p)
			must(rt, err)
			must(rt, os.WriteFile(p, []byte("sub/\n"), 0o644))
			must(rt, os.Chtimes(p, info.ModTime(), info.ModTime()))
		case 7: // an editor opens a file and types
			buffers.Open(filepath.Join(dir, pick()), 1, []byte("typed needle\n"))
		case 8: // a file's times only: the pages cannot change, but a walk is due
			p := filepath.Join(dir, pick())
			must(rt, os.Chtimes(p, time.Now(), time.Now()))
		}

		after := g1.Page[len(g1.Page)-1].Show
		kept, keptGlob := store.grepKept, store.globKept
		greq.Skip, lreq.Skip = g1.Next, l1.Next
		g2, gerr := store.GrepPage(ctx, buffers, roots, greq)
		fg, ferr := grepSearch(ctx, buffers, roots, greq, after, false, nil)
		if gerr != nil || ferr != nil {
			if fmt.Sprint(gerr) != fmt.Sprint(ferr) {
				rt.Fatalf("the next grep page says %v; a fresh search says %v", gerr, ferr)
			}
		} else if got, want := renderText(g2), renderText(fg); got != want {
			rt.Fatalf("the next grep page differs from a fresh search's\nserved:\n%s\nfresh:\n%s", got, want)
		}
		l2, gerr := store.GlobPage(ctx, roots, lreq)
		fl, ferr := GlobSearch(ctx, roots, lreq)
		if gerr != nil || ferr != nil {
			if fmt.Sprint(gerr) != fmt.Sprint(ferr) {
				rt.Fatalf("the next glob page says %v; a fresh glob says %v", gerr, ferr)
			}
		} else if got, want := l2.Render(), fl.Render(); got != want {
			rt.Fatalf("the next glob page differs from a fresh glob's\nserved:\n%s\nfresh:\n%s", got, want)
		}
		servedGrep := kept != nil && kept.served > 0
		switch {
		case !changed && (!servedGrep || keptGlob == nil || keptGlob.served == 0):
			rt.Fatalf("nothing changed, yet the next page walked again (grep served %v)", servedGrep)
		case changed && servedGrep:
			rt.Fatalf("the next grep page was served from the kept search after a change")
		case changed:
			hits.Hit("walked again")
		default:
			hits.Hit("served")
		}
	})
}

func renderText(r *GrepReport) string {
	text, _ := r.Render()
	return text
}

// A session keeps nothing when it serves one call, and a search of one
// file, or one with a single page, is not kept.
func TestOnlySearchesWithMorePagesAreKept(t *testing.T) {
	dir := t.TempDir()
	for i := range 30 {
		writeFile(t, dir, fmt.Sprintf("f%02d.go", i), []byte("needle\n"))
	}
	ctx := context.Background()
	one := NewStoreForOneCall()
	if _, err := one.GrepPage(ctx, nil, []string{dir}, GrepRequest{Pattern: "needle"}); err != nil || one.grepKept != nil {
		t.Fatalf("a one-call session kept its grep (%v)", err)
	}
	s := NewStore()
	for _, req := range []GrepRequest{{Pattern: "needle", Path: "f00.go"}, {Pattern: "needle", Glob: "f0*"}} {
		if _, err := s.GrepPage(ctx, nil, []string{dir}, req); err != nil || s.grepKept != nil {
			t.Fatalf("%+v: kept (%v)", req, err)
		}
	}
	if _, err := s.GrepPage(ctx, nil, []string{dir}, GrepRequest{Pattern: "needle"}); err != nil || s.grepKept == nil {
		t.Fatalf("a search with a next page was not kept (%v)", err)
	}
	s.Close()
	if s.grepKept != nil {
		t.Fatal("a closed session still holds its kept search")
	}
}
