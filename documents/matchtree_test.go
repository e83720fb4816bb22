package documents

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"

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
// directories hold files and subdirectories, with a glob filter (matched from the directory searched) and an
// open buffer not saved yet, searched below the workspace root.
func TestGrepFarPageFromCountsIsTheKeptNamesPage(t *testing.T) {
	root := t.TempDir()
	names := []string{"a.c", "a-b.c", "a0.c", "b.c", "z.c", "notes.txt"}
	dirs := []string{"src", "src/a", "src/a-b", "src/a/x", "src/a0", "src/b/c/d"}
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
				writeFile(t, root, path.Join(dir, fmt.Sprintf("%d-%s", i, name)), []byte(content))
				n++
			}
		}
	}
	buffers := NewOverlay()
	buffers.Open(root+"/src/a/new.c", 1, []byte("int y;\n")) // not on disk
	req := GrepRequest{Pattern: "int", Path: "src", Glob: "{a,a0,b}/**/*.c", Output: "files"}
	store := NewStore()
	all, err := store.GrepPage(context.Background(), buffers, []string{root}, req)
	if err != nil {
		t.Fatal(err)
	}
	if all.FilesMatched <= treeFrom+20 {
		t.Fatalf("only %d files match; the test needs more than %d", all.FilesMatched, treeFrom+20)
	}
	for _, skip := range []int{treeFrom, all.FilesMatched / 2, all.FilesMatched - 3} {
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
		if len(far.Page) == 0 {
			t.Fatalf("skip %d: an empty page", skip)
		}
	}
}
