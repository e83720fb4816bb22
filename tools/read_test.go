package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

// A read of several parts, followed through the reads its last line gives,
// shows every part exactly once and in order — a file under its header, a
// missing one as its refusal — and a reply of more than one part stays
// within one read's 2000 rows. A part left for the next call is not seen
// until that call shows it.
func TestReadPartsEachOnceWithinOneReadsBound(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp("", "tandem-parts-")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(dir)
		s := Open(Options{Roots: []string{dir}})
		defer s.Close()
		var parts []readPart
		var want []string // per part: its header, or "missing"
		for i := range rapid.IntRange(2, 6).Draw(rt, "parts") {
			name := fmt.Sprintf("f%d.txt", i)
			lines := rapid.IntRange(0, 1500).Draw(rt, "lines")
			if lines == 0 {
				parts = append(parts, readPart{Path: name})
				want = append(want, "missing "+name)
				continue
			}
			var b strings.Builder
			for n := 1; n <= lines; n++ {
				fmt.Fprintf(&b, "line %d of %s\n", n, name)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
				rt.Fatal(err)
			}
			parts = append(parts, readPart{Path: name})
			want = append(want, fmt.Sprintf("[%s#%s]", name, documents.TagOf([]byte(b.String()))))
		}
		args, _ := json.Marshal(map[string]any{"paths": parts})
		var got []string
		for call := 0; ; call++ {
			res := Call(context.Background(), s, "read", args)
			lines := strings.Split(strings.TrimSuffix(res.Text, "\n"), "\n")
			shown, rows := 0, 0
			next := ""
			for _, l := range lines {
				switch {
				case strings.HasPrefix(l, "["):
					got = append(got, l)
					shown++
				case strings.HasPrefix(l, "(part ") && strings.Contains(l, " does not exist."):
					got = append(got, "missing "+strings.Split(l, ", ")[1])
					shown++
				case strings.HasPrefix(l, "(shown: "):
					_, next, _ = strings.Cut(l, "read next: read ")
					next = strings.TrimSuffix(next, ")")
					continue
				}
				rows++
			}
			if shown > 1 && rows > 2000 {
				rt.Fatalf("call %d shows %d parts in %d lines, past one read's 2000", call, shown, rows)
			}
			for _, p := range parts[len(got):] {
				if tag, ok := s.Seen.Latest(filepath.Join(dir, p.Path)); ok {
					rt.Fatalf("%s is seen (%s) before a reply showed it", p.Path, tag)
				}
			}
			if next == "" {
				break
			}
			args = json.RawMessage(next)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			rt.Fatalf("the replies showed\n%v\nwant each part once, in order:\n%v", got, want)
		}
	})
}

// A call of several parts is an error only when no part was shown: then
// the model's client marks it failed, with the first refusal's code.
func TestReadPartsIsAnErrorOnlyWhenNothingIsShown(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Open(Options{Roots: []string{dir}})
	defer s.Close()
	res := Call(context.Background(), s, "read", json.RawMessage(`{"paths":["x.txt","y.txt"]}`))
	if !res.IsError || res.Code != refusal.NotFound || !strings.HasSuffix(res.Text, "(shown: no part of 2; refused: parts 1-2, as said above)\n") {
		t.Fatalf("no part shown: %+v", res)
	}
	if res := Call(context.Background(), s, "read", json.RawMessage(`{"paths":["x.txt","a.txt"]}`)); res.IsError {
		t.Fatalf("a.txt was shown, yet the call failed: %+v", res)
	}
}
