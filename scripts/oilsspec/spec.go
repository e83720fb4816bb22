package main

import (
	"fmt"
	"regexp"
	"strings"
)

// specCase is one case of an Oils spec file: its description, the line its
// `####` is on, and its code. The expectations (`## stdout:`, `## STDOUT:`
// … `## END`, `## status:`, the `## OK`/`## BUG`/`## N-I` annotations) are
// read past but not kept: what a case should print is bash's output,
// computed when the harness runs.
type specCase struct {
	name string
	line int
	code string
}

// The line kinds of the format, as Oils' test/sh_spec.py tells them apart.
var (
	keyValueLine = regexp.MustCompile(`^##\s+(?:(?:OK(?:-\d)?|BUG(?:-\d)?|N-I)\s+[\w+/]+\s+)?([\w\-]+):\s*(.*)`)
	endLine      = regexp.MustCompile(`^##\s+END`)
)

type lineKind int

const (
	caseBegin lineKind = iota
	keyValue
	multilineBegin // ## STDOUT: or ## STDERR:, whose value is the lines up to ## END
	multilineEnd
	codeLine
	eof
)

type token struct {
	kind lineKind
	line int
	text string // the description, the key, or the code line with its newline
	// value of a one-line key, such as the code of `## code: …`
	value string
}

// tokenizer reads a spec file one meaningful line at a time. Blank lines
// separate cases, but inside code and multi-line values they are kept;
// comment lines are dropped everywhere, as sh_spec.py drops them.
type tokenizer struct {
	lines []string
	next  int
	cur   token
}

func newTokenizer(text string) (*tokenizer, error) {
	t := &tokenizer{lines: strings.SplitAfter(text, "\n")}
	return t, t.advance(false)
}

func (t *tokenizer) advance(raw bool) error {
	for t.next < len(t.lines) {
		l, n := t.lines[t.next], t.next+1
		t.next++
		if l == "" {
			break
		}
		if !raw && strings.TrimSpace(l) == "" {
			continue
		}
		switch {
		case strings.HasPrefix(l, "####"):
			t.cur = token{kind: caseBegin, line: n, text: strings.TrimSpace(l[4:])}
			return nil
		case keyValueLine.MatchString(l):
			m := keyValueLine.FindStringSubmatch(strings.TrimSuffix(l, "\n"))
			kind := keyValue
			if m[1] == "STDOUT" || m[1] == "STDERR" {
				kind = multilineBegin
			}
			t.cur = token{kind: kind, line: n, text: m[1], value: m[2]}
			return nil
		case endLine.MatchString(l):
			t.cur = token{kind: multilineEnd, line: n}
			return nil
		case strings.HasPrefix(l, "##"):
			return fmt.Errorf("line %d: %q is neither a case, a key nor an END line", n, strings.TrimSuffix(l, "\n"))
		case strings.HasPrefix(strings.TrimLeft(l, " \t"), "#"):
			continue
		}
		t.cur = token{kind: codeLine, line: n, text: l}
		return nil
	}
	t.cur = token{kind: eof, line: len(t.lines)}
	return nil
}

// parseSpec returns the cases of a spec file, in order.
func parseSpec(text string) ([]specCase, error) {
	t, err := newTokenizer(text)
	if err != nil {
		return nil, err
	}
	// The file's own keys (## compare_shells:, ## oils_failures_allowed: …).
	for t.cur.kind == keyValue {
		if err := t.advance(false); err != nil {
			return nil, err
		}
	}
	var cases []specCase
	for t.cur.kind != eof {
		if t.cur.kind != caseBegin {
			return nil, fmt.Errorf("line %d: want a case (#### NAME), found something else", t.cur.line)
		}
		c := specCase{name: t.cur.text, line: t.cur.line}
		if err := t.advance(false); err != nil {
			return nil, err
		}
		code, hasCode, err := skipKeys(t)
		if err != nil {
			return nil, err
		}
		if !hasCode {
			if t.cur.kind != codeLine {
				return nil, fmt.Errorf("line %d: case %q has no code", c.line, c.name)
			}
			var b strings.Builder
			for t.cur.kind == codeLine {
				b.WriteString(t.cur.text)
				if err := t.advance(true); err != nil {
					return nil, err
				}
			}
			code = b.String()
			if _, _, err := skipKeys(t); err != nil {
				return nil, err
			}
		}
		c.code = code
		cases = append(cases, c)
	}
	return cases, nil
}

// skipKeys reads past a run of expectations. A `## code: …` among them is
// the case's code, for code the format cannot hold as plain lines.
func skipKeys(t *tokenizer) (code string, hasCode bool, err error) {
	for {
		switch t.cur.kind {
		case keyValue:
			if t.cur.text == "code" {
				code, hasCode = t.cur.value, true
			}
			if err := t.advance(false); err != nil {
				return "", false, err
			}
		case multilineBegin:
			if t.cur.value != "" {
				return "", false, fmt.Errorf("line %d: ## %s: takes its value on the lines after it", t.cur.line, t.cur.text)
			}
			for {
				if err := t.advance(true); err != nil {
					return "", false, err
				}
				if t.cur.kind != codeLine {
					break
				}
			}
			if t.cur.kind == multilineEnd {
				if err := t.advance(false); err != nil {
					return "", false, err
				}
			}
		default:
			return code, hasCode, nil
		}
	}
}
