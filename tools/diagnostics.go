package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tandemdev/tandem/documents"
)

// DiagnosticsSettle bounds how long an edit's reply waits for the editor's
// language servers to diagnose the changed files.
const DiagnosticsSettle = 1500 * time.Millisecond

// diagnosticsAnswerWait bounds how long an edit's reply waits for the
// editor to answer a diagnostics query, past the settle: the editor holds
// its problems already, so a slow answer means it is stuck, and the reply
// goes without them.
const diagnosticsAnswerWait = 2 * time.Second

// severityName is how a reply names an LSP severity.
func severityName(s int) string {
	switch s {
	case 2:
		return "warning"
	case 3:
		return "info"
	case 4:
		return "hint"
	}
	return "error" // 1, and unset: LSP leaves its meaning to the client; editors show an error
}

// counts reports whether a diagnostic is worth an edit reply's words:
// errors and warnings.
func counts(d Diagnostic) bool { return d.Severity <= 2 }

// problemKey names a problem across an edit: its place moves with the
// lines above it, its words do not.
type problemKey struct {
	severity              int
	source, code, message string
}

func keyOf(d Diagnostic) problemKey {
	sev := d.Severity
	if sev == 0 {
		sev = 1
	}
	return problemKey{sev, d.Source, string(d.Code), d.Message}
}

// problem is one new problem of a reply.
type problem struct {
	path string
	d    Diagnostic
}

// diagnosticsChange is what an edit changed in the problems of the files
// the editor re-diagnosed: the errors and warnings that are new, and how
// many of those before are gone.
type diagnosticsChange struct {
	added []problem
	fixed int
}

// diffProblems compares the problems of each file of after with the same
// file's before. A problem is the same when its severity, source, code and
// message are, wherever it moved.
func diffProblems(before, after map[string][]Diagnostic) diagnosticsChange {
	var c diagnosticsChange
	paths := make([]string, 0, len(after))
	for p := range after {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		left := map[problemKey]int{}
		for _, d := range before[p] {
			if counts(d) {
				left[keyOf(d)]++
			}
		}
		now := append([]Diagnostic(nil), after[p]...)
		sort.SliceStable(now, func(i, j int) bool { return now[i].Range.Start.Line < now[j].Range.Start.Line })
		for _, d := range now {
			if !counts(d) {
				continue
			}
			if k := keyOf(d); left[k] > 0 {
				left[k]--
				continue
			}
			c.added = append(c.added, problem{p, d})
		}
		for _, n := range left {
			c.fixed += n
		}
	}
	return c
}

// maxReportedProblems bounds the new problems one reply lists.
const maxReportedProblems = 20

// render is the reply's part about the change: each new problem as
// "path:row: severity: message", and the count of fixed ones; "" when
// nothing changed.
func (c diagnosticsChange) render(roots []string) string {
	if len(c.added) == 0 && c.fixed == 0 {
		return ""
	}
	var b strings.Builder
	if len(c.added) > 0 {
		fmt.Fprintf(&b, "The editor's language servers report %d new problem(s) after this change:\n", len(c.added))
		for i, p := range c.added {
			if i == maxReportedProblems {
				fmt.Fprintf(&b, "… and %d more: code {\"op\":\"diagnostics\"} lists them all.\n", len(c.added)-i)
				break
			}
			msg, _, _ := strings.Cut(p.d.Message, "\n")
			fmt.Fprintf(&b, "%s:%d: %s: %s\n", documents.Display(roots, p.path), p.d.Range.Start.Line+1, severityName(p.d.Severity), msg)
		}
	}
	if c.fixed > 0 {
		fmt.Fprintf(&b, "%d problem(s) the editor reported before are fixed.\n", c.fixed)
	}
	return b.String()
}

// diagnosticsWatch is the editor's problems before an edit, to tell the
// reply what the edit changed.
type diagnosticsWatch struct {
	lang       Language
	generation uint64
	before     map[string][]Diagnostic
}

// watchDiagnostics takes the problems the editor knows before an edit; nil
// when the session has no language servers to ask, or the editor did not
// answer.
func (s *Session) watchDiagnostics(ctx context.Context) *diagnosticsWatch {
	lang := s.opts.Language
	if lang == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, diagnosticsAnswerWait)
	defer cancel()
	var a DiagnosticsAnswer
	if err := lang.Query(ctx, LanguageQuery{Kind: QueryDiagnostics}, &a); err != nil {
		return nil
	}
	return &diagnosticsWatch{lang: lang, generation: a.Generation, before: byPath(a.Files)}
}

// report waits, at most DiagnosticsSettle, for the editor to re-diagnose
// the changed files, and renders what changed there and in any other file
// the editor re-diagnosed meanwhile.
func (w *diagnosticsWatch) report(ctx context.Context, roots []string, changed []string) string {
	uris := make([]string, len(changed))
	for i, p := range changed {
		uris[i] = fileURI(p)
	}
	after := w.generation
	ctx, cancel := context.WithTimeout(ctx, DiagnosticsSettle+diagnosticsAnswerWait)
	defer cancel()
	var a DiagnosticsAnswer
	q := LanguageQuery{Kind: QueryDiagnostics, URIs: uris, After: &after, SettleMs: int(DiagnosticsSettle / time.Millisecond)}
	if err := w.lang.Query(ctx, q, &a); err != nil {
		return ""
	}
	return diffProblems(w.before, byPath(a.Files)).render(roots)
}

// byPath keys files' problems by absolute path; other URIs are left out.
func byPath(files []FileDiagnostics) map[string][]Diagnostic {
	m := map[string][]Diagnostic{}
	for _, f := range files {
		if p := uriPath(f.URI); p != "" {
			m[p] = append(m[p], f.Diagnostics...)
		}
	}
	return m
}
