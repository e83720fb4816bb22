package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

// The documents tools through the registry, as every front door calls them:
// the schemas decode strictly, results and refusals keep their shape, and a
// read records what it showed in the session.
func TestDocumentsToolsThroughTheRegistry(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Open(Options{Roots: []string{dir}})
	ctx := context.Background()
	call := func(name, args string) Result { return Call(ctx, s, name, json.RawMessage(args)) }

	res := call("read", `{"path":"a.txt","lines":"2"}`)
	tag := documents.TagOf([]byte("alpha\nbeta\n"))
	if res.IsError || !strings.HasPrefix(res.Text, "[a.txt#"+string(tag)+"]\n2:beta\n") {
		t.Fatalf("read: %+v", res)
	}
	abs := filepath.Join(dir, "a.txt")
	if !s.Seen.Seen(abs, tag, 2) || s.Seen.Seen(abs, tag, 1) {
		t.Fatal("read must mark exactly the shown row seen")
	}
	if res := call("read", `{"path":"a.txt","lines":1}`); res.IsError || !strings.Contains(res.Text, "\n1:alpha\n") {
		t.Fatalf("read with a bare line number: %+v", res)
	}
	if res := call("grep", `{"pattern":"ALPHA","ignoreCase":true}`); res.IsError || !strings.Contains(res.Text, "1:alpha") {
		t.Fatalf("grep: %+v", res)
	}
	if res := call("glob", `{"pattern":"*.txt"}`); res.IsError || !strings.Contains(res.Text, "\na.txt\n") {
		t.Fatalf("glob: %+v", res)
	}
	// Every property of the schemas decodes into the request.
	if res := call("grep", `{"pattern":"alpha","path":".","glob":"*.txt","ignoreCase":false,"literal":true,"skip":0}`); res.IsError || !strings.Contains(res.Text, "1:alpha") {
		t.Fatalf("grep with every argument: %+v", res)
	}
	if res := call("glob", `{"pattern":"*.txt","path":".","skip":0,"limit":5}`); res.IsError || !strings.Contains(res.Text, "\na.txt\n") {
		t.Fatalf("glob with every argument: %+v", res)
	}
	for _, c := range [][2]string{
		{"read", `{"path":"a.txt","line":"2"}`}, {"read", `{"path":"a.txt","lines":[1]}`},
		{"grep", `{"pattern":1}`}, {"glob", `{"pattern":"*","limit":"x"}`},
	} {
		if res := call(c[0], c[1]); !res.IsError || res.Code != refusal.Invalid {
			t.Errorf("%s %s: %+v, want an invalid refusal", c[0], c[1], res)
		}
	}
	if res := call("read", `{"path":"repo://../x"}`); res.Code != refusal.Escapes || !strings.HasSuffix(res.Text, ".") {
		t.Errorf("escapes: %+v", res)
	}
	for _, tool := range List(s) {
		if tool.Name == "read" || tool.Name == "grep" || tool.Name == "glob" {
			var schema map[string]any
			if err := json.Unmarshal(tool.InputSchema(), &schema); err != nil || schema["type"] != "object" {
				t.Errorf("%s schema: %v", tool.Name, err)
			}
		}
	}
}
