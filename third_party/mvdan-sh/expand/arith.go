// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package expand

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/internal"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// TODO(v4): the arithmetic APIs should return int64 for portability with 32-bit systems,
// even if Bash only supports native int sizes.

// Arithm evaluates an arithmetic expression as bash does. When a word of
// it expands (a parameter, a command substitution, quotes), bash expands
// the expression's words first and reads the text that results as the
// expression: x='1 + 2' makes $(( $x * 3 )) 7, not 9.
func Arithm(cfg *Config, expr syntax.ArithmExpr) (int, error) {
	return cfg.arithm(expr, true)
}

// ArithmLet is [ArithmNamed] for an argument of let, a word that bash
// expands as a command's (its single quotes removed too) before it reads
// it as an expression.
func ArithmLet(cfg *Config, expr syntax.ArithmExpr) (int, error) {
	n, err := cfg.arithm(expr, false)
	return n, cfg.named(expr, err)
}

// arithm is [Arithm]; keepSingle keeps the single quotes of the words
// that expand, as bash does in $(( )) and (( )).
func (cfg *Config) arithm(expr syntax.ArithmExpr, keepSingle bool) (int, error) {
	text, reread, err := cfg.rereadArithm(expr, keepSingle)
	if err != nil || reread == nil {
		if err != nil {
			return 0, err
		}
		return arithmNode(cfg, expr)
	}
	n, err := arithmNode(cfg, reread)
	if ae, ok := err.(ArithmError); ok && ae.Expr == "" {
		ae.Expr, ae.whole = text, true
		err = ae
	}
	return n, err
}

// rereadArithm is expr read again from the text its words expand to, and
// that text, or nil when no word of it expands. Double quotes go, as
// bash removes them; single quotes stay, and are an error, as in bash 5.2
// ('1' + 2: operand expected). The words of an element's subscript
// (a[$i], A['k']) are the subscript's, not the expression's.
func (cfg *Config) rereadArithm(expr syntax.ArithmExpr, keepSingle bool) (string, syntax.ArithmExpr, error) {
	if !arithmExpands(expr) {
		return "", nil, nil
	}
	expanded, err := cfg.expandArithmWords(expr, keepSingle)
	if err != nil {
		return "", nil, err
	}
	text := ArithmText(expanded)
	reread, err := syntax.NewParser().Arithmetic(strings.NewReader(text))
	if err == nil && reread == nil {
		reread = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{}}} // all blank: 0
	}
	if err != nil || arithmExpands(reread) {
		// What is left to expand was text: bash stops at it.
		token := text
		if pos, ok := firstExpanding(reread); ok && err == nil {
			token = text[min(int(pos.Offset()), len(text)):]
		}
		return "", nil, ArithmError{Expr: text, Msg: "syntax error: operand expected", Token: token, whole: true}
	}
	return text, reread, nil
}

// arithmExpands reports whether a word of expr expands.
func arithmExpands(expr syntax.ArithmExpr) bool {
	_, ok := firstExpanding(expr)
	return ok
}

// firstExpanding is the position of the first part of expr's words that
// expands, outside subscripts.
func firstExpanding(expr syntax.ArithmExpr) (syntax.Pos, bool) {
	switch x := expr.(type) {
	case *syntax.Word:
		for _, part := range x.Parts {
			switch part := part.(type) {
			case *syntax.Lit:
			case *syntax.ParamExp:
				if part.Dollar.IsValid() || part.Index == nil {
					return part.Pos(), true
				}
			default:
				return part.Pos(), true
			}
		}
	case *syntax.BinaryArithm:
		if pos, ok := firstExpanding(x.X); ok {
			return pos, ok
		}
		return firstExpanding(x.Y)
	case *syntax.UnaryArithm:
		return firstExpanding(x.X)
	case *syntax.ParenArithm:
		return firstExpanding(x.X)
	}
	return syntax.Pos{}, false
}

