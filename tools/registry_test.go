package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/refusal"
)

// A model that sends wrong arguments learns which argument is wrong in JSON
// terms, never Go's, and the refusal ends with what to do.
func TestBadArgumentsAreNamedInTheSchemasTerms(t *testing.T) {
	s := Open(Options{Roots: []string{t.TempDir()}})
	for _, tc := range []struct{ args, want string }{
		{`{"path":5}`, `"path" must be a string, not number`},
		{`[1]`, `they must be one JSON object, not array`},
		{`{"pathx":"a"}`, `there is no argument "pathx"; the arguments are lines, path, paths`},
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
	if !res.IsError || res.Code != refusal.Unknown || !strings.HasSuffix(res.Text, "the tools are bash, edit, glob, grep, jobs, read, write. Call one of them.") {
		t.Fatalf("got %+v", res)
	}
}

// The roster a model gets every turn stays lean: descriptions and schemas
// of every tool, compacted, under 12,000 characters, and the tools only an
// editor with language servers adds under 700 more (docs/tools.md gives the
// figures).
func TestRosterStaysLean(t *testing.T) {
	total, gated := 0, 0
	for _, tl := range builtin {
		var b bytes.Buffer
		if err := json.Compact(&b, tl.InputSchema); err != nil {
			t.Fatal(err)
		}
		if tl.Name == codeTool.Name {
			gated += len(tl.Description) + b.Len()
		} else {
			total += len(tl.Description) + b.Len()
		}
	}
	t.Logf("roster: %d characters; with the editor's language servers: %d more", total, gated)
	if total >= 12000 {
		t.Fatalf("the roster is %d characters; keep it under 12,000", total)
	}
	if gated >= 700 {
		t.Fatalf("the code tool adds %d characters; keep it under 700", gated)
	}
}
