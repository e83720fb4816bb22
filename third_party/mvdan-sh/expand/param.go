// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package expand

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/internal"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/pattern"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

func nodeLit(node syntax.Node) string {
	if word, ok := node.(*syntax.Word); ok {
		return word.Lit()
	}
	return ""
}

// UnsetParameterError is returned when a parameter expansion encounters an
// unset variable and [Config.NoUnset] has been set.
type UnsetParameterError struct {
	Node    *syntax.ParamExp
	Message string
}

func (u UnsetParameterError) Error() string {
	return fmt.Sprintf("%s: %s", u.Node.Param.Value, u.Message)
}

// wordUsed tells whether the word of one of the operators
// [overridingUnset] lists is used, for a parameter that is set or not and
// null or not: `-`, `=` and `?` use it when unset (with a colon, also when
// null), `+` when set (with a colon, also not null).
func wordUsed(op syntax.ParExpOperator, set, null bool) bool {
	switch op {
	case syntax.AlternateUnset:
		return set
	case syntax.AlternateUnsetOrNull:
		return set && !null
	case syntax.DefaultUnset, syntax.ErrorUnset, syntax.AssignUnset:
		return !set
	}
	return !set || null
}

func overridingUnset(pe *syntax.ParamExp) bool {
	if pe.Exp == nil {
		return false
	}
	switch pe.Exp.Op {
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull,
		syntax.DefaultUnset, syntax.DefaultUnsetOrNull,
		syntax.ErrorUnset, syntax.ErrorUnsetOrNull,
		syntax.AssignUnset, syntax.AssignUnsetOrNull:
		return true
	}
	return false
}

// paramExp expands pe; quoted says it is inside double quotes or a
// here-document.
func (cfg *Config) paramExp(pe *syntax.ParamExp, quoted bool) (string, error) {
	str, word, err := cfg.paramExpOrWord(pe, quoted)
	if word != nil {
		return cfg.expArg(pe.Exp, quoted)
	}
	return str, err
}

