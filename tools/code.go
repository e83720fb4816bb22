package tools

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

func init() { register(codeTool) }

var codeTool = spec[codeArgs]{
	Tool: Tool{
		Name:        "code",
		DisplayName: "Code intelligence",
		Description: `Ask the editor's language servers. op "symbols" {path}: the file's outline. ` +
			`"definition", "references", "hover" {path, line, symbol}: at the first whole word symbol on that row (or "column", 1-based). ` +
			`"diagnostics" {path?}: current problems. Locations come back as [path#TAG] rows, which count as seen. ` +
			`edit and write replies list the problems a change brought or fixed.`,
		Examples: examples(`{"op":"symbols","path":"main.go"}`, `{"op":"definition","path":"main.go","line":12,"symbol":"Serve"}`,
			`{"op":"hover","path":"main.go","line":12,"column":5}`, `{"op":"diagnostics"}`),
		ReadOnly:  true,
		Available: func(s *Session) bool { return s.opts.Language != nil },
	},
	run: func(ctx context.Context, s *Session, a codeArgs) Result {
		text, err := a.run(ctx, s)
		if err != nil {
			return Refused(err)
		}
		return Result{Text: text}
	},
	paths: func(a codeArgs) []string { return nonEmpty(a.Path) },
	refine: func(s *jsonschema.Schema) {
		p := s.Properties
		p["op"] = &jsonschema.Schema{Enum: []any{QuerySymbols, QueryDefinition, QueryReferences, QueryHover, QueryDiagnostics}}
		p["line"].Minimum, p["column"].Minimum = jsonschema.Ptr(1.0), jsonschema.Ptr(1.0)
	},
}

// codeArgs are the code tool's arguments.
type codeArgs struct {
	Op     string `json:"op"`
	Path   string `json:"path,omitempty"`
	Line   int    `json:"line,omitempty"`
	Symbol string `json:"symbol,omitempty"`
	Column int    `json:"column,omitempty"`
}

func (a codeArgs) run(ctx context.Context, s *Session) (string, error) {
	if a.Op == QueryDiagnostics && a.Path == "" {
		return diagnosticsOf(ctx, s, nil)
	}
	if a.Path == "" {
		return "", refusal.New(refusal.Invalid, fmt.Sprintf(`code %q needs "path". Call code {"op":%q,"path":"FILE"…} again.`, a.Op, a.Op))
	}
	if err := s.gateDocument(ctx, approvals.AccessRead, a.Path); err != nil {
		return "", err
	}
	abs, err := documents.Resolve(s.Roots, a.Path)
	if err != nil {
		return "", err
	}
	s.pull(ctx, a.Path)
	switch a.Op {
	case QueryDiagnostics:
		return diagnosticsOf(ctx, s, []string{abs})
	case QuerySymbols:
		return symbolsOf(ctx, s, abs)
	}
	pos, err := a.position(s, abs)
	if err != nil {
		return "", err
	}
	q := LanguageQuery{Kind: a.Op, URI: fileURI(abs), Position: &pos}
	if a.Op == QueryHover {
		var h HoverAnswer
		if err := s.opts.Language.Query(ctx, q, &h); err != nil {
			return "", languageFailed(err)
		}
		if strings.TrimSpace(h.Contents) == "" {
			return "The language servers have nothing to show there.", nil
		}
		return capText(h.Contents, maxHoverBytes), nil
	}
	var l LocationsAnswer
	if err := s.opts.Language.Query(ctx, q, &l); err != nil {
		return "", languageFailed(err)
	}
	if len(l.Locations) == 0 {
		return fmt.Sprintf("The language servers found no %s there. Check the row and the symbol with read, or use grep.", a.Op), nil
	}
	return locationRows(ctx, s, l.Locations, a.Op == QueryDefinition)
}

