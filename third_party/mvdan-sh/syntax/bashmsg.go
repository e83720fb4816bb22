package syntax

import (
	"errors"
	"fmt"
	"strings"
)

// BashMessage words err, the error of a parser of lang on src, as bash
// reports it, and returns the line it names; head names a line (`bash: -c:
// line 3`, `bash: eval: line 1`). (tandem)
func BashMessage(src string, err error, lang LangVariant, head func(line int) string) (string, int) {
	src, err = BashInput(src, "", err, lang)
	var pe ParseError
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
		var le LangError
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

// BashInput returns src as bash reads it, and err, the error of a parser
// of lang on src named name, as bash meets it there: bash reads a -c
// string or eval's as if it ended in a newline, so at its end the token it
// did not expect is that newline. (tandem)
func BashInput(src, name string, err error, lang LangVariant) (string, error) {
	if !strings.HasSuffix(src, "\n") {
		src += "\n"
		if _, err2 := NewParser(Variant(lang)).Parse(strings.NewReader(src), name); err2 != nil {
			err = err2
		}
	}
	return src, err
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
