package tandem

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/tandemdev/tandem"

// testHelpers are the packages any package's tests may import beside its
// own allowed imports (docs/architecture.md, "Import rules").
func isTestHelper(pkg string) bool {
	return strings.HasPrefix(pkg, "internal/") || strings.HasPrefix(pkg, "shell/internal/") ||
		slices.Contains([]string{"acpserver/acptest", "agent/providers/fake", "agent/providers/scripted", "tandem"}, pkg)
}

// upstreamTestImport reports whether the tests of a package of the patched
// interpreter import another of its packages, as upstream's own tests,
// carried as they are, do.
func upstreamTestImport(from, to string) bool {
	const upstream = "third_party/mvdan-sh/"
	return strings.HasPrefix(from, upstream) && strings.HasPrefix(to, upstream)
}

// The import rules of docs/architecture.md hold: every package of the
// module is in its table, and every arrow between tandem's packages, in
// code and in tests, is one the table allows.
func TestImportRulesOfTheArchitecturePage(t *testing.T) {
	rules := importRules(t, "docs/architecture.md")
	out, err := exec.Command("go", "list", "-deps", "-test", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for {
		var p struct {
			ImportPath, ForTest string
			Imports             []string
			TestImports         []string
			XTestImports        []string
			Standard            bool
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		name, ours := short(p.ImportPath)
		if !ours || p.ForTest != "" || strings.HasSuffix(p.ImportPath, ".test") || strings.Contains(p.ImportPath, " [") {
			continue
		}
		allowed, listed := rules[name]
		if !listed {
			t.Errorf("package %s is not in the import rules of docs/architecture.md; add its row", name)
			continue
		}
		checked++
		for _, imp := range p.Imports {
			if to, ok := short(imp); ok && !allowed[to] {
				t.Errorf("%s imports %s, which docs/architecture.md does not allow", name, to)
			}
		}
		for _, imp := range append(p.TestImports, p.XTestImports...) {
			if to, ok := short(imp); ok && to != name && !allowed[to] && !isTestHelper(to) && !upstreamTestImport(name, to) {
				t.Errorf("the tests of %s import %s, which docs/architecture.md does not allow", name, to)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d packages checked; go list's output was not read", checked)
	}
}

// short names a package of the module as the page does: its path inside
// the module, or "tandem" for the root.
func short(path string) (string, bool) {
	if path == module {
		return "tandem", true
	}
	rest, ok := strings.CutPrefix(path, module+"/")
	return rest, ok
}

// importRules reads the table under "### Import rules": each row's first
// cell names a package, the second the packages it may import.
func importRules(t *testing.T, page string) map[string]map[string]bool {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	code := regexp.MustCompile("`([^`]+)`")
	rules := map[string]map[string]bool{}
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#"):
			in = line == "### Import rules"
		case in && strings.HasPrefix(line, "| `"):
			cells := strings.Split(line, "|")
			pkg := code.FindStringSubmatch(cells[1])
			allowed := map[string]bool{}
			for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
				allowed[m[1]] = true
			}
			rules[pkg[1]] = allowed
		}
	}
	if len(rules) == 0 {
		t.Fatalf("%s has no import rules table", page)
	}
	return rules
}