// paramExpOrWord is [Config.paramExp], but for `-` and `+` whose word is
// used it returns that word unexpanded, so that an unquoted ${x:-'a b'}
// can keep its quoted parts whole when split into fields.
func (cfg *Config) paramExpOrWord(pe *syntax.ParamExp, quoted bool) (string, *syntax.Word, error) {
	byCount := cfg.indirectList
	cfg.indirectList = false
	oldParam := cfg.curParam
	cfg.curParam = pe
	defer func() { cfg.curParam = oldParam }()

	if pe.Invalid != "" {
		return "", nil, BadSubstError{Text: pe.Invalid}
	}
	if pe.Param == nil { // e.g. zsh's ${}
		return "", nil, fmt.Errorf("unsupported")
	}
	if indirect(pe) && cfg.Env.Get(pe.Param.Value).Kind != NameRef {
		target, err := cfg.indirectTarget(pe)
		if err != nil || target == nil {
			return "", nil, err
		}
		cfg.indirectList = true
		str, word, err := cfg.paramExpOrWord(target, quoted)
		if ue, ok := err.(UnsetParameterError); ok {
			// bash names the reference: !x: unbound variable
			shown := *pe
			shown.Param = &syntax.Lit{Value: "!" + pe.Param.Value}
			ue.Node = &shown
			err = ue
		}
		return str, word, err
	}
	name := pe.Param.Value
	index := pe.Index
	switch name {
	case "@", "*":
		index = &syntax.Word{Parts: []syntax.WordPart{
			&syntax.Lit{Value: name},
		}}
	}
	// "*" expansions like ${*}, ${arr[*]}, or ${!prefix*} join their
	// elements with the first IFS character; others use a space.
	join := func(elems []string) string {
		if nodeLit(index) == "*" || pe.Names == syntax.NamesPrefix {
			return cfg.ifsJoin(elems)
		}
		return strings.Join(elems, " ")
	}
	var vr Variable
	switch name {
	case "LINENO":
		// This is the only parameter expansion that the environment
		// interface cannot satisfy.
		line := uint64(cfg.curParam.Pos().Line())
		if cfg.LoopLine != 0 {
			line = uint64(cfg.LoopLine)
		}
		vr = Variable{Set: true, Kind: String, Str: strconv.FormatUint(line, 10)}
	default:
		vr = cfg.Env.Get(name)
	}
	orig := vr
	if orig.Kind == NameRef && cfg.Warn != nil && refCircle(cfg.Env, orig) {
		cfg.Warn("warning: " + name + ": circular name reference")
	}
	if n, v := vr.Resolve(cfg.Env); n != "" {
		name, vr = n, v
		// A nameref may name an element: declare -n r='a[2]'.
		if base, idx, ok := ParamRef(n); ok && base != n && index == nil {
			name, vr, index = base, cfg.Env.Get(base), idx
		}
	}
	if cfg.NoUnset && !vr.IsSet() && !overridingUnset(pe) {
		return "", nil, UnsetParameterError{
			Node:    pe,
			Message: "unbound variable",
		}
	}

	var sliceOffset, sliceLen int
	if pe.Slice != nil {
		var err error
		if pe.Slice.Offset != nil {
			sliceOffset, err = Arithm(cfg, pe.Slice.Offset)
			if err != nil {
				return "", nil, err
			}
		}
		if pe.Slice.Length != nil {
			sliceLen, err = Arithm(cfg, pe.Slice.Length)
			if err != nil {
				return "", nil, err
			}
		}
	}

	var (
		str   string
		elems []string

		indexAllElements bool // true if var has been accessed with * or @ index
		callVarInd       = true
		set              = vr.IsSet()
	)

	switch nodeLit(index) {
	case "@", "*":
		switch vr.Kind {
		case Unknown:
			elems = nil
			indexAllElements = true
		case Indexed:
			if pe.Slice != nil && pe.Slice.Length != nil && sliceLen < 0 {
				return "", nil, sliceLengthError(pe)
			}
			indexAllElements = true
			callVarInd = false
			elems = cfg.sliceElems(pe, vr.List, vr.Indexes, name == "@" || name == "*")
			str = join(elems)
			set = len(elems) > 0 // ${a[@]-word} of a=() is the word
		case Associative:
			if pe.Slice != nil && pe.Slice.Length != nil && sliceLen < 0 {
				return "", nil, sliceLengthError(pe)
			}
			indexAllElements = true
			callVarInd = false
			elems = cfg.assocSlice(pe, vr.assocValues())
			str = join(elems)
			set = len(elems) > 0
		}
	}
	if callVarInd {
		var err error
		str, set, err = cfg.varInd(vr, index)
		if err != nil {
			return "", nil, err
		}
	}
	if !indexAllElements {
		elems = []string{str}
	} else {
		set = len(elems) > 0 // ${a[@]-x} and ${@-x} are set by an element
	}

	switch {
	case pe.Length:
		n := len(elems)
		switch nodeLit(index) {
		case "@", "*":
		default:
			n = utf8.RuneCountInString(str)
		}
		str = strconv.Itoa(n)
	case pe.Excl:
		var strs []string
		switch {
		case pe.Names != 0:
			strs = cfg.namesByPrefix(pe.Param.Value)
		case orig.Kind == NameRef:
			strs = append(strs, orig.Str)
		case vr.Kind == Indexed:
			strs = vr.indexedKeys()
		case vr.Kind == Associative:
			strs = vr.AssocKeys()
		case vr.IsSet():
			strs = []string{"0"} // ${!s[@]} of a string
		}
		str = join(strs)
	case pe.Width:
		return "", nil, fmt.Errorf("unsupported")
	case pe.IsSet:
		return "", nil, fmt.Errorf("unsupported")
	case pe.Slice != nil:
		if callVarInd {
			// The offset and length are in characters, not bytes.
			rs := []rune(str)
			slicePos := func(n int) int {
				if n < 0 {
					n = len(rs) + n
					if n < 0 {
						n = len(rs)
					}
				} else if n > len(rs) {
					n = len(rs)
				}
				return n
			}
			if pe.Slice.Offset != nil {
				rs = rs[slicePos(sliceOffset):]
			}
			if pe.Slice.Length != nil {
				if sliceLen < 0 && -sliceLen > len(rs) {
					return "", nil, sliceLengthError(pe) // ends before it starts
				}
				rs = rs[:slicePos(sliceLen)]
			}
			str = string(rs)
		} // else, elems are already sliced
	case pe.Repl != nil:
		elems, err := cfg.replaceElems(pe.Repl, elems)
		if err != nil {
			return "", nil, err
		}
		str = join(elems)
	case pe.Exp != nil:
		op := pe.Exp.Op
		null := str == ""
		switch {
		case indexAllElements && byCount && quoted:
			null = len(elems) == 0
		case indexAllElements && !quoted:
			// An unquoted ${a[*]:-word} is null as ${a[@]:-word} is:
			// its elements joined with a space are (bash 5.2).
			null = strings.Join(elems, " ") == ""
		}
		if overridingUnset(pe) && !wordUsed(op, set, null) {
			// The word is expanded only when used, as in bash:
			// ${x:-$((i++))} leaves i as it is when x is set.
			break
		}
		switch op {
		case syntax.AlternateUnsetOrNull, syntax.AlternateUnset,
			syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
			if pe.Exp.Word == nil {
				return "", nil, nil
			}
			return "", pe.Exp.Word, nil
		}
		arg, err := cfg.expArg(pe.Exp, quoted)
		if err != nil {
			return "", nil, err
		}
		switch op {
		case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
			if arg == "" {
				arg = "parameter null or not set"
				if op == syntax.ErrorUnset {
					arg = "parameter not set"
				}
			}
			return "", nil, UnsetParameterError{
				Node:    pe,
				Message: arg,
			}
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			if err := cfg.assignElem(name, vr, index, arg); err != nil {
				return "", nil, err
			}
			str = arg
		case syntax.RemSmallPrefix, syntax.RemLargePrefix,
			syntax.RemSmallSuffix, syntax.RemLargeSuffix:
			str = join(cfg.removePatternElems(op, arg, elems))
		case syntax.UpperFirst, syntax.UpperAll,
			syntax.LowerFirst, syntax.LowerAll:
			str = join(cfg.caseConvElems(op, arg, elems))
		case syntax.OtherParamOps:
			switch arg {
			case "Q", "E", "U", "u", "L", "P":
				// Each element on its own, as in bash: ${a[@]@Q} is 'x' 'y'.
				if !set {
					str = ""
					break
				}
				out := make([]string, len(elems))
				for i, elem := range elems {
					out[i] = transformElem(arg, elem)
				}
				str = join(out)
			case "a":
				// ${var@a} returns variable attribute flags.
				// We use orig (before nameref resolve) for the attributes.
				str = orig.Flags()
				if name == "@" || name == "*" {
					str = "" // the positional parameters have none
				}
			case "A":
				// ${var@A} returns a declare statement that recreates the variable.
				if !set {
					str = ""
					break
				}
				flags := orig.Flags()
				if flags == "" {
					str = fmt.Sprintf("%s=%s", name, quoteValue(str))
				} else {
					str = fmt.Sprintf("declare -%s %s=%s", flags, name, quoteValue(str))
				}
			case "K", "k":
				// An array's keys and values (${a[@]@K} is 0 "x" 1 "y"),
				// else quoted as by @Q.
				if pairs, ok := keyValues(arg, vr, indexAllElements && name != "@" && name != "*"); ok {
					str = strings.Join(pairs, " ")
					break
				}
				if !set {
					str = ""
					break
				}
				out := make([]string, len(elems))
				for i, elem := range elems {
					out[i] = quoteValue(elem)
				}
				str = join(out)
			default:
				panic(fmt.Sprintf("unexpected @%s param expansion", arg))
			}
		}
	}
	return str, nil, nil
}

