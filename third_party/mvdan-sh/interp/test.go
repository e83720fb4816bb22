// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package interp

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/internal"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// non-empty string is true, empty string is false
func (r *Runner) bashTest(ctx context.Context, expr syntax.TestExpr, classic bool) string {
	switch x := expr.(type) {
	case *syntax.Word:
		if classic {
			// In the classic "test" mode, we already expanded and
			// split the list of words, so don't redo that work.
			return r.document(x)
		}
		return r.literal(x)
	case *syntax.ParenTest:
		return r.bashTest(ctx, x.X, classic)
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsMatchShort, syntax.TsMatch, syntax.TsNoMatch:
			str := r.literal(x.X.(*syntax.Word))
			yw := x.Y.(*syntax.Word)
			if classic { // test, [
				lit := r.literal(yw)
				if (str == lit) == (x.Op != syntax.TsNoMatch) {
					return "1"
				}
			} else { // [[
				pattern := r.pattern(yw)
				if r.match(pattern, str) == (x.Op != syntax.TsNoMatch) {
					return "1"
				}
			}
			return ""
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			if !classic {
				// In [[ ]] the operands are arithmetic expressions:
				// [[ 1+2 -eq 3 ]], [[ 017 -eq 0xf ]].
				var operands [2]string
				for i, operand := range []syntax.TestExpr{x.X, x.Y} {
					str := r.bashTest(ctx, operand, classic)
					n, err := expand.ArithmString(r.ecfg, str)
					if ae, ok := err.(expand.ArithmError); ok {
						if ae.Expr == "" {
							ae.Expr = str // bash names the operand as written
						}
						r.errf("[[: %v\n", ae)
						return ""
					}
					r.expandErr(err)
					operands[i] = strconv.Itoa(n)
				}
				if r.binTest(ctx, x.Op, operands[0], operands[1]) {
					return "1"
				}
				return ""
			}
		case syntax.TsReMatch:
			if !classic {
				re, err := expand.Regexp(r.ecfg, x.Y.(*syntax.Word))
				r.expandErr(err)
				if r.binTest(ctx, x.Op, r.bashTest(ctx, x.X, classic), re) {
					return "1"
				}
				return ""
			}
		}
		if r.binTest(ctx, x.Op, r.bashTest(ctx, x.X, classic), r.bashTest(ctx, x.Y, classic)) {
			return "1"
		}
		return ""
	case *syntax.UnaryTest:
		if r.unTest(ctx, x.Op, r.bashTest(ctx, x.X, classic)) {
			return "1"
		}
		return ""
	}
	return ""
}

// notInteger finds an operand of -eq, -lt and the like in a classic test
// that is not an integer: bash fails the test with status 2 for it
// (`[ "" -eq 1 ]`), where [[ ]] would evaluate it as arithmetic.
func (r *Runner) notInteger(expr syntax.TestExpr) (bad string, ok bool) {
	syntax.Walk(expr, func(n syntax.Node) bool {
		b, isBin := n.(*syntax.BinaryTest)
		if ok || !isBin || b.Op < syntax.TsEql || b.Op > syntax.TsGtr {
			return !ok
		}
		for _, operand := range []syntax.TestExpr{b.X, b.Y} {
			w, isWord := operand.(*syntax.Word)
			if !isWord {
				continue
			}
			s := r.document(w)
			if _, err := strconv.Atoi(strings.TrimSpace(s)); err != nil {
				bad, ok = s, true
				return false
			}
		}
		return true
	})
	return bad, ok
}

// interval is a POSIX ERE interval, `{2}`, `{2,}`, `{2,5}` or `{,5}`.
var interval = regexp.MustCompile(`^\{[0-9]*(,[0-9]*)?\}`)

