// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package interp

import (
	"fmt"
	"strings"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

const illegalTok = 0

// classicTestError is a classic test's syntax error, in bash's words.
type classicTestError string

func (e classicTestError) Error() string { return string(e) }

// classicParser reads the arguments of `test` or `[` as bash's test
// builtin does: by their number first (POSIX's rules for up to four
// arguments, so `[ ! ]`, `[ -z -a -a ]` and `[ = ]` mean what they mean in
// bash), then by precedence (`!`, `( )`, `-a` over `-o`).
type classicParser struct {
	args []string
	pos  int
}

func (p *classicParser) fail(format string, a ...any) {
	panic(classicTestError(fmt.Sprintf(format, a...)))
}

// parseClassicTest returns the expression of a classic test's arguments,
// or the syntax error bash reports for them.
func parseClassicTest(args []string) (expr syntax.TestExpr, err error) {
	p := &classicParser{args: args}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(classicTestError)
			if !ok {
				panic(r)
			}
			expr, err = nil, e
		}
	}()
	switch len(args) {
	case 0:
		return classicWord(""), nil
	case 1:
		return classicWord(args[0]), nil
	case 2:
		return p.two(0), nil
	case 3:
		return p.three(0), nil
	case 4:
		if args[0] == "!" {
			return &syntax.UnaryTest{Op: syntax.TsNot, X: p.three(1)}, nil
		}
		if args[0] == "(" && args[3] == ")" {
			return &syntax.ParenTest{X: p.two(1)}, nil
		}
	}
	expr = p.or()
	if p.pos < len(args) {
		if strings.HasPrefix(args[p.pos], "-") {
			p.fail("syntax error: `%s' unexpected", args[p.pos])
		}
		p.fail("too many arguments")
	}
	return expr, nil
}

func classicWord(s string) *syntax.Word {
	return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}}
}

func (p *classicParser) two(i int) syntax.TestExpr {
	if p.args[i] == "!" {
		return &syntax.UnaryTest{Op: syntax.TsNot, X: classicWord(p.args[i+1])}
	}
	if op := testUnaryOp(p.args[i]); op != illegalTok && op != syntax.TsNot && op != syntax.TsParen {
		return &syntax.UnaryTest{Op: op, X: classicWord(p.args[i+1])}
	}
	p.fail("%s: unary operator expected", p.args[i])
	return nil
}

func (p *classicParser) three(i int) syntax.TestExpr {
	a := p.args[i:]
	if op := testBinaryOp(a[1]); op != illegalTok {
		return &syntax.BinaryTest{Op: op, X: classicWord(a[0]), Y: classicWord(a[2])}
	}
	switch {
	case a[1] == "-a":
		return &syntax.BinaryTest{Op: syntax.AndTest, X: classicWord(a[0]), Y: classicWord(a[2])}
	case a[1] == "-o":
		return &syntax.BinaryTest{Op: syntax.OrTest, X: classicWord(a[0]), Y: classicWord(a[2])}
	case a[0] == "!":
		return &syntax.UnaryTest{Op: syntax.TsNot, X: p.two(i + 1)}
	case a[0] == "(" && a[2] == ")":
		return &syntax.ParenTest{X: classicWord(a[1])}
	}
	p.fail("%s: binary operator expected", a[1])
	return nil
}

// advance moves past an operator that must be followed by an argument.
func (p *classicParser) advance() {
	if p.pos++; p.pos >= len(p.args) {
		p.fail("argument expected")
	}
}

func (p *classicParser) or() syntax.TestExpr {
	x := p.and()
	if p.pos < len(p.args) && p.args[p.pos] == "-o" {
		p.advance()
		return &syntax.BinaryTest{Op: syntax.OrTest, X: x, Y: p.or()}
	}
	return x
}

func (p *classicParser) and() syntax.TestExpr {
	x := p.term()
	if p.pos < len(p.args) && p.args[p.pos] == "-a" {
		p.advance()
		return &syntax.BinaryTest{Op: syntax.AndTest, X: x, Y: p.and()}
	}
	return x
}

func (p *classicParser) term() syntax.TestExpr {
	if p.pos >= len(p.args) {
		p.fail("argument expected")
	}
	a := p.args[p.pos:]
	switch {
	case a[0] == "!":
		p.advance()
		return &syntax.UnaryTest{Op: syntax.TsNot, X: p.term()}
	case a[0] == "(":
		p.advance()
		x := p.or()
		if p.pos >= len(p.args) {
			p.fail("`)' expected")
		}
		if p.args[p.pos] != ")" {
			p.fail("`)' expected, found %s", p.args[p.pos])
		}
		p.pos++
		return &syntax.ParenTest{X: x}
	case len(a) >= 3 && testBinaryOp(a[1]) != illegalTok:
		p.pos += 3
		return &syntax.BinaryTest{Op: testBinaryOp(a[1]), X: classicWord(a[0]), Y: classicWord(a[2])}
	}
	if op := testUnaryOp(a[0]); len(a) >= 2 && op != illegalTok && op != syntax.TsNot && op != syntax.TsParen {
		p.pos += 2
		return &syntax.UnaryTest{Op: op, X: classicWord(a[1])}
	}
	p.pos++
	return classicWord(a[0])
}

// testUnaryOp is an exact copy of syntax's.
func testUnaryOp(val string) syntax.UnTestOperator {
	switch val {
	case "!":
		return syntax.TsNot
	case "(":
		return syntax.TsParen
	case "-e", "-a":
		return syntax.TsExists
	case "-f":
		return syntax.TsRegFile
	case "-d":
		return syntax.TsDirect
	case "-c":
		return syntax.TsCharSp
	case "-b":
		return syntax.TsBlckSp
	case "-p":
		return syntax.TsNmPipe
	case "-S":
		return syntax.TsSocket
	case "-L", "-h":
		return syntax.TsSmbLink
	case "-k":
		return syntax.TsSticky
	case "-g":
		return syntax.TsGIDSet
	case "-u":
		return syntax.TsUIDSet
	case "-G":
		return syntax.TsGrpOwn
	case "-O":
		return syntax.TsUsrOwn
	case "-N":
		return syntax.TsModif
	case "-r":
		return syntax.TsRead
	case "-w":
		return syntax.TsWrite
	case "-x":
		return syntax.TsExec
	case "-s":
		return syntax.TsNoEmpty
	case "-t":
		return syntax.TsFdTerm
	case "-z":
		return syntax.TsEmpStr
	case "-n":
		return syntax.TsNempStr
	case "-o":
		return syntax.TsOptSet
	case "-v":
		return syntax.TsVarSet
	case "-R":
		return syntax.TsRefVar
	default:
		return illegalTok
	}
}

// testBinaryOp is like syntax's, but without =~ (-a and -o are the
// parser's).
func testBinaryOp(val string) syntax.BinTestOperator {
	switch val {
	case "<":
		return syntax.TsBefore
	case ">":
		return syntax.TsAfter
	case "==", "=":
		return syntax.TsMatch
	case "!=":
		return syntax.TsNoMatch
	case "-nt":
		return syntax.TsNewer
	case "-ot":
		return syntax.TsOlder
	case "-ef":
		return syntax.TsDevIno
	case "-eq":
		return syntax.TsEql
	case "-ne":
		return syntax.TsNeq
	case "-le":
		return syntax.TsLeq
	case "-ge":
		return syntax.TsGeq
	case "-lt":
		return syntax.TsLss
	case "-gt":
		return syntax.TsGtr
	default:
		return illegalTok
	}
}