// expandArithmWords is expr with each word that expands replaced by its
// text; with keepSingle, single-quoted parts keep their quotes.
func (cfg *Config) expandArithmWords(expr syntax.ArithmExpr, keepSingle bool) (syntax.ArithmExpr, error) {
	switch x := expr.(type) {
	case *syntax.Word:
		if !arithmExpands(x) {
			return x, nil
		}
		w := &syntax.Word{Parts: slices.Clone(x.Parts)}
		for i, part := range w.Parts {
			if sq, ok := part.(*syntax.SglQuoted); ok && keepSingle {
				w.Parts[i] = &syntax.Lit{ValuePos: sq.Pos(), Value: "'" + sq.Value + "'"}
			}
		}
		str, err := Literal(cfg, w)
		if err != nil {
			return nil, err
		}
		return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{ValuePos: x.Pos(), Value: str}}}, nil
	case *syntax.BinaryArithm:
		left, err := cfg.expandArithmWords(x.X, keepSingle)
		if err != nil {
			return nil, err
		}
		right, err := cfg.expandArithmWords(x.Y, keepSingle)
		if err != nil {
			return nil, err
		}
		x2 := *x
		x2.X, x2.Y = left, right
		return &x2, nil
	case *syntax.UnaryArithm:
		inner, err := cfg.expandArithmWords(x.X, keepSingle)
		if err != nil {
			return nil, err
		}
		x2 := *x
		x2.X = inner
		return &x2, nil
	case *syntax.ParenArithm:
		inner, err := cfg.expandArithmWords(x.X, keepSingle)
		if err != nil {
			return nil, err
		}
		x2 := *x
		x2.X = inner
		return &x2, nil
	}
	return expr, nil
}

func arithmNode(cfg *Config, expr syntax.ArithmExpr) (int, error) {
	switch expr := expr.(type) {
	case *syntax.Word:
		str, err := Literal(cfg, expr)
		if err != nil {
			return 0, err
		}
		return cfg.arithmValue(str, 0)
	case *syntax.ParenArithm:
		return arithmNode(cfg, expr.X)
	case *syntax.UnaryArithm:
		switch expr.Op {
		case syntax.Inc, syntax.Dec:
			name, index, err := cfg.arithmLvalue(expr.X)
			if err != nil {
				return 0, err
			}
			old, err := arithmNode(cfg, expr.X)
			if err != nil {
				return 0, err
			}
			val := old
			if expr.Op == syntax.Inc {
				val++
			} else {
				val--
			}
			if err := cfg.arithmSet(name, index, strconv.Itoa(val)); err != nil {
				return 0, err
			}
			if expr.Post {
				return old, nil
			}
			return val, nil
		}
		val, err := arithmNode(cfg, expr.X)
		if err != nil {
			return 0, err
		}
		switch expr.Op {
		case syntax.Not:
			return oneIf(val == 0), nil
		case syntax.BitNegation:
			return ^val, nil
		case syntax.Plus:
			return val, nil
		case syntax.Minus:
			return -val, nil
		default:
			return 0, fmt.Errorf("unsupported unary arithmetic operator: %q", expr.Op)
		}
	case *syntax.BinaryArithm:
		switch expr.Op {
		case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn,
			syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
			syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn,
			syntax.ShlAssgn, syntax.ShrAssgn:
			return cfg.assgnArit(expr)
		case syntax.TernQuest: // TernColon can't happen here
			cond, err := arithmNode(cfg, expr.X)
			if err != nil {
				return 0, err
			}
			b2 := expr.Y.(*syntax.BinaryArithm) // must have Op==TernColon
			if cond != 0 {
				return arithmNode(cfg, b2.X)
			}
			return arithmNode(cfg, b2.Y)
		case syntax.AndArit, syntax.OrArit:
			// Like Bash, short-circuit the right operand.
			left, err := arithmNode(cfg, expr.X)
			if err != nil {
				return 0, err
			}
			if expr.Op == syntax.AndArit && left == 0 {
				return 0, nil
			}
			if expr.Op == syntax.OrArit && left != 0 {
				return 1, nil
			}
			right, err := arithmNode(cfg, expr.Y)
			if err != nil {
				return 0, err
			}
			return oneIf(right != 0), nil
		}
		left, err := arithmNode(cfg, expr.X)
		if err != nil {
			return 0, err
		}
		right, err := arithmNode(cfg, expr.Y)
		if err != nil {
			return 0, err
		}
		n, err := binArit(expr.Op, left, right)
		if ae, ok := err.(ArithmError); ok && ae.Msg == "division by 0" {
			ae.Token = ArithmText(expr.Y) // bash names the divisor as written: x in 1 / x
			err = ae
		}
		return n, err
	case *syntax.FlagsArithm: // e.g. zsh's ${a[(r)b]}
		return 0, fmt.Errorf("unsupported")
	default:
		panic(fmt.Sprintf("unexpected arithm expr: %T", expr))
	}
}

