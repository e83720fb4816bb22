package documents

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"pgregory.net/rapid"
)

// A page found through the counts per directory is the page of the sorted
// names, whatever the paths: names around "/" in byte order ("a-b" and
// "a.c" before "a/", "a0" after it), files beside subdirectories, files at
// the top, absolute paths. Only directories with a file on the page have
// their own files listed again.
func TestMatchTreePageIsTheSortedNamesPage(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		part := rapid.SampledFrom([]string{"a", "a-b", "a.c", "a0", "b", "ab", "a_", "z"})
		shows := rapid.SliceOfNDistinct(rapid.Custom(func(t *rapid.T) string {
			parts := rapid.SliceOfN(part, 1, 4).Draw(t, "parts")
			show := strings.Join(parts, "/")
			if rapid.IntRange(0, 9).Draw(t, "abs") == 0 {
				show = "/" + show
			}
			return show
		}), 1, 200, rapid.ID[string]).Draw(t, "shows")
		// A path cannot be a file and a directory at once: drop the files
		// that another path goes through.
		var files []string
		for _, s := range shows {
			if !slices.ContainsFunc(shows, func(o string) bool { return strings.HasPrefix(o, s+"/") }) {
				files = append(files, s)
			}
		}
		var tree matchTree
		for _, f := range slices.Clone(files) {
			tree.add(f)
		}
		tree.finish()
		var asked []string
		own := func(prefix string) []string {
			asked = append(asked, prefix)
			var names []string
			for _, f := range files {
				if rest, ok := strings.CutPrefix(f, prefix); ok && !strings.Contains(rest, "/") {
					names = append(names, rest)
				}
			}
			return names
		}
		start := rapid.IntRange(0, len(files)).Draw(t, "start")
		n := rapid.IntRange(1, 20).Draw(t, "n")
		sorted := slices.Sorted(slices.Values(files))
		want := sorted[start:min(start+n, len(files))]
		if got := tree.page(start, n, own); !slices.Equal(got, want) {
			t.Fatalf("page at %d of %d: %q, want %q", start, n, got, want)
		}
		for _, prefix := range asked {
			if !slices.ContainsFunc(want, func(f string) bool { return strings.HasPrefix(f, prefix) }) {
				t.Fatalf("the files of %q were listed again for the page %q, which has none of them", prefix, want)
			}
		}
	})
}

// A one-call page far down the list (skip past treeFrom) is the same page
// as a session's served one, which keeps every name: in a tree whose
// directories hold files and subdirectories, with a glob filter (matched
// from the directory searched) and an open buffer not saved yet, searched
// below the workspace root.
func TestGrepFarPageFromCountsIsTheKeptNamesPage(t *testing.T) {
	root := t.TempDir()
	names := []string{"a.c", "a-b.c", "a0.c", "b.c", "z.c", "notes.txt"}
	dirs := []string{"src", "src/a", "src/a-b", "src/a/x", "src/a0", "src/b/c/d"}
	const glob = "{a,a0,b}/**/*.c"
	var matching []string // what the request finds, as shown
	n := 0
	for i := 0; n < 3*treeFrom; i++ { // about half of them match
		for _, d := range dirs {
			for _, name := range names {
				dir := fmt.Sprintf("%s/m%02d", d, i)
				if name == "a.c" {
					dir = d // a directory's own files beside its subdirectories
				}
				content := "int x;\n"
				if (n+len(name))%7 == 0 {
					content = "none here\n" // a file without a match
				}
				show := path.Join(dir, fmt.Sprintf("%d-%s", i, name))
				writeFile(t, root, show, []byte(content))
				if ok, _ := doublestar.Match(glob, strings.TrimPrefix(show, "src/")); ok && content == "int x;\n" {
					matching = append(matching, show)
				}
				n++
			}
		}
	}
	buffers := NewOverlay()
	const unsaved = "src/b/new.c"
	buffers.Open(root+"/"+unsaved, 1, []byte("int y;\n")) // not on disk
	matching = append(matching, unsaved)
	slices.Sort(matching)
	req := GrepRequest{Pattern: "int", Path: "src", Glob: glob, Output: "files"}
	store := NewStore()
	all, err := store.GrepPage(context.Background(), buffers, []string{root}, req)
	if err != nil {
		t.Fatal(err)
	}
	if all.FilesMatched != len(matching) {
		t.Fatalf("%d files match, want %d", all.FilesMatched, len(matching))
	}
	atUnsaved := slices.Index(matching, unsaved)
	if atUnsaved < treeFrom || all.FilesMatched < treeFrom+20 {
		t.Fatalf("%d files match and the unsaved buffer is the %dth; the test needs more, past %d", all.FilesMatched, atUnsaved, treeFrom)
	}
	for _, skip := range []int{treeFrom, all.FilesMatched / 2, atUnsaved, all.FilesMatched - 3} {
		req.Skip = skip
		served, err := store.GrepPage(context.Background(), buffers, []string{root}, req)
		if err != nil {
			t.Fatal(err)
		}
		far, err := GrepSearch(context.Background(), buffers, []string{root}, req)
		if err != nil {
			t.Fatal(err)
		}
		shown := func(r *GrepReport) (out []string) {
			for _, f := range r.Page {
				out = append(out, f.Show)
			}
			return out
		}
		if !slices.Equal(shown(far), shown(served)) || far.FilesMatched != served.FilesMatched || far.Next != served.Next {
			t.Fatalf("skip %d: one call showed %q (%d files, next %d); the session %q (%d, next %d)",
				skip, shown(far), far.FilesMatched, far.Next, shown(served), served.FilesMatched, served.Next)
		}
		if got := shown(far); len(got) == 0 || !slices.Equal(got, matching[skip:skip+len(got)]) {
			t.Fatalf("skip %d: the page %q, want the files from %q on", skip, got, matching[skip])
		}
	}
}
