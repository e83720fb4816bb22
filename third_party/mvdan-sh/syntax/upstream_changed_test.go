package syntax

import (
	"strings"
	"testing"
)

// upstreamParsed is the parser's part of the list of upstream's cases
// whose outcome tandem's patches change on purpose (the rest, with the
// outputs of scripts, is interp's upstream_changed_test.go): scripts that
// v3.14.1 refused to parse and the patched parser accepts, each with why.
var upstreamParsed = map[string]string{
	"echo $((1=2))":    whyArithAssign,
	"echo $(($0=2))":   whyArithAssign,
	"echo $(($(a)=2))": whyArithAssign,
	"let 1++":          whyArithAssign,
	"let $0++":         whyArithAssign,

	"echo $((foo) )":             whyDblParen,
	"echo $((echo a); (echo b))": whyDblParen,
	"((echo a); (echo b))":       whyDblParen,

	"declare 0=${o}": whyDeclName,

	"a[i]=(y)": whyElemList,

	"a=(x y) foo": whyInlineArray,
	"a[2]=x foo":  whyInlineArray,
}

const whyInlineArray = "bash runs a command that an array or element assignment comes before: a=(x y) foo passes a='(x y)' to foo, and a[2]=x foo is `a[2]': not a valid identifier before foo runs"

const whyElemList = "bash parses a list assigned to an element and fails when it runs (a[i]: cannot assign list to array member, status 1), as the interpreter does for a[i]+=(y)"

const whyDeclName = "a declaration builtin's operand that is not a valid name is an error of the builtin when it runs, as in bash (declare: `0=': not a valid identifier, status 1), not a parse error that stops the script"

const whyDblParen = "(( and $(( are arithmetic only when the parenthesis closing the second ( is followed by another, as bash decides: otherwise bash reads a subshell in a subshell, ( ( or $( (, which these are"

const whyArithAssign = "arithmetic as bash evaluates it: what an assignment or ++ names is checked when it runs, as in bash (attempted assignment to non-variable), not when the script is parsed, so $(( x$foo = 42 )) runs"

// parsedNow reports whether upstream's error case in is one the patched
// parser accepts, and checks that it does.
func parsedNow(t *testing.T, p *Parser, in string) bool {
	t.Helper()
	why, ok := upstreamParsed[in]
	if !ok || (why == whyDblParen || why == whyDeclName || why == whyInlineArray) && !p.lang.in(langBashLike) {
		return false // bash's reading of (( is bash's only
	}
	if _, err := p.Parse(newStrictReader(in), ""); err != nil {
		t.Fatalf("%q: %v; the list says it parses now (%s)", in, err, why)
	}
	return true
}

// upstreamRefused lists upstream's cases that v3.14.1 parsed and the
// patched parser refuses, each with why.
var upstreamRefused = map[string]string{
	"f() body # comment": whyFuncBody,
}

const whyFuncBody = "a function body is a compound command in bash and POSIX: bash 5.2 stops at `f() body` with syntax error near unexpected token `body'"

// refusedNow reports whether upstream's case in is one the patched parser
// refuses, and checks that it does (with and without the newlines the
// printer's table adds).
func refusedNow(t *testing.T, p *Parser, in string) bool {
	t.Helper()
	why, ok := upstreamRefused[strings.TrimSpace(in)]
	if !ok {
		return false
	}
	if _, err := p.Parse(newStrictReader(in), ""); err == nil {
		t.Fatalf("%q parses; the list says it is refused now (%s)", in, why)
	}
	return true
}