// badInterval reports whether re has a `{` that POSIX regcomp, bash's
// regex engine, refuses: one that starts no interval, or one with nothing
// before it to repeat. Go reads such a `{` as a literal. (tandem)
func badInterval(re string) bool {
	atom := false // whether something precedes that an interval can repeat
	for i := 0; i < len(re); i++ {
		switch c := re[i]; c {
		case '\\':
			i++
			atom = true
		case '[':
			// A bracket expression: `]` first in it is a member.
			j := i + 1
			if j < len(re) && re[j] == '^' {
				j++
			}
			if j < len(re) && re[j] == ']' {
				j++
			}
			for j < len(re) && re[j] != ']' {
				if re[j] == '[' && j+1 < len(re) && strings.ContainsRune(":.=", rune(re[j+1])) {
					if end := strings.Index(re[j+2:], string(re[j+1])+"]"); end >= 0 {
						j += end + 3
						continue
					}
				}
				j++
			}
			i, atom = j, true
		case '{':
			m := interval.FindString(re[i:])
			if m == "" || !atom {
				return true
			}
			i += len(m) - 1
		case '(', '|', '^':
			atom = false
		default:
			atom = true
		}
	}
	return false
}

func (r *Runner) binTest(ctx context.Context, op syntax.BinTestOperator, x, y string) bool {
	switch op {
	case syntax.TsReMatch:
		if r.opts[optNoCaseMatch] {
			y = "(?i)" + y
		}
		re, err := regexp.Compile(y)
		if err != nil || badInterval(y) {
			r.exit.code = 2
			return false
		}
		// POSIX regexec, bash's engine, takes the leftmost longest match
		// ((x|xy) matches xy of xyz). (tandem)
		re.Longest()
		m := re.FindStringSubmatch(x)
		if m == nil {
			// A failed match empties BASH_REMATCH, as in bash.
			r.setVar("BASH_REMATCH", expand.Variable{Set: true, Kind: expand.Indexed, List: []string{}})
			return false
		}
		vr := expand.Variable{
			Set:  true,
			Kind: expand.Indexed,
			List: m,
		}
		r.setVar("BASH_REMATCH", vr)
		return true
	case syntax.TsNewer, syntax.TsOlder:
		info1, err1 := r.stat(ctx, x)
		info2, err2 := r.stat(ctx, y)
		// -ot is the mirror of -nt, so swap the operands and share the logic.
		if op == syntax.TsOlder {
			info1, info2, err1, err2 = info2, info1, err2, err1
		}
		// True if the first operand exists and the second does not,
		// or if both exist and the first is newer.
		if err1 != nil {
			return false
		}
		if err2 != nil {
			return true
		}
		return info1.ModTime().After(info2.ModTime())
	case syntax.TsDevIno:
		info1, err1 := r.stat(ctx, x)
		info2, err2 := r.stat(ctx, y)
		if err1 != nil || err2 != nil {
			return false
		}
		return os.SameFile(info1, info2)
	case syntax.TsEql:
		return atoi(x) == atoi(y)
	case syntax.TsNeq:
		return atoi(x) != atoi(y)
	case syntax.TsLeq:
		return atoi(x) <= atoi(y)
	case syntax.TsGeq:
		return atoi(x) >= atoi(y)
	case syntax.TsLss:
		return atoi(x) < atoi(y)
	case syntax.TsGtr:
		return atoi(x) > atoi(y)
	case syntax.AndTest:
		return x != "" && y != ""
	case syntax.OrTest:
		return x != "" || y != ""
	case syntax.TsBefore:
		return x < y
	case syntax.TsAfter:
		return x > y
	default:
		// Should only happen if we forgot a case above.
		panic(fmt.Sprintf("unexpected binary test operator: %q", op))
	}
}

func (r *Runner) statMode(ctx context.Context, name string, mode os.FileMode) bool {
	info, err := r.stat(ctx, name)
	return err == nil && info.Mode()&mode != 0
}

