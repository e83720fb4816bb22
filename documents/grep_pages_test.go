package documents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/internal/lawhit"
)

// A directory search for paths or counts shows no row, so rows it does not
// show cannot fill its page: twenty files of long matching lines are all
// listed on one page, with no continuation.
func TestGrepPathsAndCountsPageOnlyWhatTheyShow(t *testing.T) {
	dir := t.TempDir()
	line := append(append([]byte("needle "), bytes.Repeat([]byte("w"), 3000)...), '\n')
	var want []string
	for i := 0; i < filesPerPage; i++ {
		name := fmt.Sprintf("f%02d.txt", i)
		writeFile(t, dir, name, bytes.Repeat(line, 5))
		want = append(want, name)
	}
	for _, output := range []string{"files", "count"} {
		out, err := Grep(context.Background(), NewStore(), NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle", Output: output})
		if err != nil {
			t.Fatal(err)
		}
		items, next := renderedPage(out, output, false)
		if fmt.Sprint(items) != fmt.Sprint(want) || next != 0 {
			t.Fatalf("output %s: the page lists %d of %d files, next skip %d:\n%s", output, len(items), len(want), next, out)
		}
		if output == "count" && !strings.Contains(out, "f00.txt: 5 matching lines\n") {
			t.Fatalf("output count: no count for f00.txt:\n%s", out)
		}
	}
}

// A search of one file for its path or its count shows the whole answer on
// its first page, whatever the number and width of the matches: it offers
// no next page, which could only repeat the same line.
func TestGrepOneFileCountHasNoRepeatedPage(t *testing.T) {
	for _, tc := range []struct {
		name  string
		width int
		lines int
	}{
		{"over the match bound", 0, matchesPerPage + 50},
		{"over the byte bound", 3000, 60},
	} {
		dir := t.TempDir()
		writeFile(t, dir, "one.txt", wideText(tc.lines, 1, tc.width))
		for _, output := range []string{"count", "files"} {
			out, err := Grep(context.Background(), NewStore(), NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle", Path: "one.txt", Output: output})
			if err != nil {
				t.Fatal(err)
			}
			items, next := renderedPage(out, output, true)
			if len(items) != 1 || items[0] != "one.txt" || next != 0 {
				t.Fatalf("%s, output %s: items %v, next skip %d:\n%s", tc.name, output, items, next, out)
			}
			if want := fmt.Sprintf("(%d matching lines; shown: 1-%d)", tc.lines, tc.lines); !strings.Contains(out, want) {
				t.Fatalf("%s, output %s: want the notice %q:\n%s", tc.name, output, want, out)
			}
			if output == "count" && !strings.HasPrefix(out, fmt.Sprintf("one.txt: %d matching lines\n", tc.lines)) {
				t.Fatalf("%s: the count line is wrong:\n%s", tc.name, out)
			}
		}
	}
}

// A file with more matches than a page shows of one file is said to be cut
// only where its matches are shown (rows): paths and counts show them all.
func TestGrepCutNoticeOnlyWhereMatchesShow(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "many.txt", bytes.Repeat([]byte("needle\n"), matchesPerFile+5))
	writeFile(t, dir, "few.txt", []byte("needle\n"))
	for output, want := range map[string]bool{"rows": true, "files": false, "count": false} {
		out, err := Grep(context.Background(), NewStore(), NewOverlay(), []string{dir}, GrepRequest{Pattern: "needle", Output: output})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(out, "(cut: 1 file on this page had more than"); got != want {
			t.Errorf("output %s: cut notice %v, want %v:\n%s", output, got, want, out)
		}
	}
}

// A search that keeps no walk for later pages holds only the names that can
// reach its page; every page it shows — at any skip, or after a file — is
// the page the whole sorted list of matching files gives.
func TestGrepBoundedPagesAreThePagesOfTheWholeList(t *testing.T) {
	dir := t.TempDir()
	n := 3*filesPerPage + 7
	for i := range n {
		// Names out of walk order: nested, and "a.x" sorting before "a/".
		writeFile(t, dir, fmt.Sprintf("d%d/%02d/m.txt", i%5, (i*37)%n), []byte("needle\n"))
		writeFile(t, dir, fmt.Sprintf("d%d/%02d.txt", i%3, i), []byte("needle\nneedle\n"))
		writeFile(t, dir, fmt.Sprintf("d%d/%02d.no", i%4, i), []byte("hay\n"))
	}
	shows := func(rep *GrepReport) []string {
		var s []string
		for _, f := range rep.Page {
			s = append(s, f.Show)
		}
		return s
	}
	ctx := context.Background()
	req := GrepRequest{Pattern: "needle", Output: "files"}
	var all []string // every matching file, by name, from the whole list
	for skip := 0; ; skip += filesPerPage {
		req.Skip = skip
		// A fresh session's keeper: the walk keeps every matching file.
		st, ov := NewStore(), NewOverlay()
		whole, err := grepSearch(ctx, ov, []string{dir}, req, "", false, st.keeperFor(&st.grepKept, "whole", ov))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, shows(whole)...)
		if whole.Next == 0 {
			break
		}
	}
	if len(all) != 2*n {
		t.Fatalf("the whole list has %d files, want %d", len(all), 2*n)
	}
	for skip := 0; skip < len(all); skip++ {
		req.Skip = skip
		rep, err := GrepSearch(ctx, NewOverlay(), []string{dir}, req)
		if err != nil {
			t.Fatal(err)
		}
		want := all[min(skip, len(all)):min(len(all), skip+filesPerPage)]
		if fmt.Sprint(shows(rep)) != fmt.Sprint(want) || rep.FilesMatched != len(all) {
			t.Fatalf("skip %d: page %v of %d files, want %v of %d", skip, shows(rep), rep.FilesMatched, want, len(all))
		}
		if skip == 0 {
			continue
		}
		after := all[skip-1]
		rep, err = grepSearch(ctx, NewOverlay(), []string{dir}, req, after, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(shows(rep)) != fmt.Sprint(want) || rep.FilesMatched != len(all) || (rep.Next > 0) != (skip+filesPerPage < len(all)) {
			t.Fatalf("after %s: page %v of %d files, next %d; want %v of %d", after, shows(rep), rep.FilesMatched, rep.Next, want, len(all))
		}
	}
}

// A file cut in a directory search names the call that shows the rest of
// its matches: that call and the pages after it show every match the
// directory page did not, each once, in order — with the search's own
// ignoreCase, literal and context, so the rows are the same search's.
func TestLaw_cut_file_notice_names_the_rest(t *testing.T) {
	hits := lawhit.New(t, map[string]int{"one page more": 5, "several pages more": 3})
	rapid.Check(t, func(rt *rapid.T) {
		dir := tempDir(rt)
		defer os.RemoveAll(dir)
		req := GrepRequest{
			Pattern:    rapid.SampledFrom([]string{"needle.", "Needle."}).Draw(rt, "pattern"),
			IgnoreCase: rapid.Bool().Draw(rt, "ignoreCase"),
			Literal:    rapid.Bool().Draw(rt, "literal"),
			Context:    rapid.IntRange(0, 2).Draw(rt, "context"),
		}
		n := rapid.IntRange(matchesPerFile+1, 4*matchesPerFile).Draw(rt, "lines")
		if rapid.Bool().Draw(rt, "several pages") { // enough for the pages of one file
			n = rapid.IntRange(4*matchesPerPage, 5*matchesPerPage).Draw(rt, "lines")
		}
		lines := rapid.SliceOfN(rapid.SampledFrom([]string{"needle.", "Needle.", "needleX", "hay"}), n, n).Draw(rt, "lines")
		text := []byte(strings.Join(lines, "\n") + "\n")
		writeFile(t, dir, "d/many.txt", text)
		writeFile(t, dir, "d/few.txt", []byte("needle.\n"))
		_, want := matchLines(rt, text, req.Pattern, req.IgnoreCase, req.Literal) // from the whole file
		if len(want) <= matchesPerFile {
			return // the directory page shows them all
		}
		out, err := Grep(context.Background(), NewStore(), NewOverlay(), []string{dir}, req)
		if err != nil {
			rt.Fatal(err)
		}
		groups, _ := parseGrep(t, out)
		var got []int
		var notice string
		for _, g := range groups {
			if headerPath(g.header) == "d/many.txt" {
				for _, r := range g.rows {
					if r.kind == "row" {
						got = append(got, r.n)
					}
				}
				notice = g.notes[len(g.notes)-1]
			}
		}
		_, call, ok := strings.Cut(notice, "next page of them: grep ")
		if !ok {
			rt.Fatalf("the cut file names no call:\n%s", out)
		}
		var next GrepRequest
		if err := json.Unmarshal([]byte(strings.TrimSuffix(call, ")")), &next); err != nil {
			rt.Fatalf("the call %s is not grep's arguments: %v", call, err)
		}
		pages := 0
		for ; ; pages++ {
			rep, err := GrepSearch(context.Background(), NewOverlay(), []string{dir}, next)
			if err != nil {
				rt.Fatalf("%+v: %v", next, err)
			}
			text, _ := rep.Render()
			page, _ := parseGrep(t, text)
			for _, r := range page[0].rows {
				if r.kind == "row" {
					got = append(got, r.n)
				}
			}
			if rep.Next == 0 {
				break
			}
			next.Skip = rep.Next
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			rt.Fatalf("the directory page and the pages the notice leads to show matches\n%v\nwant each match once:\n%v\n%s", got, want, out)
		}
		hits.Hit(map[bool]string{true: "one page more", false: "several pages more"}[pages == 0])
	})
}