// transformElem is one element under ${x@OP} for the operators that
// transform each element: Q quotes it as bash does (always in single
// quotes, or $'…' when it holds control characters), E expands its
// backslash escapes, U, u and L change its case; P (prompt expansion) is
// left as it is.
func transformElem(op, s string) string {
	switch op {
	case "Q":
		return quoteValue(s)
	case "E":
		var rns []rune
		for s != "" {
			var rn rune
			rn, _, s, _ = strconv.UnquoteChar(s, 0)
			rns = append(rns, rn)
		}
		return string(rns)
	case "U":
		return strings.ToUpper(s)
	case "u":
		rs := []rune(s)
		if len(rs) > 0 {
			rs[0] = unicode.ToUpper(rs[0])
		}
		return string(rs)
	case "L":
		return strings.ToLower(s)
	}
	return s
}

func removePattern(str, pat string, fromEnd, shortest bool, mode pattern.Mode) string {
	if shortest {
		mode |= pattern.Shortest
	}
	expr, err := pattern.Regexp(pat, mode)
	if err != nil {
		return str
	}
	switch {
	case fromEnd && shortest:
		// use .* to get the right-most shortest match
		expr = ".*(" + expr + ")$"
	case fromEnd:
		// simple suffix
		expr = "(" + expr + ")$"
	default:
		// simple prefix
		expr = "^(" + expr + ")"
	}
	// no need to check error as Translate returns one
	rx := regexp.MustCompile(expr)
	if loc := rx.FindStringSubmatchIndex(str); loc != nil {
		// remove the original pattern (the submatch)
		str = str[:loc[2]] + str[loc[3]:]
	}
	return str
}

// The helpers below never modify elems in place, as it may alias a
// variable's list of elements.

