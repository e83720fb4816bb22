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

	"echo ${#<}":                           whyBadSubst,
	"echo ${!<}":                           whyBadSubst,
	"echo ${@foo}":                         whyBadSubst,
	"echo ${$needbraces}":                  whyBadSubst,
	"echo ${?foo}":                         whyBadSubst,
	"echo ${-foo}":                         whyBadSubst,
	"echo ${foo*}":                         whyBadSubst,
	"echo ${foo;}":                         whyBadSubst,
	"echo ${foo!}":                         whyBadSubst,
	"echo ${#foo:-bar}":                    whyBadSubst,
	"echo ${foo]}":                         whyBadSubst,
	"foo=force_expansion; echo ${foo@}":    whyBadSubst,
	"foo=force_expansion; echo ${foo@bar}": whyBadSubst,
	"foo=force_expansion; echo ${foo@'Q'}": whyBadSubst,
	"foo=force_expansion; echo ${foo@#}":   whyBadSubst,
}

const whyInlineArray = "bash runs a command that an array or element assignment comes before: a=(x y) foo passes a='(x y)' to foo, and a[2]=x foo is `a[2]': not a valid identifier before foo runs"

const whyElemList = "bash parses a list assigned to an element and fails when it runs (a[i]: cannot assign list to array member, status 1), as the interpreter does for a[i]+=(y)"

const whyBadSubst = "bash reads a ${…} it cannot expand to its closing brace and fails when it runs (bash: line 1: ${foo*}: bad substitution, status 1, the rest of the line dropped), not when the script is parsed: the script's earlier lines run"

const whyDeclName = "a declaration builtin's operand that is not a valid name is an error of the builtin when it runs, as in bash (declare: `0=': not a valid identifier, status 1), not a parse error that stops the script"

const whyDblParen = "(( and $(( are arithmetic only when the parenthesis closing the second ( is followed by another, as bash decides: otherwise bash reads a subshell in a subshell, ( ( or $( (, which these are"

const whyArithAssign = "arithmetic as bash evaluates it: what an assignment or ++ names is checked when it runs, as in bash (attempted assignment to non-variable), not when the script is parsed, so $(( x$foo = 42 )) runs"

// parsedNow reports whether upstream's error case in is one the patched
// parser accepts, and checks that it does.
func parsedNow(t *testing.T, p *Parser, in string) bool {
	t.Helper()
	why, ok := upstreamParsed[in]
	if !ok || (why == whyDblParen || why == whyDeclName || why == whyInlineArray || why == whyBadSubst) && !p.lang.in(langBashLike) {
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

// upstreamReread lists upstream's cases that the patched parser reads
// otherwise than v3.14.1 did (in bash), each with how it prints now and
// why.
var upstreamReread = map[string]struct{ printed, why string }{
	"${foo///}": {"${foo////}", "bash takes a slash right after ${x/ or ${x// as the pattern's first character: ${foo///} removes every slash (the pattern is /, the replacement empty)"},
}

// rereadNow reports whether upstream's case in is one the patched parser
// reads otherwise, and checks that it prints as listed.
func rereadNow(t *testing.T, p *Parser, in string) bool {
	t.Helper()
	c, ok := upstreamReread[in]
	if !ok || !p.lang.in(langBashLike) {
		return false
	}
	f, err := p.Parse(newStrictReader(in), "")
	if err != nil {
		t.Fatalf("%q: %v; the list says it reads as %q (%s)", in, err, c.printed, c.why)
	}
	var sb strings.Builder
	if err := NewPrinter().Print(&sb, f); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(sb.String()); got != c.printed {
		t.Fatalf("%q prints as %q; the list says %q (%s)", in, got, c.printed, c.why)
	}
	return true
}
