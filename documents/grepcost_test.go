package documents

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tandemdev/tandem/refusal"
)

// costlyPattern keeps about a thousand regexp threads alive on every byte of
// a run of letters: Go's linear-time matcher then needs microseconds a byte,
// about half a minute for a 4 MB file.
const costlyPattern = `(?i)[a-z]{999}[0-9]`

// letters returns at least size bytes of lines of width letters, each
// ended by end.
func letters(size, width int, end string) []byte {
	line := strings.Repeat("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", width/52+1)[:width] + end
	return bytes.Repeat([]byte(line), (size+len(line)-1)/len(line))
}

// A cancel ends a grep at once even inside one 4 MB file whose every byte
// costs the pattern microseconds: through the whole-file candidate search
// over many lines and inside one long line, and through the check of each
// candidate line, and of a long case-insensitive literal whose every byte
// starts a near match.
func TestGrepCancelInsideACostlyFile(t *testing.T) {
	for _, c := range []struct {
		name string
		req  GrepRequest
		text []byte
	}{
		{"lines", GrepRequest{Pattern: costlyPattern}, letters(4e6, 4000, "\n")},
		{"one line", GrepRequest{Pattern: costlyPattern}, letters(4e6, 4e6, "\n")},
		{"line checks", GrepRequest{Pattern: `(?i)[a-z]{999}#`}, letters(4e6, 4000, "#\n")},
		{"folded literal", GrepRequest{Pattern: strings.Repeat("b", 999) + "a", IgnoreCase: true, Literal: true}, bytes.Repeat([]byte(strings.Repeat("b", 4000)+"\n"), 1000)},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "big.txt", c.text)
			req := c.req
			req.Path = "big.txt"
			cancelMidway(t, func(ctx context.Context) error {
				_, err := GrepSearch(ctx, NewOverlay(), []string{dir}, req)
				return err
			})
		})
	}
}

// cancelMidway runs call, cancels its context once it has run 300 ms, and
// fails unless the call then returns the cancelled refusal within 2 s (the
// goal is 100 ms; a loaded machine gets room). It logs how long that took.
func cancelMidway(t *testing.T, call func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- call(ctx) }()
	select {
	case err := <-done:
		t.Fatalf("the call ended before the cancel (%v): its input is not costly enough to test", err)
	case <-time.After(300 * time.Millisecond):
	}
	start := time.Now()
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the call still runs 30 s after its cancel")
	}
	took := time.Since(start)
	t.Logf("returned %v after the cancel", took)
	if codeOf(err) != refusal.Cancelled || took > 2*time.Second {
		t.Fatalf("a cancelled call returned %v after %v, want a cancelled refusal at once", err, took)
	}
}

// A search that passes its time limit stops, shows what it found and says
// which file it searched only in part, where it stopped and what to do.
func TestGrepCutsACostlySearchWithANotice(t *testing.T) {
	defer func(d time.Duration) { searchTimeLimit = d }(searchTimeLimit)
	searchTimeLimit = 200 * time.Millisecond
	dir := t.TempDir()
	text := append(letters(1000, 1000, "7\n"), letters(4e6, 4000, "\n")...)
	writeFile(t, dir, "big.txt", text)
	writeFile(t, dir, "small.txt", []byte("no match here\n"))
	for _, path := range []string{"big.txt", ""} {
		start := time.Now()
		out, err := Grep(context.Background(), NewStore(), NewOverlay(), []string{dir}, GrepRequest{Pattern: costlyPattern, Path: path})
		t.Logf("path %q: returned after %v", path, time.Since(start))
		if err != nil {
			t.Fatal(err)
		}
		groups, notices := parseGrep(t, out)
		if len(groups) != 1 || len(groups[0].rows) != 1 || groups[0].rows[0].n != 1 {
			t.Fatalf("the match on line 1 is not shown:\n%s", out)
		}
		if len(groups[0].notes) != 1 || !strings.Contains(groups[0].notes[0], "the search stopped after 200ms, at line ") {
			t.Fatalf("the shown file does not say where its search stopped:\n%s", out)
		}
		if !gapNotices[ClassCut].MatchString(notices[len(notices)-1]) || !strings.Contains(notices[len(notices)-1], "e.g. big.txt") {
			t.Fatalf("no notice names the file searched in part:\n%s", out)
		}
	}
}
