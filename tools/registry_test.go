package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tandemdev/tandem/refusal"
)

// A model that sends wrong arguments learns which argument is wrong in JSON
// terms, never Go's, and the refusal ends with what to do.
func TestBadArgumentsAreNamedInTheSchemasTerms(t *testing.T) {
	s := Open(Options{Roots: []string{t.TempDir()}})
	for _, tc := range []struct{ args, want string }{
		{`{"path":5}`, `"path" must be a string, not number`},
		{`[1]`, `they must be one JSON object, not array`},
		{`{"pathx":"a"}`, `there is no argument "pathx"; the arguments are columns, lines, path, paths`},
		{`{"path":"a", }`, `they are not valid JSON`},
	} {
		res := Call(context.Background(), s, "read", json.RawMessage(tc.args))
		if !res.IsError || res.Code != refusal.Invalid {
			t.Errorf("%s: got %+v, want an invalid refusal", tc.args, res)
			continue
		}
		if !strings.Contains(res.Text, tc.want) || !strings.HasSuffix(res.Text, "Fix the arguments and call again.") {
			t.Errorf("%s: refusal %q does not say %q and end with the next step", tc.args, res.Text, tc.want)
		}
		if strings.Contains(res.Text, "Go value") || strings.Contains(res.Text, "struct {") {
			t.Errorf("%s: refusal leaks Go types: %q", tc.args, res.Text)
		}
	}
}

func TestUnknownToolIsRefusedWithTheNextStep(t *testing.T) {
	s := Open(Options{Roots: []string{t.TempDir()}})
	res := Call(context.Background(), s, "nope", nil)
	if !res.IsError || res.Code != refusal.Unknown || !strings.HasSuffix(res.Text, "the tools are bash, edit, fetch, glob, grep, jobs, read, write. Call one of them.") {
		t.Fatalf("got %+v", res)
	}
}

// The roster a model gets every turn stays lean: descriptions and schemas
// of every tool, compacted, under 12,600 characters, and the tools only an
// editor with language servers adds under 700 more (docs/tools.md gives the
// figures).
func TestRosterStaysLean(t *testing.T) {
	total, gated := 0, 0
	for _, tl := range builtin() {
		var b bytes.Buffer
		if err := json.Compact(&b, tl.InputSchema()); err != nil {
			t.Fatal(err)
		}
		if tl.Name == codeTool.Name {
			gated += len(tl.Description) + b.Len()
		} else {
			total += len(tl.Description) + b.Len()
		}
	}
	t.Logf("roster: %d characters; with the editor's language servers: %d more", total, gated)
	if total >= 12600 {
		t.Fatalf("the roster is %d characters; keep it under 12,600", total)
	}
	if gated >= 700 {
		t.Fatalf("the code tool adds %d characters; keep it under 700", gated)
	}
}

// Every tool's examples fit both halves of its definition: the schema the
// model is given (as it is sent) accepts them, and a call decodes them into
// the argument struct, so the two say the same. A key neither knows is
// refused by both.
func TestEveryExampleFitsItsSchemaAndItsStruct(t *testing.T) {
	for _, tl := range builtin() {
		var schema jsonschema.Schema
		if err := json.Unmarshal(tl.InputSchema(), &schema); err != nil {
			t.Fatalf("%s: the schema sent is not a schema: %v", tl.Name, err)
		}
		resolved, err := schema.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: the schema does not resolve: %v", tl.Name, err)
		}
		if len(tl.Examples) == 0 {
			t.Errorf("%s has no example", tl.Name)
		}
		unknown := json.RawMessage(`{"noSuchArgument":1}`)
		for _, ex := range append(tl.Examples, unknown) {
			var v any
			if err := json.Unmarshal(ex, &v); err != nil {
				t.Fatalf("%s: example %s is not JSON: %v", tl.Name, ex, err)
			}
			schemaErr, decodeErr := resolved.Validate(v), tl.check(ex)
			if string(ex) == string(unknown) {
				if schemaErr == nil || decodeErr == nil {
					t.Errorf("%s: %s: the schema says %v and a call %v; want both to refuse it", tl.Name, ex, schemaErr, decodeErr)
				}
				continue
			}
			if schemaErr != nil {
				t.Errorf("%s: the schema refuses example %s: %v", tl.Name, ex, schemaErr)
			}
			if decodeErr != nil {
				t.Errorf("%s: a call refuses example %s: %v", tl.Name, ex, decodeErr)
			}
		}
	}
}

// What the editor shows of a call as it starts — a title and the paths to
// follow — comes from the call's arguments, read the way the tool reads
// them, even arguments it will refuse.
func TestCallsAreTitledWithThePathsTheyName(t *testing.T) {
	for _, tc := range []struct {
		tool, args, title string
		paths             []string
	}{
		{"read", `{"path":"a.go","lines":"1-5"}`, "Read a.go (lines 1-5)", []string{"a.go"}},
		{"read", `{"path":"a.go","paths":["b.go",{"path":"c.go","lines":"2"}]}`, "Read a.go, b.go, c.go", []string{"a.go", "b.go", "c.go"}},
		{"grep", `{"pattern":"x|y","path":"src"}`, "Search for x|y", []string{"src"}},
		{"glob", `{"pattern":"**/*.go"}`, "Find **/*.go", nil},
		{"edit", `{"files":[{"path":"a.go","moveTo":"b.go"},{"path":"c.go","ops":"wrong"}]}`, "Edit a.go, b.go, c.go", []string{"a.go", "b.go", "c.go"}},
		{"edit", `{"file_path":"a.go","old_string":"x","new_string":"y"}`, "Edit a.go", []string{"a.go"}},
		{"write", `{"path":"n.md","content":"x"}`, "Write n.md", []string{"n.md"}},
		{"bash", `{"command":"go vet ./...\ngo test ./..."}`, "go vet ./... …", nil},
		{"code", `{"op":"symbols","path":"a.go"}`, "code", []string{"a.go"}},
		{"nosuch", `{"path":"a.go"}`, "nosuch", nil},
	} {
		tl, _ := Lookup(tc.tool)
		if title, paths := tl.Title(json.RawMessage(tc.args)), tl.Paths(json.RawMessage(tc.args)); title != tc.title || !slices.Equal(paths, tc.paths) {
			t.Errorf("%s %s: titled %q with paths %q; want %q, %q", tc.tool, tc.args, title, paths, tc.title, tc.paths)
		}
	}
}
