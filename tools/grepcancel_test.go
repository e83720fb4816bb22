package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tandemdev/tandem/refusal"
)

// A grep whose pattern costs microseconds a byte of a 4 MB file ends at
// once when its caller cancels it or its session closes, through the
// registry as every front door calls it.
func TestCostlyGrepEndsWithItsCallOrSession(t *testing.T) {
	dir := t.TempDir()
	line := strings.Repeat("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 80) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), bytes.Repeat([]byte(line), 4e6/len(line)), 0o644); err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"pattern":"(?i)[a-z]{999}[0-9]","path":"big.txt"}`)
	for _, end := range []string{"cancel", "close"} {
		t.Run(end, func(t *testing.T) {
			s := Open(Options{Roots: []string{dir}})
			defer s.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan Result, 1)
			go func() { done <- Call(ctx, s, "grep", args) }()
			select {
			case res := <-done:
				t.Fatalf("grep ended before the %s: %+v", end, res)
			case <-time.After(300 * time.Millisecond):
			}
			start := time.Now()
			if end == "cancel" {
				cancel()
			} else {
				s.Close() // cancels the call and waits for it
			}
			var res Result
			select {
			case res = <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("grep still runs 30 s after the %s", end)
			}
			took := time.Since(start)
			t.Logf("grep returned %v after the %s", took, end)
			if res.Code != refusal.Cancelled {
				t.Fatalf("grep after the %s: %+v, want a cancelled refusal", end, res)
			}
			if took > 2*time.Second { // the goal is 100 ms; a loaded machine gets room
				t.Fatalf("grep returned %v after the %s", took, end)
			}
		})
	}
}