// position is the LSP position of the symbol (or column) on the row.
func (a codeArgs) position(s *Session, abs string) (Position, error) {
	if a.Line < 1 || (a.Symbol == "") == (a.Column < 1) {
		return Position{}, refusal.New(refusal.Invalid, fmt.Sprintf(`code %q needs "line" and either "symbol" (the name on that row) or "column". Call again with them.`, a.Op))
	}
	snap, err := documents.Load(s.Buffers, abs)
	if err != nil {
		return Position{}, err
	}
	lines := bytes.Split(snap.Content, []byte("\n"))
	if a.Line > len(lines) {
		return Position{}, refusal.New(refusal.Invalid, fmt.Sprintf("%s has %d lines; line %d is past its end. Read it for the row.", a.Path, len(lines), a.Line))
	}
	line := lines[a.Line-1]
	at := -1
	if a.Symbol != "" {
		at = wordIndex(line, a.Symbol)
		if at < 0 {
			row, _ := documents.Row(a.Line, line)
			return Position{}, refusal.New(refusal.Invalid, fmt.Sprintf("%q is not a whole word on line %d of %s, which reads\n%s\nCall again with a symbol of that row.", a.Symbol, a.Line, a.Path, row))
		}
	} else {
		at = runeOffset(line, a.Column-1)
		if at < 0 {
			return Position{}, refusal.New(refusal.Invalid, fmt.Sprintf("Line %d of %s has %d characters; column %d is past its end.", a.Line, a.Path, utf8.RuneCount(line), a.Column))
		}
	}
	return Position{Line: a.Line - 1, Character: int(documents.UTF16Units(line[:at]))}, nil
}

// wordIndex is the byte offset of the first occurrence of word in line
// that is not part of a longer identifier, or -1.
func wordIndex(line []byte, word string) int {
	for from := 0; ; {
		i := bytes.Index(line[from:], []byte(word))
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRune(line[:i])
		after, _ := utf8.DecodeRune(line[i+len(word):])
		if !identRune(before) && !identRune(after) {
			return i
		}
		from = i + 1
	}
}

func identRune(r rune) bool {
	return r != utf8.RuneError && (r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
}

// runeOffset is the byte offset of the n-th (0-based) character of line,
// or -1 past its end.
func runeOffset(line []byte, n int) int {
	for i := range string(line) {
		if n == 0 {
			return i
		}
		n--
	}
	if n == 0 {
		return len(line)
	}
	return -1
}

// maxHoverBytes bounds a hover's text.
const maxHoverBytes = 8 << 10

func capText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… [cut: %d more bytes]", len(s)-cut)
}

func languageFailed(err error) error {
	return refusal.New(refusal.Failed, fmt.Sprintf("The editor did not answer for its language servers (%v). Use read and grep instead.", err))
}

// maxDefinitionRows bounds the rows a definition shows of its range.
const maxDefinitionRows = 40

// locationRows shows each location as rows of its file, through read, so
// they count as seen: a definition its range (capped), references their
// rows. A file the session may not read is named without its text.
func locationRows(ctx context.Context, s *Session, locs []Location, whole bool) (string, error) {
	spans := map[string][]documents.Span{}
	var order []string
	for _, l := range locs {
		uri, r := l.target()
		p := uriPath(uri)
		if p == "" {
			continue
		}
		if _, ok := spans[p]; !ok {
			order = append(order, p)
		}
		from, to := r.Start.Line+1, r.Start.Line+1
		if whole {
			to = min(r.End.Line+1, from+maxDefinitionRows-1)
		}
		spans[p] = append(spans[p], documents.Span{From: from, To: to})
	}
	var b strings.Builder
	for i, p := range order {
		if i > 0 {
			b.WriteString("\n")
		}
		sel := documents.FormatSpans(documents.MergeSpans(spans[p]))
		shown := documents.Display(s.Roots, p)
		if err := s.gateDocument(ctx, approvals.AccessRead, p); err != nil {
			fmt.Fprintf(&b, "%s lines %s (not shown: %s)\n", shown, sel, firstSentence(err.Error()))
			continue
		}
		text, err := documents.Read(ctx, s.Seen, s.Buffers, s.Roots, p, sel)
		if err != nil {
			fmt.Fprintf(&b, "%s lines %s (not shown: %s)\n", shown, sel, firstSentence(err.Error()))
			continue
		}
		b.WriteString(strings.TrimRight(text, "\n") + "\n")
	}
	return b.String(), nil
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}