// perElemOps applies pattern removal, replacement, or case conversion to
// each element, leaving them unchanged for any whole-expansion operator;
// null tells whether the list is null, for `:-` and `:+`.
func (cfg *Config) perElemOps(pe *syntax.ParamExp, elems []string, null bool) ([]string, error) {
	switch {
	case pe.Repl != nil:
		return cfg.replaceElems(pe.Repl, elems)
	case pe.Exp != nil:
		switch op := pe.Exp.Op; op {
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull,
			syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
			// "${a[@]-x}" is a's elements when a has any, else the one
			// field x; "${a[@]+x}" is x when it has, else no field.
			if !wordUsed(op, len(elems) > 0, null) {
				if op == syntax.AlternateUnset || op == syntax.AlternateUnsetOrNull {
					return []string{}, nil
				}
				return elems, nil
			}
			arg, err := cfg.expArg(pe.Exp, true)
			if err != nil {
				return nil, err
			}
			return []string{arg}, nil
		}
		arg, err := Pattern(cfg, pe.Exp.Word)
		if err != nil {
			return nil, err
		}
		switch op := pe.Exp.Op; op {
		case syntax.RemSmallPrefix, syntax.RemLargePrefix,
			syntax.RemSmallSuffix, syntax.RemLargeSuffix:
			return cfg.removePatternElems(op, arg, elems), nil
		case syntax.UpperFirst, syntax.UpperAll,
			syntax.LowerFirst, syntax.LowerAll:
			return cfg.caseConvElems(op, arg, elems), nil
		case syntax.OtherParamOps:
			switch arg {
			case "Q", "E", "U", "u", "L", "P":
				out := make([]string, len(elems))
				for i, elem := range elems {
					out[i] = transformElem(arg, elem)
				}
				return out, nil
			case "a": // "${a[@]@a}" gives the array's attributes once for each
				out := make([]string, len(elems))
				for i := range elems {
					if name := pe.Param.Value; name != "@" && name != "*" {
						out[i] = cfg.Env.Get(name).Flags()
					}
				}
				return out, nil
			case "K", "k":
				if name := pe.Param.Value; name != "@" && name != "*" {
					if pairs, ok := keyValues(arg, cfg.Env.Get(name), true); ok {
						if arg == "K" { // one field, as bash gives it
							return []string{strings.Join(pairs, " ")}, nil
						}
						return pairs, nil
					}
				}
				out := make([]string, len(elems))
				for i, elem := range elems {
					out[i] = quoteValue(elem)
				}
				return out, nil
			}
		}
	}
	return elems, nil
}

// DeclareQuote quotes a value as declare -p and ${a[@]@K} do: in double
// quotes, or $'…' when it holds control characters.
func DeclareQuote(s string) string {
	if strings.ContainsFunc(s, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		return QuoteANSIC(s)
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, "`", "\\`")
	return `"` + r.Replace(s) + `"`
}

// DeclareKey is an associative array's key as declare -p and ${A[@]@K}
// show it: quoted as [DeclareQuote] does when empty or when it holds one
// of bash's shell metacharacters.
func DeclareKey(k string) string {
	if k == "" || strings.ContainsAny(k, " \t\n\"'\\$`|&;()<>*?[]!{}~#") {
		return DeclareQuote(k)
	}
	return k
}

// keyValues is an array's keys and values in turn, for ${a[@]@K} (the
// values quoted as declare -p does, an associative array's list ending in
// a space, as in bash) and ${a[@]@k} (as they are); ok is false when vr
// is not an array or whole is false (${a[0]@K} is quoted as by @Q).
func keyValues(op string, vr Variable, whole bool) (pairs []string, ok bool) {
	quote := func(s string) string { return s }
	key := quote
	if op == "K" {
		quote, key = DeclareQuote, DeclareKey
	}
	switch {
	case !whole:
		return nil, false
	case vr.Kind == Indexed:
		for i, k := range vr.indexedKeys() {
			pairs = append(pairs, k, quote(vr.List[i]))
		}
	case vr.Kind == Associative:
		for _, k := range vr.AssocKeys() {
			pairs = append(pairs, key(k), quote(vr.Map[k]))
		}
		if op == "K" && len(pairs) > 0 {
			pairs[len(pairs)-1] += " "
		}
	default:
		return nil, false
	}
	return pairs, true
}