func oneIf(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ArithmError is an arithmetic expression bash refuses to evaluate, in its
// words: the message and the token it names.
type ArithmError struct {
	Expr       string // the expression, as printed; empty if not known
	Msg, Token string

	whole bool // Expr is the whole expression evaluated, not a value's
}

func (e ArithmError) Error() string {
	if e.Expr == "" {
		return fmt.Sprintf("%s (error token is \"%s\")", e.Msg, e.Token)
	}
	return fmt.Sprintf("%s: %s (error token is \"%s\")", e.Expr, e.Msg, e.Token)
}

// ArithmNamed is [Arithm] whose [ArithmError] names the expression, as
// bash's message does. closing is where the expression's closing token
// (`))`, `]`) starts, or zero: bash's message names the blanks before it
// too, at the end of the expression and of an error token that ends it
// (`$(( 42 / 0 ))` is `42 / 0 : division by 0 (error token is "0 ")`).
func ArithmNamed(cfg *Config, expr syntax.ArithmExpr, closing syntax.Pos) (int, error) {
	n, err := Arithm(cfg, expr)
	err = cfg.named(expr, err)
	ae, ok := err.(ArithmError)
	end := expr.End()
	if !ok || !ae.whole || !closing.IsValid() || !end.IsValid() || closing.Line() != end.Line() || closing.Col() <= end.Col() {
		return n, err
	}
	if ae.Msg == msgBigDigit || ae.Msg == msgBadBase {
		return n, err // errors of a number's digits name it without them
	}
	blanks := strings.Repeat(" ", int(closing.Col()-end.Col()))
	if ae.Token != "" && strings.HasSuffix(ae.Expr, ae.Token) {
		ae.Token += blanks
	}
	ae.Expr += blanks
	return n, ae
}

// named is err naming the expression expr if it names none.
func (cfg *Config) named(expr syntax.ArithmExpr, err error) error {
	if ae, ok := err.(ArithmError); ok && ae.Expr == "" {
		ae.Expr, ae.whole = ArithmText(expr), true
		err = ae
	}
	return err
}

// The messages of a number bash cannot read.
const (
	msgBadBase  = "invalid arithmetic base"
	msgBigDigit = "value too great for base"
)

// ArithmString evaluates a string as bash evaluates an operand of -eq and
// the like in [[ ]]: a number in any base, a name, or an expression.
func ArithmString(cfg *Config, s string) (int, error) {
	return prepareConfig(cfg).arithmValue(s, 0)
}

// ArithmText is an expression as the printer writes it (`1 / 0`), as
// bash's messages quote one.
func ArithmText(expr syntax.ArithmExpr) string {
	var b strings.Builder
	// The printer takes the expression as the part of a word it is.
	syntax.NewPrinter().Print(&b, &syntax.ArithmExp{Left: expr.Pos(), Right: expr.End(), X: expr})
	return strings.TrimSuffix(strings.TrimPrefix(b.String(), "$(("), "))")
}

// maxArithmDepth bounds how deep variables whose values are expressions
// may refer to one another, as bash's expression recursion level does.
const maxArithmDepth = 1024

// arithmValue is the value of an operand: a number in any of bash's bases,
// or the name of a variable, or a variable's value, which bash evaluates
// as an expression in turn (x='1 + 2' makes $((x * 2)) 6).
func (cfg *Config) arithmValue(s string, depth int) (int, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return 0, nil
	case depth > maxArithmDepth:
		return 0, ArithmError{Msg: "expression recursion level exceeded", Token: s}
	case s[0] >= '0' && s[0] <= '9' && strings.Trim(s, numberChars) == "":
		n, err := parseArithmNumber(s)
		return int(n), err
	case syntax.ValidName(s):
		vr := cfg.Env.Get(s)
		if n, v := vr.Resolve(cfg.Env); n != "" {
			vr = v
		}
		if !vr.IsSet() {
			if cfg.NoUnset {
				return 0, UnsetParameterError{
					Node:    &syntax.ParamExp{Param: &syntax.Lit{Value: s}},
					Message: "unbound variable",
				}
			}
			return 0, nil
		}
		return cfg.arithmValue(vr.String(), depth+1)
	}
	expr, err := syntax.NewParser().Arithmetic(strings.NewReader(s))
	if w, ok := expr.(*syntax.Word); ok && err == nil && w.Lit() == s {
		// Neither a number nor a name, and nothing more to evaluate: @, %.
		return 0, ArithmError{Expr: s, Msg: "syntax error: operand expected", Token: s}
	}
	if err != nil {
		return 0, ArithmError{Expr: s, Msg: "syntax error: invalid arithmetic operator", Token: s}
	}
	if rest := strings.TrimSpace(s[min(int(expr.End().Offset()), len(s)):]); rest != "" {
		// The parser stops after one expression; bash refuses what
		// follows it (x='1 3'). (tandem)
		return 0, ArithmError{Expr: s, Msg: "syntax error in expression", Token: rest}
	}
	return cfg.arithmExpr(expr, depth+1)
}

