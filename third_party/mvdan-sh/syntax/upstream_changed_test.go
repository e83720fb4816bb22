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

	`"foo"(){ :; }`:   whyFuncName,
	"foo$bar(){ :; }": whyFuncName,

	"echo ${à}":                             whyBadSubst,
	"echo ${@foo}":                          whyBadSubst,
	"echo ${?foo}":                          whyBadSubst,
	"echo ${1a}":                            whyBadSubst,
	"echo ${-foo}":                          whyBadSubst,
	"echo ${$needbraces}":                   whyBadSubst,
	"echo ${#<}":                            whyBadSubst,
	"${}":                                   whyBadSubst,
	"${:-word}":                             whyBadSubst,
	"${:+word}":                             whyBadSubst,
	"foo=force_expansion; echo ${foo@}":     whyBadSubst,
	"foo=force_expansion; echo ${foo@bar}":  whyBadSubst,
	"foo=force_expansion; echo ${foo@'Q'}":  whyBadSubst,
	"foo=force_expansion; echo ${foo@#}":    whyBadSubst,
	"foo=force_expansion; echo ${foo:1 2}":  whyBadSubst,
	"echo ${foo]}":                          whyBadSubst,
	"echo ${foo[}":                          whyBadSubst,
	"echo ${foo[]}":                         whyBadSubst,
	"echo ${foo[1 2]}":                      whyBadSubst,
	"echo ${foo;}":                          whyBadSubst,
	"echo ${foo:1:#2}":                      whyBadSubst,
	"echo ${foo*}":                          whyBadSubst,
	"echo ${foo!}":                          whyBadSubst,
	"echo ${@[@]} ${@[*]}":                  whyBadSubst,
	"echo ${?[@]}":                          whyBadSubst,
	"echo ${2[@]}":                          whyBadSubst,
	"echo ${*[@]} ${*[*]}":                  whyBadSubst,
	"echo ${$[0]}":                          whyBadSubst,
	"echo ${#foo:-bar}":                     whyBadSubst,
	"echo ${#[x]}":                          whyBadSubst,
	"echo ${!<}":                            whyBadSubst,
	"${signals[(i)QUIT]}":                   whyBadSubst,
	"foo=force_expansion\necho ${foo:#bar}": whyBadSubst,
	"foo=force_expansion\necho ${foo:|bar}": whyBadSubst,
	"foo=force_expansion\necho ${foo:*bar}": whyBadSubst,

	"echo $(())": whyEmptyArithm,
	"(())":       whyEmptyArithm,
}

const whyBadSubst = "bash reads a ${…} whole, to its closing brace, and refuses a bad one when it expands it (${%}: bad substitution, status 1, the rest of the line dropped), not when it parses the script, so the lines before it and a branch that never runs it are unaffected"

const whyEmptyArithm = "bash reads an empty (( )) as 0, status 1, and $(( )) as 0"

const whyFuncName = "bash reads any word before () as a function's name and fails when the definition runs if the word was quoted or held an expansion (`foo$bar': not a valid identifier, status 1), so the script goes on"

// upstreamErrText lists upstream's error cases that the patched parser
// still refuses, with another message, each with why.
var upstreamErrText = map[string]struct{ want, why string }{
	`""()`: {"1:1: `foo()` must be followed by a statement", whyFuncName},
}

const whyDeclName = "a declaration builtin's operand that is not a valid name is an error of the builtin when it runs, as in bash (declare: `0=': not a valid identifier, status 1), not a parse error that stops the script"

const whyDblParen = "(( and $(( are arithmetic only when the parenthesis closing the second ( is followed by another, as bash decides: otherwise bash reads a subshell in a subshell, ( ( or $( (, which these are"

const whyArithAssign = "arithmetic as bash evaluates it: what an assignment or ++ names is checked when it runs, as in bash (attempted assignment to non-variable), not when the script is parsed, so $(( x$foo = 42 )) runs"

// parsedNow reports whether upstream's error case in is one the patched
// parser accepts, or refuses with another message, and checks that it
// does.
func parsedNow(t *testing.T, p *Parser, in string) bool {
	t.Helper()
	if c, ok := upstreamErrText[in]; ok && p.lang.in(langBashLike) {
		_, err := p.Parse(newStrictReader(in), "")
		if err == nil || err.Error() != c.want {
			t.Fatalf("%q: %v; the list says it fails with %s (%s)", in, err, c.want, c.why)
		}
		return true
	}
	why, ok := upstreamParsed[in]
	if !ok || why != whyArithAssign && !p.lang.in(langBashLike) {
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
