package shell

import (
	"encoding/json"
	"testing"
	"unicode"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/refusal"
)

// A bash result's structured content is the Result as JSON: every key of it,
// its steps' and its output's, is lowerCamel like the rest of tandem's wire
// format.
func TestResultKeysAreLowerCamel(t *testing.T) {
	res := Result{End: Failed, Status: 1, RefusedAt: 1, Error: "e", Refusal: refusal.New(refusal.Denied, "no"),
		Steps:  []Step{{N: 1, Text: "rm x", Effects: approvals.Of(approvals.Write), Status: -1}},
		Output: Output{Text: "a", Total: 3, Dropped: 2}}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if r := []rune(k); len(r) == 0 || !unicode.IsLower(r[0]) {
					t.Errorf("key %q in %s", k, b)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	out, _ := v.(map[string]any)["output"].(map[string]any)
	if out["text"] != "a" || out["total"] != 3.0 || out["dropped"] != 2.0 {
		t.Errorf("output %v, want text, total and dropped", out)
	}
}