// arithmExpr evaluates an expression that came from a variable's value.
func (cfg *Config) arithmExpr(expr syntax.ArithmExpr, depth int) (int, error) {
	if w, ok := expr.(*syntax.Word); ok {
		str, err := Literal(cfg, w)
		if err != nil {
			return 0, err
		}
		return cfg.arithmValue(str, depth)
	}
	return arithmNode(cfg, expr)
}

// numberChars are the characters of an integer constant in any base.
const numberChars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@_#"

// parseArithmNumber reads an integer constant as bash does: 0x1F and 0X1F
// in hexadecimal, 017 in octal, BASE#DIGITS in any base from 2 to 64
// (digits 0-9, a-z, A-Z, @ and _; the letters' case does not matter up
// to base 36), else decimal. A digit the base does not have is an error.
func parseArithmNumber(s string) (int64, error) {
	base, digits := int64(10), s
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		base, digits = 16, s[2:]
	case strings.HasPrefix(s, "0") && len(s) > 1:
		base, digits = 8, s[1:]
	default:
		if b, d, ok := strings.Cut(s, "#"); ok {
			n, err := strconv.ParseInt(b, 10, 64)
			if err != nil || n < 2 || n > 64 {
				return 0, ArithmError{Msg: msgBadBase, Token: s}
			}
			base, digits = n, d
		}
	}
	var n int64
	for i := range len(digits) {
		var d int64
		switch c := digits[i]; {
		case c >= '0' && c <= '9':
			d = int64(c - '0')
		case c >= 'a' && c <= 'z':
			d = int64(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			d = int64(c-'A') + 10
			if base > 36 {
				d += 26
			}
		case c == '@':
			d = 62
		case c == '_':
			d = 63
		default:
			return 0, ArithmError{Msg: "syntax error: invalid arithmetic operator", Token: digits[i:]}
		}
		if d >= base {
			return 0, ArithmError{Msg: msgBigDigit, Token: s}
		}
		n = n*base + d
	}
	return n, nil
}

// arithmLvalue names the variable an assignment, ++ or -- changes: a name,
// or an element a[i] (i an expression, or an associative array's key); a
// word that expands to a name (x$foo) names that variable.
func (cfg *Config) arithmLvalue(x syntax.ArithmExpr) (name string, index syntax.ArithmExpr, err error) {
	w, _ := x.(*syntax.Word)
	if w == nil {
		return "", nil, ArithmError{Msg: "attempted assignment to non-variable", Token: ""}
	}
	if len(w.Parts) == 1 {
		pe, ok := w.Parts[0].(*syntax.ParamExp)
		if ok && pe.Short && pe.Index != nil && syntax.ValidName(pe.Param.Value) {
			return pe.Param.Value, pe.Index, nil
		}
	}
	str, err := Literal(cfg, w)
	if err != nil {
		return "", nil, err
	}
	if !syntax.ValidName(str) {
		return "", nil, ArithmError{Msg: "attempted assignment to non-variable", Token: str}
	}
	return str, nil, nil
}

