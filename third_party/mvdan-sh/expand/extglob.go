// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package expand

import (
	"fmt"
	"strings"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// extGlobMarks stand for the `|`, `(` and `)` of an extended pattern while
// its text is parsed as a word: characters of Unicode's private use area,
// which the parser keeps in literals.
var extGlobMarks = strings.NewReplacer("\uf8f0", "|", "\uf8f1", "(", "\uf8f2", ")")

// extGlobParts expands an extended pattern such as @($a|'b c'|x*) as bash
// does: the text between its parentheses is a word, whose expansions are
// expanded and whose quoted parts match as they are, while its unquoted
// `|`, `(` and `)` (nested patterns too) keep their meaning. The parser
// keeps that text as it was written.
func (cfg *Config) extGlobParts(eg *syntax.ExtGlob) ([]fieldPart, error) {
	src, ok := markExtGlob(eg.Pattern.Value)
	if !ok {
		return nil, fmt.Errorf("%s%s): unsupported extended pattern", eg.Op, eg.Pattern.Value)
	}
	field := []fieldPart{{val: eg.Op.String()}}
	if src != "" {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(": "+src), "")
		if err != nil || len(f.Stmts) != 1 {
			return nil, fmt.Errorf("%s%s): unsupported extended pattern", eg.Op, eg.Pattern.Value)
		}
		call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
		if !ok || len(call.Args) != 2 || len(f.Stmts[0].Redirs) > 0 {
			return nil, fmt.Errorf("%s%s): unsupported extended pattern", eg.Op, eg.Pattern.Value)
		}
		parts, err := cfg.wordField(call.Args[1].Parts, quoteNone)
		if err != nil {
			return nil, err
		}
		for _, part := range parts {
			if part.quote == quoteNone {
				part.val = extGlobMarks.Replace(part.val)
			}
			field = append(field, part)
		}
	}
	return append(field, fieldPart{val: ")"}), nil
}

// markExtGlob rewrites the text of an extended pattern so that the parser
// reads it as one word: its unquoted `|`, `(` and `)` become marks, and
// the characters that would end a word or start a comment are escaped.
// Quotes, backslashes, $(…), ${…} and `…` are kept as written.
func markExtGlob(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			b.WriteString(s[i : i+2])
			i++
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(s[i : i+j+2])
			i += j + 1
		case c == '"' || c == '`':
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return "", false
			}
			b.WriteString(s[i : j+1])
			i = j
		case c == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{'):
			open, close := s[i+1], byte(')')
			if open == '{' {
				close = '}'
			}
			depth, j := 0, i+1
			for ; j < len(s); j++ {
				if s[j] == open {
					depth++
				} else if s[j] == close {
					if depth--; depth == 0 {
						break
					}
				}
			}
			if j >= len(s) {
				return "", false
			}
			b.WriteString(s[i : j+1])
			i = j
		case c == '|':
			b.WriteString("\uf8f0")
		case c == '(':
			b.WriteString("\uf8f1")
		case c == ')':
			b.WriteString("\uf8f2")
		case strings.IndexByte(" \t\n<>&;{}#", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}