// symbolKinds are LSP's SymbolKind names, from 1.
var symbolKinds = [...]string{"file", "module", "namespace", "package", "class", "method", "property",
	"field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number",
	"boolean", "array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

func symbolsOf(ctx context.Context, s *Session, abs string) (string, error) {
	var a SymbolsAnswer
	if err := s.opts.Language.Query(ctx, LanguageQuery{Kind: QuerySymbols, URI: fileURI(abs)}, &a); err != nil {
		return "", languageFailed(err)
	}
	snap, err := documents.Load(s.Buffers, abs)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s#%s] outline (lines)\n", documents.Display(s.Roots, abs), snap.Tag())
	if len(a.Symbols) == 0 {
		b.WriteString("The language servers report no symbols in this file.\n")
	}
	var walk func(syms []Symbol, depth int)
	walk = func(syms []Symbol, depth int) {
		sort.SliceStable(syms, func(i, j int) bool { return syms[i].span().Start.Line < syms[j].span().Start.Line })
		for _, sym := range syms {
			kind := "symbol"
			if sym.Kind >= 1 && sym.Kind <= len(symbolKinds) {
				kind = symbolKinds[sym.Kind-1]
			}
			r := sym.span()
			lines := strconv.Itoa(r.Start.Line + 1)
			if r.End.Line > r.Start.Line {
				lines += "-" + strconv.Itoa(r.End.Line+1)
			}
			fmt.Fprintf(&b, "%s%s %s %s\n", strings.Repeat("  ", depth), kind, sym.Name, lines)
			walk(sym.Children, depth+1)
		}
	}
	walk(a.Symbols, 0)
	return b.String(), nil
}

// span is a symbol's range, from its location for a SymbolInformation.
func (s Symbol) span() Range {
	if s.Location != nil {
		return s.Location.Range
	}
	return s.Range
}

// maxListedProblems bounds the problems a diagnostics call lists.
const maxListedProblems = 200

// diagnosticsOf lists the current problems of paths (every file the editor
// knows problems of when nil), each under its file's row.
func diagnosticsOf(ctx context.Context, s *Session, paths []string) (string, error) {
	q := LanguageQuery{Kind: QueryDiagnostics}
	for _, p := range paths {
		q.URIs = append(q.URIs, fileURI(p))
	}
	var a DiagnosticsAnswer
	if err := s.opts.Language.Query(ctx, q, &a); err != nil {
		return "", languageFailed(err)
	}
	files := byPath(a.Files)
	order := make([]string, 0, len(files))
	for p, ds := range files {
		if len(ds) > 0 && insideRoots(s.Roots, p) {
			order = append(order, p)
		}
	}
	sort.Strings(order)
	if len(order) == 0 {
		return "The editor's language servers report no problems here.", nil
	}
	var b strings.Builder
	listed := 0
	for _, p := range order {
		ds := files[p]
		sort.SliceStable(ds, func(i, j int) bool { return ds[i].Range.Start.Line < ds[j].Range.Start.Line })
		for _, d := range ds {
			if listed == maxListedProblems {
				fmt.Fprintf(&b, "… more problems not listed: call code {\"op\":\"diagnostics\",\"path\":…} per file.\n")
				return b.String(), nil
			}
			msg, _, _ := strings.Cut(d.Message, "\n")
			src := ""
			if d.Source != "" {
				src = " (" + d.Source + ")"
			}
			fmt.Fprintf(&b, "%s:%d: %s: %s%s\n", documents.Display(s.Roots, p), d.Range.Start.Line+1, severityName(d.Severity), msg, src)
			listed++
		}
	}
	return b.String(), nil
}

func insideRoots(roots []string, p string) bool {
	for _, r := range roots {
		if documents.Inside(filepath.Clean(r), p) {
			return true
		}
	}
	return false
}
