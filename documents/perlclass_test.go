package documents

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// Perl classes mean what they mean in ripgrep: Unicode-aware unless a u
// flag turns that off, outside and inside brackets, negated or not, beside
// escapes that look like them. Each pattern's matching lines on a fixture
// of non-ASCII identifiers, digits and spaces are the real rg's.
func TestLaw_perl_classes_match_as_in_ripgrep(t *testing.T) {
	dir, err := filepath.Abs("testdata/unicode")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "identifiers.txt")
	for _, pattern := range []string{
		`\w+`, `^\w+$`, `^\w+\(\)$`, `\w+\(\)`, `^[\w]+$`, `^[^\W]+$`, `^[^\W\d_]+$`, `^[\w()]+$`,
		`^\d+$`, `^[\d]+$`, `^\D+$`, `^[^\D]+$`, `^\w+\s\w+$`, `^\S+$`, `^[\s\w]+$`, `^[^\s]+$`, `\W`, `^\W+$`,
		`^(?-u)\w+$`, `^(?-u:\w+)$`, `^(?-u:\w+)\(\)$`, `^(?-u)[\w]+$`, `^(?-u)(?u)\w+$`, `^(?-u)(?:\w+|(?u:\d+))$`,
		`^(?i)ΑΒΓ$`, `^(?i)\w+gine$`, `^[[:alpha:]_]+$`, `^\pL+$`, `^\p{Greek}+$`, `\Q\w\E`, `^[\]\w]+$`,
		`\x{0661}\d`, `^(?P<id>\w+)$`, `^\w\W\w$`,
	} {
		want := rgLines(t, pattern, path)
		rep, err := GrepSearch(context.Background(), nil, []string{dir}, GrepRequest{Pattern: pattern, Path: "identifiers.txt"})
		if err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		var got []int
		if len(rep.Page) > 0 {
			for _, h := range rep.Page[0].Hits {
				got = append(got, h.N)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s matches lines %v; rg matches %v", pattern, got, want)
		}
	}
}
