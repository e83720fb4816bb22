package documents

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
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
