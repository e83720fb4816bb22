package documents

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// grepBenchPatterns are the searches the speed of grep is judged on: a
// literal, a regexp with a required literal, a case-insensitive one, and
// one with no literal at all (the whole-file candidate regexp).
var grepBenchPatterns = []struct {
	name string
	req  GrepRequest
}{
	{"literal", GrepRequest{Pattern: "ErrUnexpectedEOF", Literal: true}},
	{"regex", GrepRequest{Pattern: `func \(\w+ \*\w+\) Write\w*\(`}},
	{"ignorecase", GrepRequest{Pattern: "unexpected eof", IgnoreCase: true}},
	{"noliteral", GrepRequest{Pattern: `[A-Z][a-z]+[0-9]{3}`}},
}

// BenchmarkGrepGoroot searches the Go source tree (the first page, as the
// tool does), and one 4 MB file of it.
func BenchmarkGrepGoroot(b *testing.B) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	big := filepath.Join(b.TempDir(), "big.go")
	var text []byte
	for _, dir := range []string{"net/http", "runtime"} {
		files, _ := filepath.Glob(filepath.Join(src, dir, "*.go"))
		for _, f := range files {
			if len(text) > 4e6 {
				break
			}
			data, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			text = append(text, data...)
		}
	}
	must(b, os.WriteFile(big, text[:4e6-1000], 0o644))
	for _, p := range grepBenchPatterns {
		for _, scope := range []struct{ name, root, path string }{{"tree", src, ""}, {"4MB", filepath.Dir(big), "big.go"}} {
			b.Run(p.name+"/"+scope.name, func(b *testing.B) {
				req := p.req
				req.Path = scope.path
				for b.Loop() {
					if _, err := GrepSearch(context.Background(), nil, []string{scope.root}, req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
