package shell

import (
	"errors"
	"strings"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// A script that does not parse runs as bash runs it. bash reads a script
// one command line at a time — a line, or the lines one command spans with
// its here-documents — and runs each before it reads the next; so every line
// before the one holding a syntax error runs (each step gated as always),
// then bash reports the error in its own words and exits with status 2.

// syntaxStop is where a script's parse stopped.
type syntaxStop struct {
	// Line is the line bash names in its message.
	Line int
	// Message is what bash prints: `bash: -c: line 3: syntax error near
	// unexpected token `fi'` and the line quoted, each line ending in a
	// newline.
	Message string
	// Err is the parser's own description of the error.
	Err error
	// KeepStatus is set for an error inside `[[ ]]`, after which bash
	// exits with the last command's status instead of 2.
	KeepStatus bool

	// reread parses the script again from the command line that did not
	// parse, as the aliases defined so far read it; see syntaxStop.again.
	reread func(aliasLine func(string) (string, bool)) (*syntax.File, *syntaxStop, bool)
}

// again reads the script again from the command line that did not parse,
// with the aliases that the lines run so far defined expanded at its start,
// as bash reads each line only when the ones before it have run: the
// statements that parse now, and where the parse stops now (nil at the
// end). ok is false when no alias applies or nothing more parses.
func (s *syntaxStop) again(aliasLine func(string) (string, bool)) (*syntax.File, *syntaxStop, bool) {
	if s.reread == nil {
		return nil, nil, false
	}
	return s.reread(aliasLine)
}

// nextLine is the first line of src that the statements before a syntax
// error do not reach: where the command line holding the error starts.
func nextLine(stmts []*syntax.Stmt) int {
	last := 0
	for _, st := range stmts {
		syntax.Walk(st, func(n syntax.Node) bool {
			if n != nil {
				last = max(last, int(n.End().Line()))
			}
			return true
		})
	}
	return last + 1
}

// linesBefore returns the statements of script that bash runs before the
// syntax error in it: those of every complete command line before the one
// where the parser stopped.
func linesBefore(script string, lang syntax.LangVariant) []*syntax.Stmt {
	p := syntax.NewParser(syntax.Variant(lang))
	var stmts []*syntax.Stmt
	for line, err := range p.InteractiveSeq(strings.NewReader(script)) {
		if err != nil {
			break
		}
		// The parser also calls back mid-command, when a read ends
		// inside one; those statements' line is not complete yet.
		if p.Incomplete() {
			continue
		}
		stmts = append(stmts, line...)
	}
	return stmts
}

// syntaxText is the parser's description of err, without its position
// (the note names the line).
func syntaxText(err error) string {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return pe.Text
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		return strings.TrimPrefix(le.Error(), le.Filename+":"+le.Pos.String()+": ")
	}
	return err.Error()
}