func (r *Runner) unTest(ctx context.Context, op syntax.UnTestOperator, x string) bool {
	switch op {
	case syntax.TsExists:
		_, err := r.stat(ctx, x)
		return err == nil
	case syntax.TsRegFile:
		info, err := r.stat(ctx, x)
		return err == nil && info.Mode().IsRegular()
	case syntax.TsDirect:
		return r.statMode(ctx, x, os.ModeDir)
	case syntax.TsCharSp:
		return r.statMode(ctx, x, os.ModeCharDevice)
	case syntax.TsBlckSp:
		info, err := r.stat(ctx, x)
		return err == nil && info.Mode()&os.ModeDevice != 0 &&
			info.Mode()&os.ModeCharDevice == 0
	case syntax.TsNmPipe:
		return r.statMode(ctx, x, os.ModeNamedPipe)
	case syntax.TsSocket:
		return r.statMode(ctx, x, os.ModeSocket)
	case syntax.TsSmbLink:
		info, err := r.lstat(ctx, x)
		return err == nil && info.Mode()&os.ModeSymlink != 0
	case syntax.TsSticky:
		return r.statMode(ctx, x, os.ModeSticky)
	case syntax.TsUIDSet:
		return r.statMode(ctx, x, os.ModeSetuid)
	case syntax.TsGIDSet:
		return r.statMode(ctx, x, os.ModeSetgid)
	case syntax.TsModif:
		info, err := r.stat(ctx, x)
		if err != nil {
			return false
		}
		return info.ModTime().After(getAtime(info))
	case syntax.TsRead:
		return r.access(ctx, x, AccessRead) == nil
	case syntax.TsWrite:
		return r.access(ctx, x, AccessWrite) == nil
	case syntax.TsExec:
		return r.access(ctx, x, AccessExec) == nil
	case syntax.TsNoEmpty:
		info, err := r.stat(ctx, x)
		return err == nil && info.Size() > 0
	case syntax.TsFdTerm:
		fd := atoi(x)
		var f any
		switch fd {
		case 0:
			f = r.stdin
		case 1:
			f = r.stdout
		case 2:
			f = r.stderr
		}
		if f, ok := f.(interface{ Fd() uintptr }); ok {
			// Support [os.File.Fd] methods such as the one on [*os.File].
			return term.IsTerminal(int(f.Fd()))
		}
		// TODO: allow term.IsTerminal here too if running in the
		// "single process" mode.
		return false
	case syntax.TsEmpStr:
		return x == ""
	case syntax.TsNempStr:
		return x != ""
	case syntax.TsOptSet:
		if i := posixOptByName(x); i >= 0 {
			return r.opts[i]
		}
		return false
	case syntax.TsVarSet:
		if name, sub, ok := cutElemSubscript(x); ok {
			return r.elemSet(name, sub)
		}
		return r.lookupVar(x).IsSet()
	case syntax.TsRefVar:
		return r.lookupVar(x).Kind == expand.NameRef
	case syntax.TsNot:
		return x == ""
	case syntax.TsUsrOwn, syntax.TsGrpOwn:
		return r.unTestOwnOrGrp(ctx, op, x)
	default:
		// Should only happen if we forgot a case above.
		panic(fmt.Sprintf("unexpected unary test op: %v", op))
	}
}

// elemSet reports whether the element name[sub] is set, for -v: sub is an
// associative array's key, or an index (an expression, negative from the
// end) of an indexed one; @ and * ask whether any element is.
func (r *Runner) elemSet(name, sub string) bool {
	vr := r.lookupVar(name)
	if n, v := vr.Resolve(r.writeEnv); n != "" {
		vr = v
	}
	if !vr.IsSet() {
		return false
	}
	switch vr.Kind {
	case expand.Associative:
		if sub == "@" || sub == "*" {
			return len(vr.Map) > 0
		}
		_, ok := vr.Map[r.subscriptKey(sub)]
		return ok
	case expand.Indexed:
		if sub == "@" || sub == "*" {
			return len(vr.List) > 0
		}
	default:
		if sub == "@" || sub == "*" {
			return true
		}
	}
	expr, err := syntax.NewParser().Arithmetic(strings.NewReader(sub))
	if err != nil {
		return false
	}
	i, err := expand.Arithm(r.ecfg, expr)
	if err != nil {
		return false
	}
	if vr.Kind != expand.Indexed {
		return i == 0
	}
	if i < 0 {
		if i += internal.IndexedMax(vr.List, vr.Indexes) + 1; i < 0 {
			r.errf("%s: bad array subscript\n", name)
			return false
		}
	}
	if vr.Indexes == nil {
		return i >= 0 && i < len(vr.List)
	}
	return slices.Contains(vr.Indexes, i)
}
