package tools

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
)

// Language is what the editor's language servers know, asked through the
// editor (tandem/languageQuery, docs/protocol.md). A session without one
// has no code tool, and its edit replies carry no diagnostics.
type Language interface {
	// Query sends q and decodes the editor's answer into answer. It must
	// return within a bounded time whatever the editor does.
	Query(ctx context.Context, q LanguageQuery, answer any) error
}

// The kinds of a language query.
const (
	QueryDiagnostics = "diagnostics"
	QuerySymbols     = "symbols"
	QueryDefinition  = "definition"
	QueryReferences  = "references"
	QueryHover       = "hover"
)

// LanguageQuery is tandem/languageQuery's params. Positions are LSP's:
// 0-based lines, UTF-16 characters.
type LanguageQuery struct {
	Kind     string    `json:"kind"`
	URI      string    `json:"uri,omitempty"`
	URIs     []string  `json:"uris,omitempty"`
	Position *Position `json:"position,omitempty"`
	// After and SettleMs ask diagnostics to settle: the editor answers once
	// each of URIs had a diagnostics change after generation After and
	// then none for a moment, or after SettleMs, or at once for a file no
	// language server covers.
	After    *uint64 `json:"after,omitempty"`
	SettleMs int     `json:"settleMs,omitempty"`
}

// Position is an LSP position.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is an LSP range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Diagnostic is an LSP diagnostic, as much of it as a reply shows.
type Diagnostic struct {
	Range    Range           `json:"range"`
	Severity int             `json:"severity"` // 1 error, 2 warning, 3 information, 4 hint; 0 unset (error)
	Message  string          `json:"message"`
	Source   string          `json:"source,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
}

// DiagnosticsAnswer is the answer to a diagnostics query: the files asked
// for (every file the editor knows problems of, when none was named), and
// after a settle every other file whose problems changed since After.
// Generation counts the editor's diagnostics changes; a later settle names
// it as After.
type DiagnosticsAnswer struct {
	Generation uint64            `json:"generation"`
	Files      []FileDiagnostics `json:"files"`
}

// FileDiagnostics is one file's current problems.
type FileDiagnostics struct {
	URI         string       `json:"uri"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Symbol is a DocumentSymbol, or a SymbolInformation (Location set,
// children flat).
type Symbol struct {
	Name     string    `json:"name"`
	Detail   string    `json:"detail,omitempty"`
	Kind     int       `json:"kind"`
	Range    Range     `json:"range"`
	Location *Location `json:"location,omitempty"`
	Children []Symbol  `json:"children,omitempty"`
}

// SymbolsAnswer is the answer to a symbols query.
type SymbolsAnswer struct {
	Symbols []Symbol `json:"symbols"`
}

// Location is an LSP Location; a LocationLink's target fields are read too.
type Location struct {
	URI         string `json:"uri"`
	Range       Range  `json:"range"`
	TargetURI   string `json:"targetUri,omitempty"`
	TargetRange *Range `json:"targetRange,omitempty"`
}

// target is where the location points, for a Location or a LocationLink.
func (l Location) target() (string, Range) {
	if l.TargetURI != "" && l.TargetRange != nil {
		return l.TargetURI, *l.TargetRange
	}
	return l.URI, l.Range
}

// LocationsAnswer is the answer to a definition or references query.
type LocationsAnswer struct {
	Locations []Location `json:"locations"`
}

// HoverAnswer is the answer to a hover query: markdown or plain text.
type HoverAnswer struct {
	Contents string `json:"contents"`
}

// fileURI is the file: URI of an absolute path.
func fileURI(abs string) string { return (&url.URL{Scheme: "file", Path: abs}).String() }

// uriPath is the absolute path of a file: URI, "" for any other.
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || !filepath.IsAbs(u.Path) {
		return ""
	}
	return filepath.Clean(u.Path)
}