// quoteValue quotes a value as ${x@Q} does in bash: in single quotes, or
// $'…' when it holds control characters.
func quoteValue(s string) string {
	if strings.ContainsFunc(s, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		return QuoteANSIC(s)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// replaceElems applies a ${var/pattern/repl} replacement to each element.
func (cfg *Config) replaceElems(repl *syntax.Replace, elems []string) ([]string, error) {
	orig, err := Pattern(cfg, repl.Orig)
	if err != nil {
		return nil, err
	}
	if orig == "" {
		return elems, nil // nothing to replace
	}
	with, err := Literal(cfg, repl.With)
	if err != nil {
		return nil, err
	}
	n := 1
	if repl.All {
		n = -1
	}
	// ${x/#pat/with} and ${x/%pat/with} replace a match at the start or at
	// the end only; the parser leaves the # or % in the pattern.
	anchor := byte(0)
	// An empty pattern so anchored matches there: ${a[@]/#/pre-} prefixes.
	if lit, ok := repl.Orig.Parts[0].(*syntax.Lit); ok && !repl.All &&
		(strings.HasPrefix(lit.Value, "#") || strings.HasPrefix(lit.Value, "%")) {
		anchor, orig = orig[0], orig[1:]
	}
	out := make([]string, len(elems))
	for i, elem := range elems {
		var locs [][]int
		if anchor != 0 {
			locs = anchoredIndex(orig, elem, anchor == '%', cfg.patternMode())
		} else {
			locs = findAllIndex(orig, elem, n, cfg.patternMode())
		}
		if err := cfg.checkBytes(len(elem) + len(locs)*len(with)); err != nil {
			return nil, err
		}
		sb := cfg.strBuilder()
		last := 0
		for _, loc := range locs {
			sb.WriteString(elem[last:loc[0]])
			sb.WriteString(with)
			last = loc[1]
		}
		sb.WriteString(elem[last:])
		out[i] = sb.String()
	}
	return out, nil
}

// anchoredIndex is where the longest match of pat at the start (or the
// end) of name is, if there is one.
func anchoredIndex(pat, name string, atEnd bool, mode pattern.Mode) [][]int {
	expr, err := pattern.Regexp(pat, mode)
	if err != nil {
		return nil
	}
	if atEnd {
		expr = "(" + expr + ")$"
	} else {
		expr = "^(" + expr + ")"
	}
	loc := regexp.MustCompile(expr).FindStringSubmatchIndex(name)
	if loc == nil {
		return nil
	}
	return [][]int{loc[2:4]}
}

// patternMode is the mode a parameter expansion's pattern is read in:
// with extended operators under shopt -s extglob (${x%.@(py|cc)}).
func (cfg *Config) patternMode() pattern.Mode {
	if cfg.ExtGlob {
		return pattern.ExtendedOperators
	}
	return 0
}

// removePatternElems applies a pattern removal operator to each element.
func (cfg *Config) removePatternElems(op syntax.ParExpOperator, arg string, elems []string) []string {
	suffix := op == syntax.RemSmallSuffix || op == syntax.RemLargeSuffix
	small := op == syntax.RemSmallPrefix || op == syntax.RemSmallSuffix
	out := make([]string, len(elems))
	for i, elem := range elems {
		out[i] = removePattern(elem, arg, suffix, small, cfg.patternMode())
	}
	return out
}

// caseConvElems applies a case conversion operator to each element.
func (cfg *Config) caseConvElems(op syntax.ParExpOperator, arg string, elems []string) []string {
	caseFunc := unicode.ToLower
	if op == syntax.UpperFirst || op == syntax.UpperAll {
		caseFunc = unicode.ToUpper
	}
	all := op == syntax.UpperAll || op == syntax.LowerAll

	// empty string means '?'; nothing to do there
	expr, err := pattern.Regexp(arg, 0)
	if err != nil {
		return elems
	}
	rx := regexp.MustCompile(expr)

	out := make([]string, len(elems))
	for i, elem := range elems {
		rs := []rune(elem)
		for ri, r := range rs {
			if rx.MatchString(string(r)) {
				rs[ri] = caseFunc(r)
			}
			if !all {
				break // only the first character is considered
			}
		}
		out[i] = string(rs)
	}
	return out
}

// varInd expands an indexed variable expansion like ${a[i]}, also reporting
// whether the resulting element is set, which may be false for missing array
// elements such as the holes in a sparse array.
func (cfg *Config) varInd(vr Variable, idx syntax.ArithmExpr) (string, bool, error) {
	if idx == nil {
		switch vr.Kind {
		case Indexed:
			// A bare $a is the element at index zero, which may be unset.
			str, ok := vr.indexedVal(0)
			return str, ok, nil
		case Associative:
			str, ok := vr.Map["0"]
			return str, ok, nil
		}
		return vr.String(), vr.IsSet(), nil
	}
	switch vr.Kind {
	case Unknown:
		if lit := nodeLit(idx); lit != "@" && lit != "*" && (cfg.curParam == nil || !cfg.curParam.Length) {
			// bash evaluates the subscript of an unset array too:
			// ${u[i++]} adds 1 to i, ${u[1/0]} fails; not ${#u[i]}.
			if _, err := Subscript(cfg, idx); err != nil {
				return "", false, err
			}
		}
	case String:
		if lit := nodeLit(idx); lit == "@" || lit == "*" {
			return vr.Str, vr.IsSet(), nil // ${s[@]} of a string is the string
		}
		n, err := Subscript(cfg, idx)
		if err != nil {
			return "", false, err
		}
		if n == 0 {
			return vr.Str, vr.IsSet(), nil
		}
	case Indexed:
		switch nodeLit(idx) {
		case "*", "@":
			return strings.Join(vr.List, " "), len(vr.List) > 0, nil
		}
		i, err := Subscript(cfg, idx)
		if err != nil {
			return "", false, err
		}
		if i < 0 {
			// Negative indices count from one past the maximum index.
			if i += internal.IndexedMax(vr.List, vr.Indexes) + 1; i < 0 {
				if cfg.Warn == nil || cfg.curParam == nil {
					return "", false, fmt.Errorf("negative array index")
				}
				cfg.Warn(cfg.curParam.Param.Value + ": bad array subscript")
				return "", false, nil
			}
		}
		if str, ok := vr.indexedVal(i); ok {
			return str, true, nil
		}
	case Associative:
		switch lit := nodeLit(idx); lit {
		case "@", "*":
			strs := vr.assocValues()
			if lit == "*" {
				return cfg.ifsJoin(strs), len(strs) > 0, nil
			}
			return strings.Join(strs, " "), len(strs) > 0, nil
		}
		val, err := AssocKey(cfg, idx)
		if err != nil {
			return "", false, err
		}
		str, ok := vr.Map[val]
		return str, ok, nil
	}
	return "", false, nil
}

// assignElem assigns a variable via an expansion like ${a=val} or
// ${a[i]=val}, setting a single element when the variable is an array or is
// indexed, like Bash. ${a[i]=val} on a whole scalar converts it to an array.
func (cfg *Config) assignElem(name string, vr Variable, idx syntax.ArithmExpr, val string) error {
	wenv, ok := cfg.Env.(WriteEnviron)
	if !ok {
		return fmt.Errorf("environment is read-only")
	}
	arrayWise := false
	switch nodeLit(idx) {
	case "@", "*":
		// ${a[@]=val} assigns the element at index zero.
		arrayWise = true
		idx = nil
	}
	if idx == nil && !arrayWise && vr.Kind != Indexed && vr.Kind != Associative {
		// A plain scalar assignment like ${x=val}.
		return wenv.Set(name, Variable{Set: true, Kind: String, Str: val})
	}
	switch vr.Kind {
	case Associative:
		key := "0"
		if idx != nil {
			var err error
			if key, err = AssocKey(cfg, idx); err != nil {
				return err
			}
		}
		vr.Map = maps.Clone(vr.Map)
		if vr.Map == nil {
			vr.Map = make(map[string]string, 1)
		}
		vr.Map[key] = val
	default: // assign a single indexed element
		i := 0
		if idx != nil {
			var err error
			if i, err = Subscript(cfg, idx); err != nil {
				return err
			}
			if i < 0 {
				// Negative indices count from one past the maximum index.
				if i += internal.IndexedMax(vr.List, vr.Indexes) + 1; i < 0 {
					return fmt.Errorf("negative array index")
				}
			}
		}
		list, indexes := slices.Clone(vr.List), slices.Clone(vr.Indexes)
		if vr.Kind == String {
			list, indexes = []string{vr.Str}, nil
		}
		list, indexes = internal.SetIndexedElem(list, indexes, i, val)
		vr.Kind, vr.Str, vr.List, vr.Indexes = Indexed, "", list, indexes
	}
	vr.Set = true
	return wenv.Set(name, vr)
}

func (cfg *Config) namesByPrefix(prefix string) []string {
	var names []string
	for name := range cfg.Env.Each {
		if strings.HasPrefix(name, prefix) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// expArg expands the word of ${name OP word}. Inside double quotes (or a
// here-document), single quotes in the word of -, +, = and ? are plain
// characters, as in bash: "${u:-'b'}" is 'b'. The pattern of #, % and the
// others keeps them as quotes.
func (cfg *Config) expArg(exp *syntax.Expansion, quoted bool) (string, error) {
	switch exp.Op {
	case syntax.AlternateUnset, syntax.AlternateUnsetOrNull,
		syntax.DefaultUnset, syntax.DefaultUnsetOrNull,
		syntax.ErrorUnset, syntax.ErrorUnsetOrNull,
		syntax.AssignUnset, syntax.AssignUnsetOrNull:
	default:
		// The word of #, %, ^ and , is a pattern: what is quoted in it
		// matches as it is (${x#\*} removes a star only).
		return Pattern(cfg, exp.Word)
	}
	if !quoted || exp.Word == nil {
		return Literal(cfg, exp.Word)
	}
	parts := make([]syntax.WordPart, len(exp.Word.Parts))
	for i, part := range exp.Word.Parts {
		if sq, ok := part.(*syntax.SglQuoted); ok && !sq.Dollar {
			part = &syntax.Lit{Value: "'" + sq.Value + "'"}
		}
		parts[i] = part
	}
	// Inside double quotes a backslash escapes only what it does there.
	field, err := cfg.wordField(parts, quoteDouble)
	if err != nil {
		return "", err
	}
	if err := cfg.checkBytes(partsLen(field)); err != nil {
		return "", err
	}
	return cfg.fieldJoin(field), nil
}

// AssocKey is the key a subscript names in an associative array: its text
// expanded, as bash reads `A[$k]`, `A["x y"]` and `A[i+1]` (key `i+1`). The
// parser reads a subscript as arithmetic, not knowing the array's kind, so
// an expression is put back together from its parts.
func AssocKey(cfg *Config, idx syntax.ArithmExpr) (string, error) {
	switch idx := idx.(type) {
	case nil:
		return "", nil
	case *syntax.Word:
		return Literal(cfg, idx)
	case *syntax.BinaryArithm:
		x, err := AssocKey(cfg, idx.X)
		if err != nil {
			return "", err
		}
		y, err := AssocKey(cfg, idx.Y)
		return x + idx.Op.String() + y, err
	case *syntax.UnaryArithm:
		x, err := AssocKey(cfg, idx.X)
		if idx.Post {
			return x + idx.Op.String(), err
		}
		return idx.Op.String() + x, err
	case *syntax.ParenArithm:
		x, err := AssocKey(cfg, idx.X)
		return "(" + x + ")", err
	}
	return "", fmt.Errorf("bad array subscript")
}

// BadSubstError is a ${…} that bash reads but cannot expand, like ${a&}
// ([syntax.ParamExp.Invalid]); as in bash, the command fails with the rest
// of its line.
type BadSubstError struct {
	Text string
}

func (e BadSubstError) Error() string { return e.Text + ": bad substitution" }

// IndirectError is a ${!ref} whose reference is unset or names no
// variable; as in bash, the command fails with the rest of its line.
type IndirectError struct {
	Ref string // the reference, or the parameter when it is unset
	Msg string
}

func (e IndirectError) Error() string { return e.Ref + ": " + e.Msg }

// SubscriptError is an arithmetic error in an indexed array's subscript,
// named by its expression: as in bash, it ends a shell that is not
// interactive (a subshell exits) with status 1, where one in $(( )) ends
// the line only.
type SubscriptError struct{ ArithmError }

func (e SubscriptError) Unwrap() error { return e.ArithmError }

// Subscript evaluates an indexed array's subscript, an error in it being a
// [SubscriptError].
func Subscript(cfg *Config, idx syntax.ArithmExpr) (int, error) {
	quoted := false
	syntax.Walk(idx, func(node syntax.Node) bool {
		_, ok := node.(*syntax.SglQuoted)
		quoted = quoted || ok
		return !quoted
	})
	if quoted {
		// bash takes a single quote in a subscript for a character of
		// the expression, which no operand starts with: a['2']=x fails.
		text := ArithmText(idx)
		return 0, SubscriptError{ArithmError{Expr: text, Msg: "syntax error: operand expected", Token: text[strings.IndexByte(text, '\''):]}}
	}
	n, err := ArithmNamed(cfg, idx, syntax.Pos{})
	if ae, ok := err.(ArithmError); ok {
		return 0, SubscriptError{ae}
	}
	return n, err
}

// SliceLengthError is a ${x:offset:length} whose negative length ends
// before its offset, or any negative length of a list (${a[@]:1:-1}); as
// in bash, the command fails with the rest of its line.
type SliceLengthError struct {
	Length string // as written, with the blanks after its colon
}

func (e SliceLengthError) Error() string { return e.Length + ": substring expression < 0" }

func sliceLengthError(pe *syntax.ParamExp) SliceLengthError {
	text := ArithmText(pe.Slice.Length)
	if off := pe.Slice.Offset; off != nil && off.End().Line() == pe.Slice.Length.Pos().Line() {
		// bash prints what follows the colon: ${a[@]: 1: -3} is " -3".
		if n := int(pe.Slice.Length.Pos().Offset()) - int(off.End().Offset()) - 1; n > 0 {
			text = strings.Repeat(" ", n) + text
		}
	}
	return SliceLengthError{Length: text}
}

// negativeListSlice tells whether pe slices a list with a negative length,
// which only [Config.paramExpOrWord] reports.
func (cfg *Config) negativeListSlice(pe *syntax.ParamExp) bool {
	if pe.Slice == nil || pe.Slice.Length == nil {
		return false
	}
	n, err := Arithm(cfg, pe.Slice.Length)
	return err == nil && n < 0
}

// indirect reports whether pe is ${!ref…}: an indirect expansion, not
// ${!prefix*} nor ${!a[@]} (the keys), which is indirect too when an
// operator follows (${!a[@]:2} expands what "${a[@]}" names).
func indirect(pe *syntax.ParamExp) bool {
	if !pe.Excl || pe.Names != 0 {
		return false
	}
	switch nodeLit(pe.Index) {
	case "@", "*":
		return pe.Slice != nil || pe.Repl != nil || pe.Exp != nil
	}
	return true
}

// indirectTarget is the expansion ${!ref…} stands for: the parameter the
// value of ref names (a variable, an element `a[i]`, a positional or
// special parameter), with the operators of pe; nil when it is empty.
func (cfg *Config) indirectTarget(pe *syntax.ParamExp) (*syntax.ParamExp, error) {
	inner := &syntax.ParamExp{Dollar: pe.Dollar, Rbrace: pe.Rbrace, Param: pe.Param, Index: pe.Index}
	if !cfg.paramSet(inner) {
		shown := pe.Param.Value
		if pe.Index != nil {
			shown += "[" + nodeLit(pe.Index) + "]"
		}
		return nil, IndirectError{Ref: shown, Msg: "invalid indirect expansion"}
	}
	ref, err := cfg.paramExp(inner, false)
	if err != nil {
		return nil, err
	}
	if ref == "" {
		switch vr := cfg.Env.Get(pe.Param.Value); {
		case pe.Param.Value == "@", pe.Param.Value == "*":
			ref = pe.Param.Value // ${!@} without parameters is empty
		case vr.Kind == Indexed, vr.Kind == Associative:
			return nil, nil // ${!a} with a[0] unset is empty
		}
	}
	name, index, ok := ParamRef(ref)
	if !ok {
		return nil, IndirectError{Ref: ref, Msg: "invalid variable name"}
	}
	target := *pe
	target.Excl = false
	target.Param = &syntax.Lit{ValuePos: pe.Param.ValuePos, ValueEnd: pe.Param.ValueEnd, Value: name}
	target.Index = index
	return &target, nil
}

// paramSet reports whether the parameter or element pe names is set.
func (cfg *Config) paramSet(pe *syntax.ParamExp) bool {
	switch pe.Param.Value {
	case "@", "*", "#", "?", "-", "$", "0":
		return true
	}
	vr := cfg.Env.Get(pe.Param.Value)
	if _, v := vr.Resolve(cfg.Env); v.Kind != NameRef {
		vr = v
	}
	if pe.Index == nil {
		return vr.IsSet()
	}
	_, set, _ := cfg.varInd(vr, pe.Index)
	return set
}

// ParamRef parses what a reference names, as ${!ref} and a nameref read
// it: a variable name, a positional or special parameter, or an array
// element `a[sub]` (its subscript parsed as arithmetic, or kept as text
// when it does not parse: an associative array's key).
func ParamRef(ref string) (name string, index syntax.ArithmExpr, ok bool) {
	if syntax.ValidName(ref) {
		return ref, nil, true
	}
	switch ref {
	case "@", "*", "#", "?", "-", "$", "!", "0":
		return ref, nil, true
	}
	if ref != "" && strings.Trim(ref, "0123456789") == "" {
		return ref, nil, true
	}
	i := strings.IndexByte(ref, '[')
	if i <= 0 || !strings.HasSuffix(ref, "]") || !syntax.ValidName(ref[:i]) {
		return "", nil, false
	}
	name, sub := ref[:i], ref[i+1:len(ref)-1]
	lit := &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: sub}}}
	if sub == "@" || sub == "*" {
		return name, lit, true
	}
	expr, err := syntax.NewParser().Arithmetic(strings.NewReader(sub))
	if err != nil || expr == nil || int(expr.End().Offset()) < len(strings.TrimSpace(sub)) {
		return name, lit, true // not all of it is an expression: `A[k k]`
	}
	return name, expr, true
}
