package tools

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the transcripts' want sections with what the tools answer now")

// TestTranscripts replays testdata/transcripts: what a model sends and the
// exact text it gets back. Each archive holds the workspace's files, then
// steps in order:
//
//	-- call --   TOOL JSON: a call; the next want holds its exact text
//	-- want --   the text the model gets ($WORK is the workspace root)
//	-- next --   TOOL JSON: the call a model makes from that text; it must
//	             not be refused (it may be followed by a want too)
//	-- rewrite PATH --  the file changes under the model (the user typed)
//
// A refusal that costs the model a wasted turn shows up here as a want the
// model cannot act on, or a next that is refused. `go test ./tools -run
// Transcripts -update` rewrites the wants; review the diff before keeping it.
func TestTranscripts(t *testing.T) {
	paths, err := filepath.Glob("testdata/transcripts/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no transcripts: %v", err)
	}
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txtar"), func(t *testing.T) {
			replayTranscript(t, p)
		})
	}
}

func replayTranscript(t *testing.T, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	s := Open(Options{Roots: []string{ws}})
	defer s.Close()
	var last Result
	changed := false
	for i, f := range ar.Files {
		switch f.Name {
		case "call", "next":
			name, args, _ := strings.Cut(strings.TrimSpace(string(f.Data)), " ")
			last = Call(context.Background(), s, name, json.RawMessage(args))
			if f.Name == "next" && last.IsError {
				t.Errorf("the next call a model would make, %s %s, was refused:\n%s", name, args, last.Text)
			}
		case "want":
			got := strings.ReplaceAll(last.Text, ws, "$WORK")
			if !strings.HasSuffix(got, "\n") {
				got += "\n"
			}
			if got != string(f.Data) {
				if *update {
					ar.Files[i].Data, changed = []byte(got), true
					continue
				}
				t.Errorf("the model gets:\n%s\nwant:\n%s", got, f.Data)
			}
		default:
			file := filepath.Join(ws, filepath.FromSlash(strings.TrimPrefix(f.Name, "rewrite ")))
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if changed {
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
