package shell

import (
	"errors"
	"fmt"
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

// bashSyntaxError words err, the parser's error on src, as bash reports
// it, and returns the line it names.
func bashSyntaxError(src string, err error, head func(line int) string) (string, int) {
	var pe syntax.ParseError
	if errors.As(err, &pe) && pe.Cond {
		// Inside `[[ ]]`, bash prints messages of its own (or none)
		// and does not quote the line.
		var msg strings.Builder
		for _, m := range pe.CondMsgs {
			fmt.Fprintf(&msg, "%s: %s\n", head(int(m.Pos.Line())), m.Text)
		}
		return msg.String(), int(pe.Pos.Line())
	}
	if !errors.As(err, &pe) {
		// A construct of another shell (a LangError): bash stops at
		// the word where it starts.
		var le syntax.LangError
		if !errors.As(err, &le) {
			return fmt.Sprintf("%s: syntax error: %v\n", head(1), err), 1
		}
		line := int(le.Pos.Line())
		return nearToken(src, head, line, wordAt(src, int(le.Pos.Offset()))), line
	}
	if pe.Token != "" && pe.Token != "illegalTok" {
		line, tok := int(pe.TokenPos.Line()), pe.Token
		if strings.ContainsAny(tok[:1], "'\"`$") {
			// A quote or an expansion starts a word: bash names the
			// word.
			tok = wordAt(src, int(pe.TokenPos.Offset()))
		}
		return nearToken(src, head, line, tok), line
	}
	// The input ended inside a construct. bash's lexer reads quotes and
	// `${…}`, `$((…))` and an array's `(…)` as one word, and names the line
	// where they start; `$(…)` and the rest it parses, reaching the end of
	// the input (a -c string ends in a newline: one is added if missing).
	end := strings.Count(src, "\n") + 1
	if !strings.HasSuffix(src, "\n") {
		end++
	}
	off := int(pe.Pos.Offset())
	if off > len(src) {
		off = len(src)
	}
	if open, ok := openAtEnd(src); ok {
		// The parser may stop inside the construct (at `+` in
		// `$((1 +`): bash names the construct.
		off = open
	}
	at, before := src[off:], strings.TrimRight(src[:off], "+")
	var closer string
	line := int(pe.Pos.Line())
	switch {
	case strings.HasPrefix(at, "$(("), strings.HasPrefix(at, "${"), strings.HasPrefix(at, "$["):
		closer = map[byte]string{'(': ")", '{': "}", '[': "]"}[at[1]]
	case strings.HasPrefix(at, "$("):
		closer, line = ")", end
	case strings.HasPrefix(at, "$'"), strings.HasPrefix(at, `$"`):
		closer = at[1:2]
	case strings.HasPrefix(at, "'"), strings.HasPrefix(at, `"`), strings.HasPrefix(at, "`"):
		closer = at[:1]
	case strings.HasPrefix(at, "(") && strings.HasSuffix(before, "="):
		closer = ")"
	default:
		return fmt.Sprintf("%s: syntax error: unexpected end of file\n", head(end)), end
	}
	return fmt.Sprintf("%s: unexpected EOF while looking for matching `%s'\n", head(line), closer), line
}

// nearToken is bash's message for a token it did not expect, with the
// line holding it quoted.
func nearToken(src string, head func(int) string, line int, token string) string {
	text := ""
	if lines := strings.Split(src, "\n"); line >= 1 && line <= len(lines) {
		text = lines[line-1]
	}
	return fmt.Sprintf("%s: syntax error near unexpected token `%s'\n%s: `%s'\n", head(line), token, head(line), text)
}

// wordAt is the word of src starting at byte off: up to a blank or an
// operator's character.
func wordAt(src string, off int) string {
	if off >= len(src) {
		return "newline"
	}
	if end := strings.IndexAny(src[off:], " \t\n;&|()<>"); end > 0 {
		return src[off : off+end]
	} else if end == 0 {
		return src[off : off+1]
	}
	return src[off:]
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

// openAtEnd returns where the innermost construct that bash's lexer reads
// as one word — a quote, `${`, `$((`, `$[` or an array's `(` — starts, when
// src ends inside one. Here-documents are not told apart: it is only asked
// about a script that already failed to parse.
func openAtEnd(src string) (int, bool) {
	type open struct {
		at    int
		close string
	}
	var stack []open
	top := func() string {
		if len(stack) == 0 {
			return ""
		}
		return stack[len(stack)-1].close
	}
	for i := 0; i < len(src); i++ {
		c, in := src[i], top()
		switch {
		case in == "'":
			if c == '\'' {
				stack = stack[:len(stack)-1]
			}
			continue
		case in == "`":
			// bash reads a backquote's text to its end before parsing
			// it.
			if c == '\\' {
				i++
			} else if c == '`' {
				stack = stack[:len(stack)-1]
			}
			continue
		case c == '\\':
			i++
			continue
		case in == `"` && c == '"':
			stack = stack[:len(stack)-1]
			continue
		case in == "))" && strings.HasPrefix(src[i:], "))"):
			stack = stack[:len(stack)-1]
			i++
			continue
		case in == "}" && c == '}', in == "]" && c == ']', in == ")" && c == ')':
			stack = stack[:len(stack)-1]
			continue
		case c == '#' && in != `"` && in != "}" && (i == 0 || strings.IndexByte(" \t\n;&|(", src[i-1]) >= 0):
			if nl := strings.IndexByte(src[i:], '\n'); nl >= 0 {
				i += nl
				continue
			}
			return 0, false
		}
		switch {
		case strings.HasPrefix(src[i:], "$(("):
			stack = append(stack, open{i, "))"})
			i += 2
		case strings.HasPrefix(src[i:], "${"):
			stack = append(stack, open{i, "}"})
			i++
		case strings.HasPrefix(src[i:], "$["):
			stack = append(stack, open{i, "]"})
			i++
		case strings.HasPrefix(src[i:], "$("):
			stack = append(stack, open{i, ")"})
			i++
		case c == '(':
			stack = append(stack, open{i, ")"})
		case c == '\'' && in != `"`, c == '"', c == '`':
			stack = append(stack, open{i, string(c)})
		}
	}
	for i := len(stack) - 1; i >= 0; i-- {
		if o := stack[i]; o.close != ")" || src[o.at] != '$' {
			if o.close == ")" && (o.at == 0 || src[o.at-1] != '=') {
				continue // a subshell or a group of the parser's, not a word
			}
			return o.at, true
		}
		return stack[i].at, true // `$(`: bash parses it, reaching the end
	}
	return 0, false
}