// arithmSet assigns an arithmetic result to a variable or to an element of
// an indexed or associative array.
func (cfg *Config) arithmSet(name string, index syntax.ArithmExpr, value string) error {
	if index == nil {
		return cfg.envSet(name, value)
	}
	wenv, ok := cfg.Env.(WriteEnviron)
	if !ok {
		return fmt.Errorf("environment is read-only")
	}
	vr := cfg.Env.Get(name)
	if n, v := vr.Resolve(cfg.Env); n != "" {
		name, vr = n, v
	}
	switch vr.Kind {
	case Associative:
		key, err := AssocKey(cfg, index)
		if err != nil {
			return err
		}
		m := maps.Clone(vr.Map)
		if m == nil {
			m = make(map[string]string)
		}
		m[key] = value
		vr.Map = m
	default:
		var list []string
		var indexes []int
		if vr.Kind == Indexed {
			list, indexes = slices.Clone(vr.List), slices.Clone(vr.Indexes)
		} else if vr.IsSet() {
			list = []string{vr.Str}
		}
		k, err := Arithm(cfg, index)
		if err != nil {
			return err
		}
		if k < 0 {
			if k += internal.IndexedMax(list, indexes) + 1; k < 0 {
				return fmt.Errorf("%s: bad array subscript", name)
			}
		}
		vr.List, vr.Indexes = internal.SetIndexedElem(list, indexes, k, value)
		vr.Kind, vr.Str = Indexed, ""
	}
	vr.Set = true
	return wenv.Set(name, vr)
}

func (cfg *Config) assgnArit(b *syntax.BinaryArithm) (int, error) {
	name, index, err := cfg.arithmLvalue(b.X)
	if err != nil {
		return 0, err
	}
	var val int64
	if b.Op != syntax.Assgn {
		old, err := arithmNode(cfg, b.X)
		if err != nil {
			return 0, err
		}
		val = int64(old)
	}
	arg_, err := arithmNode(cfg, b.Y)
	if err != nil {
		return 0, err
	}
	arg := int64(arg_)
	switch b.Op {
	case syntax.Assgn:
		val = arg
	case syntax.AddAssgn:
		val += arg
	case syntax.SubAssgn:
		val -= arg
	case syntax.MulAssgn:
		val *= arg
	case syntax.QuoAssgn:
		if arg == 0 {
			return 0, ArithmError{Msg: "division by 0", Token: strconv.FormatInt(arg, 10)}
		}
		val /= arg
	case syntax.RemAssgn:
		if arg == 0 {
			return 0, ArithmError{Msg: "division by 0", Token: strconv.FormatInt(arg, 10)}
		}
		val %= arg
	case syntax.AndAssgn:
		val &= arg
	case syntax.OrAssgn:
		val |= arg
	case syntax.XorAssgn:
		val ^= arg
	case syntax.ShlAssgn:
		val <<= uint(arg)
	case syntax.ShrAssgn:
		val >>= uint(arg)
	}
	if err := cfg.arithmSet(name, index, strconv.FormatInt(val, 10)); err != nil {
		return 0, err
	}
	return int(val), nil
}

func intPow(a, b int) int {
	p := 1
	for b > 0 {
		if b&1 != 0 {
			p *= a
		}
		b >>= 1
		a *= a
	}
	return p
}

func binArit(op syntax.BinAritOperator, x, y int) (int, error) {
	switch op {
	case syntax.Add:
		return x + y, nil
	case syntax.Sub:
		return x - y, nil
	case syntax.Mul:
		return x * y, nil
	case syntax.Quo:
		if y == 0 {
			return 0, ArithmError{Msg: "division by 0", Token: "0"}
		}
		return x / y, nil
	case syntax.Rem:
		if y == 0 {
			return 0, ArithmError{Msg: "division by 0", Token: "0"}
		}
		return x % y, nil
	case syntax.Pow:
		if y < 0 {
			return 0, ArithmError{Msg: "exponent less than 0", Token: strconv.Itoa(-y)}
		}
		return intPow(x, y), nil
	case syntax.Eql:
		return oneIf(x == y), nil
	case syntax.Gtr:
		return oneIf(x > y), nil
	case syntax.Lss:
		return oneIf(x < y), nil
	case syntax.Neq:
		return oneIf(x != y), nil
	case syntax.Leq:
		return oneIf(x <= y), nil
	case syntax.Geq:
		return oneIf(x >= y), nil
	case syntax.And:
		return x & y, nil
	case syntax.Or:
		return x | y, nil
	case syntax.Xor:
		return x ^ y, nil
	case syntax.Shr:
		return x >> uint(y), nil
	case syntax.Shl:
		return x << uint(y), nil
	case syntax.Comma:
		// x is executed but its result discarded
		return y, nil
	default:
		return 0, fmt.Errorf("unsupported binary arithmetic operator: %q", op)
	}
}
