package lspserver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tandemdev/tandem/tools"
)

var languageCaps = map[string]any{"experimental": map[string]any{"tandem": map[string]any{"languageQuery": true}}}

// fakeLanguage is an editor's language server in miniature: each file's
// problems are its lines holding "undefined_" (an error naming the word),
// read from disk when asked; a settle is a change, so the generation moves.
type fakeLanguage struct {
	mu         sync.Mutex
	generation uint64
	queries    []tools.LanguageQuery
}

func (f *fakeLanguage) problems(path string) []tools.Diagnostic {
	data, _ := os.ReadFile(path)
	out := []tools.Diagnostic{}
	for i, line := range strings.Split(string(data), "\n") {
		if j := strings.Index(line, "undefined_"); j >= 0 {
			word := strings.FieldsFunc(line[j:], func(r rune) bool { return r == '(' || r == ')' || r == ' ' })[0]
			out = append(out, tools.Diagnostic{Range: tools.Range{Start: tools.Position{Line: i, Character: j}}, Severity: 1,
				Message: "undefined: " + word, Source: "compiler"})
		}
	}
	return out
}

func (f *fakeLanguage) answer(root string) func(string, json.RawMessage) any {
	return func(method string, params json.RawMessage) any {
		if method != "tandem/languageQuery" {
			return nil
		}
		var q tools.LanguageQuery
		json.Unmarshal(params, &q)
		f.mu.Lock()
		defer f.mu.Unlock()
		f.queries = append(f.queries, q)
		switch q.Kind {
		case tools.QueryDiagnostics:
			if q.After != nil {
				f.generation++
			}
			uris := q.URIs
			if len(uris) == 0 {
				uris = []string{"file://" + filepath.Join(root, "main.go")}
			}
			var files []tools.FileDiagnostics
			for _, u := range uris {
				p, _ := filePath(u)
				files = append(files, tools.FileDiagnostics{URI: u, Diagnostics: f.problems(p)})
			}
			return tools.DiagnosticsAnswer{Generation: f.generation, Files: files}
		case tools.QuerySymbols:
			return tools.SymbolsAnswer{Symbols: []tools.Symbol{{Name: "main", Kind: 12,
				Range:    tools.Range{Start: tools.Position{Line: 2}, End: tools.Position{Line: 5}},
				Children: []tools.Symbol{{Name: "x", Kind: 13, Range: tools.Range{Start: tools.Position{Line: 3}, End: tools.Position{Line: 3}}}}}}}
		case tools.QueryReferences:
			u := "file://" + filepath.Join(root, "main.go")
			return tools.LocationsAnswer{Locations: []tools.Location{
				{URI: u, Range: tools.Range{Start: tools.Position{Line: 3}}},
				{URI: u, Range: tools.Range{Start: tools.Position{Line: 4}}}}}
		}
		return map[string]any{}
	}
}

// With a client that answers tandem/languageQuery, the code tool is listed
// and its references are seen rows an edit may anchor on; an edit that
// breaks the build says so in its reply, the fix reports it fixed. Without
// the capability the tool is not listed.
func TestLanguage_code_tool_and_diagnostics_after_edits(t *testing.T) {
	root := t.TempDir()
	main := filepath.Join(root, "main.go")
	src := "package main\n\nfunc main() {\n\tx := 1\n\tprintln(x)\n}\n"
	if err := os.WriteFile(main, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startLSP(t)
	lang := &fakeLanguage{}
	p.onRequest(lang.answer(root))
	p.initialize(t, root, languageCaps)
	sess := p.openSession(t)

	var listed toolList
	p.ok("tandem/listTools", map[string]any{"session": sess}, &listed)
	if !listed.has("code") {
		t.Fatalf("the code tool is not listed: %+v", listed)
	}

	text, isErr := p.tool(sess, "code", map[string]any{"op": "references", "path": "main.go", "line": 4, "symbol": "x"})
	if isErr || !strings.Contains(text, "[main.go#") || !strings.Contains(text, "4:\tx := 1") || !strings.Contains(text, "5:\tprintln(x)") {
		t.Fatalf("references: %s", text)
	}
	lang.mu.Lock()
	q := lang.queries[len(lang.queries)-1]
	lang.mu.Unlock()
	if q.Position == nil || *q.Position != (tools.Position{Line: 3, Character: 1}) {
		t.Fatalf("the position of x on line 4: %+v", q.Position)
	}
	tag := strings.TrimSuffix(strings.SplitN(strings.SplitN(text, "#", 2)[1], "]", 2)[0], "")
	// The references' rows are seen: an edit anchors on row 5 without a read.
	text, isErr = p.tool(sess, "edit", map[string]any{"files": []map[string]any{{"path": "main.go", "tag": tag,
		"ops": []map[string]any{{"replace": "5:\tprintln(x)", "text": "\tprintln(undefined_y)"}}}}})
	if isErr || !strings.Contains(text, "1 new problem(s)") || !strings.Contains(text, "main.go:5: error: undefined: undefined_y") {
		t.Fatalf("the breaking edit's reply: %s", text)
	}
	lang.mu.Lock()
	q = lang.queries[len(lang.queries)-1]
	lang.mu.Unlock()
	if q.After == nil || q.SettleMs != 1500 || len(q.URIs) != 1 {
		t.Fatalf("the settle query: %+v", q)
	}
	text, _ = p.tool(sess, "code", map[string]any{"op": "diagnostics", "path": "main.go"})
	if !strings.Contains(text, "main.go:5: error: undefined: undefined_y (compiler)") {
		t.Fatalf("diagnostics: %s", text)
	}
	read, _ := p.tool(sess, "read", map[string]any{"path": "main.go"})
	tag = strings.SplitN(strings.SplitN(read, "#", 2)[1], "]", 2)[0]
	text, isErr = p.tool(sess, "edit", map[string]any{"files": []map[string]any{{"path": "main.go", "tag": tag,
		"ops": []map[string]any{{"replace": "5:\tprintln(undefined_y)", "text": "\tprintln(x)"}}}}})
	if isErr || !strings.Contains(text, "1 problem(s) the editor reported before are fixed") || strings.Contains(text, "new problem") {
		t.Fatalf("the fixing edit's reply: %s", text)
	}
	text, _ = p.tool(sess, "code", map[string]any{"op": "symbols", "path": "main.go"})
	if !strings.Contains(text, "function main 3-6\n  variable x 4") {
		t.Fatalf("symbols: %s", text)
	}

	// Without the capability: no code tool, and edits do not ask.
	plain := startLSP(t)
	plain.initialize(t, root, nil)
	var none toolList
	plain.ok("tandem/listTools", map[string]any{}, &none)
	if none.has("code") || !none.has("edit") {
		t.Fatalf("a client without languageQuery lists: %+v", none)
	}
}

type toolList struct{ Tools []struct{ Name string } }

func (l toolList) has(name string) bool {
	for _, t := range l.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}
