// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package interp

import (
	"cmp"
	cryptorand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	mathrand "math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/internal"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

func newOverlayEnviron(parent expand.Environ, background bool) *overlayEnviron {
	oenv := &overlayEnviron{}
	if !background {
		oenv.parent = parent
	} else {
		// We could do better here if the parent is also an overlayEnviron;
		// measure with profiles or benchmarks before we choose to do so.
		for name, vr := range parent.Each {
			oenv.Set(name, vr)
		}
	}
	return oenv
}

// overlayEnviron is our main implementation of [expand.WriteEnviron].
type overlayEnviron struct {
	// parent is non-nil if [values] is an overlay over a parent environment
	// which we can safely reuse without data races, such as non-background subshells
	// or function calls.
	parent expand.Environ

	// values maps normalized variable names, per [overlayEnviron.normalize].
	values map[string]namedVariable

	// We need to know if the current scope is a function's scope, because
	// functions can modify global variables. When true, [parent] must not be nil.
	funcScope bool
}

// namedVariable records the original name of a variable for platforms
// where variable names are matched in a case-insensitive way.
type namedVariable struct {
	// TODO(v4): consider adding this field to [expand.Variable],
	// as a general way for a variable to report its original name.
	// This can be useful for GOOS=windows with case insensitive env vars,
	// as otherwise it's not possible to Environ.Get a var
	// and know what was its original name without looping over Environ.Each.
	Name string
	expand.Variable
}

func (o *overlayEnviron) normalize(name string) string {
	if runtime.GOOS == "windows" {
		return strings.ToUpper(name)
	}
	return name
}

func (o *overlayEnviron) Get(name string) expand.Variable {
	normalized := o.normalize(name)
	if vr, ok := o.values[normalized]; ok {
		return vr.Variable
	}
	if o.parent != nil {
		return o.parent.Get(name)
	}
	return expand.Variable{}
}

func (o *overlayEnviron) Set(name string, vr expand.Variable) error {
	normalized := o.normalize(name)
	prev, inOverlay := o.values[normalized]
	// Manipulation of a global var inside a function.
	if o.funcScope && !vr.Local && !prev.Local {
		if p, ok := o.parent.(*overlayEnviron); ok && !vr.Declared() {
			return p.unsetOuter(name)
		}
		// In a function, the parent environment is ours, so it's always read-write.
		return o.parent.(expand.WriteEnviron).Set(name, vr)
	}
	if !inOverlay && o.parent != nil {
		prev.Variable = o.parent.Get(name)
	}

	if o.values == nil {
		o.values = make(map[string]namedVariable)
	}
	if vr.Kind == expand.KeepValue {
		vr.Kind = prev.Kind
		vr.Str = prev.Str
		vr.List = prev.List
		vr.Indexes = prev.Indexes
		vr.Map = prev.Map
	} else if prev.ReadOnly {
		return errReadOnly
	}
	if !vr.IsSet() { // unsetting
		if prev.Local {
			vr.Local = true
			o.values[normalized] = namedVariable{name, vr}
			return nil
		}
		delete(o.values, normalized)
	}
	// modifying the entire variable
	vr.Local = prev.Local || vr.Local
	o.values[normalized] = namedVariable{name, vr}
	return nil
}

// unsetOuter unsets a variable for a function other than the one it is
// local to: as in bash, that local goes, and the value of the scope below
// it shows again (unset in its own function leaves it local and unset).
func (o *overlayEnviron) unsetOuter(name string) error {
	if prev, ok := o.values[o.normalize(name)]; ok && prev.Local {
		if prev.ReadOnly {
			return errReadOnly
		}
		delete(o.values, o.normalize(name))
		return nil
	}
	if p, ok := o.parent.(*overlayEnviron); ok && o.funcScope {
		return p.unsetOuter(name)
	}
	return o.Set(name, expand.Variable{})
}

func (o *overlayEnviron) Each(f func(name string, vr expand.Variable) bool) {
	if o.parent != nil {
		o.parent.Each(f)
	}
	for _, vr := range o.values {
		if !f(vr.Name, vr.Variable) {
			return
		}
	}
}

// ExecEnv is the environment a program the script runs gets, as bash
// gives it: the exported variables that hold a string (an array is not
// exported, a nameref is as the name it holds), as "name=value".
func ExecEnv(env expand.Environ) []string {
	list := make([]string, 0, 64)
	at := make(map[string]int) // name → its entry in list
	for name, vr := range env.Each {
		exported := vr.IsSet() && vr.Exported && (vr.Kind == expand.String || vr.Kind == expand.NameRef)
		// A later layer (a function's, a command's own binding) replaces
		// or unsets what an earlier one gave the name.
		if i, ok := at[name]; ok && (exported || !vr.IsSet()) {
			list[i] = ""
			delete(at, name)
		}
		if exported {
			at[name] = len(list)
			list = append(list, name+"="+vr.Str) // a nameref exports the name it holds
		}
	}
	return slices.DeleteFunc(list, func(kv string) bool { return kv == "" }) // the unset ones
}

func (r *Runner) lookupVar(name string) expand.Variable {
	if name == "" {
		panic("variable name must not be empty")
	}
	var vr expand.Variable
	switch name {
	case "#":
		vr.Kind, vr.Str = expand.String, strconv.Itoa(len(r.Params))
	case "@", "*":
		vr.Kind = expand.Indexed
		if r.Params == nil {
			// r.Params may be nil but positional parameters always exist
			vr.List = []string{}
		} else {
			vr.List = r.Params
		}
	case "!":
		if n := len(r.bgProcs); n > 0 {
			vr.Kind, vr.Str = expand.String, strconv.Itoa(r.bgProcs[n-1].pid)
		}
	case "?":
		vr.Kind, vr.Str = expand.String, strconv.Itoa(int(r.lastExit.code))
	case "_":
		vr.Kind, vr.Str = expand.String, r.lastArg
	case "SECONDS":
		vr.Kind, vr.Str = expand.String, strconv.Itoa(int(time.Since(r.started).Seconds()))
	case "BASHPID":
		pid := r.bashPID
		if pid == 0 {
			pid = os.Getpid()
		}
		vr.Kind, vr.Str = expand.String, strconv.Itoa(pid)
	case "LINENO":
		// $LINENO is the expander's (the parameter's own line); a bare
		// LINENO in arithmetic is the statement's.
		vr.Kind, vr.Str = expand.String, strconv.FormatUint(uint64(r.line), 10)
	case "-":
		vr.Kind, vr.Str = expand.String, r.posixOptFlags()
	case "SHELLOPTS":
		vr.Kind, vr.Str, vr.ReadOnly = expand.String, r.shellOpts(), true
	case "BASHOPTS":
		vr.Kind, vr.Str, vr.ReadOnly = expand.String, r.bashOpts(), true
	case "$":
		vr.Kind, vr.Str = expand.String, strconv.Itoa(os.Getpid())
	case "PPID":
		vr.Kind, vr.Str, vr.ReadOnly = expand.String, strconv.Itoa(os.Getppid()), true
	case "RANDOM": // not for cryptographic use
		// Without a seed we use the global generator, which is seeded randomly
		// and also uses ChaCha8. Note that [Runner.subshell] does not copy the
		// seeded generator, so subshells start afresh like in bash.
		var n int
		if r.rand != nil {
			n = r.rand.IntN(randomMax)
		} else {
			n = mathrand.IntN(randomMax)
		}
		vr.Kind, vr.Str = expand.String, strconv.Itoa(n)
	case "SRANDOM": // pseudo-random generator from the system
		var p [4]byte
		cryptorand.Read(p[:])
		n := binary.NativeEndian.Uint32(p[:])
		vr.Kind, vr.Str = expand.String, strconv.FormatUint(uint64(n), 10)
	case "DIRSTACK":
		vr.Kind, vr.List = expand.Indexed, r.dirStack
	case "BASH_SUBSHELL":
		vr.Kind, vr.Str = expand.String, strconv.Itoa(r.subshellLevel)
	case "BASH_SOURCE":
		sources, _ := r.sourceStack()
		vr.Kind, vr.List = expand.Indexed, sources
	case "BASH_LINENO":
		_, lines := r.sourceStack()
		vr.Kind, vr.List = expand.Indexed, lines
	case "FUNCNAME":
		// Inside a function, as bash: each frame, a sourced file's as
		// source, and the main script's as main.
		if len(r.funcStack) > 0 {
			vr.Kind = expand.Indexed
			for _, f := range slices.Backward(r.frames) {
				vr.List = append(vr.List, f.name)
			}
			if r.mainFrame {
				vr.List = append(vr.List, "main")
			}
		}
	case "0":
		vr.Kind, vr.Str = expand.String, r.shellName()
	default:
		// ${10} and on are positional parameters too.
		if i, err := strconv.Atoi(name); err == nil && i > 0 && i <= len(r.Params) && name[0] != '0' {
			vr.Kind = expand.String
			vr.Str = r.Params[i-1]
		}
	}
	if vr.Kind != expand.Unknown {
		vr.Set = true
		return vr
	}
	if vr := r.writeEnv.Get(name); vr.Declared() {
		return vr
	}
	return expand.Variable{}
}

func (r *Runner) envGet(name string) string {
	return r.lookupVar(name).String()
}

// delVar unsets a variable, reporting whether it could.
func (r *Runner) delVar(name string) bool {
	if err := r.writeEnv.Set(name, expand.Variable{}); errors.Is(err, errReadOnly) {
		r.errf("unset: %s: cannot unset: %v\n", name, err) // only unset unsets
		r.exit.code = 1
		return false
	} else if err != nil {
		r.errf("%s: %v\n", name, err)
		r.exit.code = 1
		return false
	}
	return true
}

func (r *Runner) setVarString(name, value string) {
	// The variable keeps its attributes, as in bash: read and printf -v
	// into an exported or a declare -i variable.
	prev := r.writeEnv.Get(name)
	r.setVar(name, expand.Variable{Set: true, Kind: expand.String, Str: value,
		Exported: prev.Exported, Integer: prev.Integer, Lower: prev.Lower, Upper: prev.Upper})
}

// setExportedString assigns a string and exports it, as bash does with
// PWD and OLDPWD.
func (r *Runner) setExportedString(name, value string) {
	r.setVarString(name, value)
	vr := r.writeEnv.Get(name)
	vr.Exported = true
	r.setVar(name, vr)
}

// setVarOrElem assigns a name or an array element written `a[sub]`, as
// printf -v takes either.
func (r *Runner) setVarOrElem(field, value string) {
	name, sub, ok := cutElemSubscript(field)
	if !ok {
		r.setVarString(field, value)
		return
	}
	prev := r.lookupVar(name)
	index := elemIndex(sub)
	if prev.Kind != expand.Associative {
		expr, err := syntax.NewParser().Arithmetic(strings.NewReader(sub))
		if err != nil || expr == nil {
			r.errf("%s: bad array subscript\n", field)
			r.exit.code = 1
			return
		}
		index = expr
	}
	r.setVarWithIndex(prev, name, index, expand.Variable{Set: true, Kind: expand.String, Str: value})
}

// withAttrs gives a value being assigned what declare -i, -l and -u make
// of it, as bash does on every assignment: arithmetic evaluated, or the
// case changed.
func (r *Runner) withAttrs(vr expand.Variable) (expand.Variable, error) {
	if !vr.Integer && !vr.Lower && !vr.Upper {
		return vr, nil
	}
	conv := func(s string) (string, error) {
		switch {
		case vr.Integer:
			n, err := r.arithmString(s)
			return strconv.Itoa(n), err
		case vr.Lower:
			return strings.ToLower(s), nil
		}
		return strings.ToUpper(s), nil
	}
	var err error
	switch vr.Kind {
	case expand.String:
		vr.Str, err = conv(vr.Str)
	case expand.Indexed:
		list := make([]string, len(vr.List))
		for i, s := range vr.List {
			if list[i], err = conv(s); err != nil {
				break
			}
		}
		vr.List = list
	case expand.Associative:
		m := make(map[string]string, len(vr.Map))
		for k, s := range vr.Map {
			if m[k], err = conv(s); err != nil {
				break
			}
		}
		vr.Map = m
	}
	return vr, err
}

// arithmString evaluates a string as an arithmetic expression, as the
// value of a declare -i variable is.
func (r *Runner) arithmString(s string) (int, error) {
	expr, err := syntax.NewParser().Arithmetic(strings.NewReader(s))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", s, err)
	}
	if expr == nil {
		return 0, nil
	}
	return expand.Arithm(r.ecfg, expr)
}

func (r *Runner) setVar(name string, vr expand.Variable) {
	if err := r.setVarErr(name, vr); errors.As(err, new(*LimitError)) {
		r.exit.fatal(err)
	} else if err != nil {
		r.errf("%v\n", err)
		r.exit.code = 1
	}
}

// valueBytes is the length of a variable's value: an array's elements
// together.
func valueBytes(vr expand.Variable) int {
	n := len(vr.Str)
	for _, s := range vr.List {
		n += len(s)
	}
	for k, v := range vr.Map {
		n += len(k) + len(v)
	}
	return n
}

// computedReadOnly reports whether name is a read-only variable whose value
// the shell computes: the options, and PPID.
func computedReadOnly(name string) bool {
	return name == "SHELLOPTS" || name == "BASHOPTS" || name == "PPID"
}

// exportComputed gives env the current values of the computed read-only
// variables that are exported (export SHELLOPTS), for a program to inherit.
func (r *Runner) exportComputed(env *overlayEnviron) {
	for _, name := range []string{"SHELLOPTS", "BASHOPTS"} {
		if vr := r.writeEnv.Get(name); vr.Exported {
			vr.Kind, vr.Str = expand.String, r.lookupVar(name).Str
			if env.values == nil {
				env.values = make(map[string]namedVariable)
			}
			env.values[env.normalize(name)] = namedVariable{name, vr}
		}
	}
}

// errReadOnly is returned when trying to modify a read-only variable.
var errReadOnly = errors.New("readonly variable")

// randomMax is one past the highest value that RANDOM expands to, like in Bash.
const randomMax = 32768

// setVarErr is like [Runner.setVar], but it returns any error rather than
// reporting it, for the sake of the expand package.
func (r *Runner) setVarErr(name string, vr expand.Variable) error {
	if r.opts[optAllExport] {
		vr.Exported = true
	}
	if r.limits != nil && r.limits.Bytes > 0 && valueBytes(vr) > r.limits.Bytes {
		return &LimitError{Limit: BytesLimit, Max: r.limits.Bytes}
	}
	vr, err := r.withAttrs(vr)
	if err != nil {
		return err
	}
	if computedReadOnly(name) {
		// Read-only as in bash: only an attribute changes (export),
		// which the stored copy holds.
		cur := r.lookupVar(name)
		if vr.Kind != expand.KeepValue && (vr.Kind != expand.String || vr.Str != cur.Str) {
			return fmt.Errorf("%s: %w", name, errReadOnly)
		}
		if !r.writeEnv.Get(name).IsSet() {
			vr.Kind, vr.Str = expand.String, cur.Str
		}
		vr.ReadOnly = true
	}
	if err := r.writeEnv.Set(name, vr); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	r.varWrites++
	if name == "PATH" {
		r.hashed = nil // as bash, a new PATH empties the hash table
	}
	if name == "RANDOM" && vr.Kind == expand.String {
		// Assigning to RANDOM seeds its generator; the stored value is never
		// read, as [Runner.lookupVar] always computes a new number. We only
		// seed once the assignment succeeds so that attributes such as
		// read-only still apply. We use ChaCha8 rather than PCG, whose only
		// edge is speed, which is irrelevant next to expanding a variable.
		var seed [32]byte
		binary.LittleEndian.PutUint64(seed[:], uint64(atoi(vr.Str)))
		r.rand = mathrand.New(mathrand.NewChaCha8(seed))
	}
	return nil
}

func (r *Runner) setVarWithIndex(prev expand.Variable, name string, index syntax.ArithmExpr, vr expand.Variable) {
	if vr.Kind == expand.String && index == nil {
		// When assigning a string to an array, fall back to the
		// zero value for the index.
		switch prev.Kind {
		case expand.Indexed:
			index = &syntax.Word{Parts: []syntax.WordPart{
				&syntax.Lit{Value: "0"},
			}}
		case expand.Associative: // A=x is A[0]=x
			index = &syntax.Word{Parts: []syntax.WordPart{
				&syntax.Lit{Value: "0"},
			}}
		}
	}
	if index == nil {
		r.setVar(name, vr)
		return
	}

	// from the syntax package, we know that value must be a string if index
	// is non-nil; nested arrays are forbidden.
	valStr := vr.Str

	if prev.Kind != expand.Associative {
		k, prev, ok := r.indexedSubscript(prev, name, index)
		if ok {
			r.setIndexedElem(prev, name, k, valStr)
		}
		return
	}
	// if the existing variable is already an AssocArray, try our
	// best to convert the key to a string
	k, err := expand.AssocKey(r.ecfg, index)
	if err != nil {
		r.expandErr(err)
		return
	}

	// TODO: only clone when inside a subshell and getting a var from outside for the first time
	prev.Map = maps.Clone(prev.Map)
	if prev.Map == nil {
		prev.Map = make(map[string]string)
	}
	prev.Map[k] = valStr
	prev.Set = true
	r.setVar(name, prev)
}

// indexedSubscript evaluates the subscript of an element of the indexed
// array (or string) prev being assigned, a negative one counting from one
// past the maximum index. A subscript that assigns (a[a[0]=1]=x) changes
// the array that the element is then set in, so prev is read again then.
func (r *Runner) indexedSubscript(prev expand.Variable, name string, index syntax.ArithmExpr) (int, expand.Variable, bool) {
	writes := r.varWrites
	k, err := expand.Subscript(r.ecfg, index)
	if err != nil {
		r.expandErr(err)
		return 0, prev, false
	}
	if r.varWrites != writes {
		if cur := r.lookupVar(name); cur.Kind == expand.Indexed {
			prev.Kind, prev.List, prev.Indexes = cur.Kind, cur.List, cur.Indexes
		}
	}
	if k < 0 {
		max := -1 // of no elements
		switch {
		case prev.Kind == expand.Indexed:
			max = internal.IndexedMax(prev.List, prev.Indexes)
		case prev.Kind == expand.String && prev.IsSet():
			max = 0 // a string is element 0
		}
		if k += max + 1; k < 0 {
			r.errf("%s[%s]: bad array subscript\n", name, expand.ArithmText(index))
			r.exit.code = 1
			return 0, prev, false
		}
	}
	return k, prev, true
}

// setIndexedElem sets element k of the indexed array (or string) prev.
func (r *Runner) setIndexedElem(prev expand.Variable, name string, k int, val string) {
	var list []string
	var indexes []int
	switch prev.Kind {
	case expand.String:
		list = append(list, prev.Str)
	case expand.Indexed:
		// TODO: only clone when inside a subshell and getting a var from outside for the first time
		list = slices.Clone(prev.List)
		indexes = slices.Clone(prev.Indexes)
	}
	list, indexes = internal.SetIndexedElem(list, indexes, k, val)
	prev.Set = true
	prev.Kind = expand.Indexed
	prev.List = list
	prev.Indexes = indexes
	r.setVar(name, prev)
}

// refTarget follows the nameref name to what it names: a variable name,
// or an array element as written (declare -n r='a[2]'), with the variable
// (the array's, for an element). The name is empty when the references go
// round in a circle.
func (r *Runner) refTarget(name string) (string, expand.Variable) {
	vr := r.lookupVar(name)
	target := name
	for seen := map[string]bool{}; vr.Kind == expand.NameRef && vr.Str != ""; {
		if seen[target] {
			r.errf("warning: %s: circular name reference\n", name)
			r.exit.code = 1
			r.exit.exiting, r.exit.discard = true, true
			return "", expand.Variable{}
		}
		seen[target] = true
		target = vr.Str
		vr = r.lookupVar(target)
	}
	if base, _, ok := cutElemSubscript(target); ok {
		vr = r.lookupVar(base)
	}
	return target, vr
}

// elemIndex parses the subscript of an element named as text, `a[2]` or
// `A[$k]`: an index expression, or an associative array's key.
func elemIndex(sub string) syntax.ArithmExpr {
	_, index, _ := expand.ParamRef("x[" + sub + "]")
	return index
}

// subscriptKey is the key sub (as written, `"K"` or `$k`) names in an
// associative array.
func (r *Runner) subscriptKey(sub string) string {
	key, err := expand.AssocKey(r.ecfg, elemIndex(sub))
	r.expandErr(err)
	return key
}

// assignElem runs `a[i]=v` or `a[i]+=v`, returning the element's value,
// unset when it failed.
func (r *Runner) assignElem(prev expand.Variable, name string, index syntax.ArithmExpr, as *syntax.Assign) expand.Variable {
	if w, ok := index.(*syntax.Word); ok && len(w.Parts) == 1 {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok && lit.Value == "" {
			// a[]=x: as in bash, the rest of the line is dropped.
			r.errf("%s[]: bad array subscript\n", name)
			r.exit.code = 1
			r.exit.exiting, r.exit.discard = true, true
			return expand.Variable{}
		}
	}
	if as.Array != nil {
		r.errf("%s[%s]: cannot assign list to array member\n", name, expand.ArithmText(index))
		r.exit.code = 1
		r.exit.exiting, r.exit.discard = true, true // with the rest of the line, as in bash
		return expand.Variable{}
	}
	s := ""
	if as.Value != nil {
		s = r.literal(r.colonTildes(as.Value))
	}
	if prev.Kind != expand.Associative {
		// The subscript is evaluated once, after the value, as in bash:
		// a[ a[0]+=1 ]+=x adds 1 to a[0] once.
		k, prev, ok := r.indexedSubscript(prev, name, index)
		if !ok {
			return expand.Variable{}
		}
		if as.Append {
			s = indexedElem(prev, k) + s
		}
		r.setIndexedElem(prev, name, k, s)
		return expand.Variable{Set: true, Kind: expand.String, Str: s}
	}
	if as.Append {
		elem := &syntax.ParamExp{Param: &syntax.Lit{Value: name}, Index: index}
		s = r.literal(&syntax.Word{Parts: []syntax.WordPart{elem}}) + s
	}
	vr := expand.Variable{Set: true, Kind: expand.String, Str: s}
	r.setVarWithIndex(prev, name, index, vr)
	return vr
}

// indexedElem is element k of the indexed array (or string) vr, empty
// when unset.
func indexedElem(vr expand.Variable, k int) string {
	switch {
	case vr.Kind == expand.String && vr.IsSet():
		if k == 0 {
			return vr.Str
		}
	case vr.Kind != expand.Indexed:
	case vr.Indexes == nil:
		if k < len(vr.List) {
			return vr.List[k]
		}
	default:
		if i, ok := slices.BinarySearch(vr.Indexes, k); ok {
			return vr.List[i]
		}
	}
	return ""
}

// cutElemSubscript splits an array element argument like `a[3]`, as used by
// the unset builtin, into the array name and the subscript between brackets.
func cutElemSubscript(arg string) (name, sub string, ok bool) {
	i := strings.IndexByte(arg, '[')
	if i > 0 && strings.HasSuffix(arg, "]") && syntax.ValidName(arg[:i]) {
		return arg[:i], arg[i+1 : len(arg)-1], true
	}
	return "", "", false
}

// unsetElem unsets a single element of an indexed or associative array, like
// `unset 'a[3]'`, reporting whether it could. Unsetting an indexed array
// element may leave a hole.
func (r *Runner) unsetElem(name, sub string) bool {
	vr := r.lookupVar(name)
	if n, v := vr.Resolve(r.writeEnv); n != "" {
		name, vr = n, v
	}
	switch vr.Kind {
	case expand.Indexed:
		if sub == "@" || sub == "*" {
			return r.delVar(name)
		}
		expr, err := syntax.NewParser().Arithmetic(strings.NewReader(sub))
		if err != nil {
			r.errf("unset: %s[%s]: bad array subscript\n", name, sub)
			r.exit.code = 1
			return false
		}
		if expr == nil {
			return true // an empty subscript like `unset 'a[]'` is a no-op
		}
		k, err := expand.Subscript(r.ecfg, expr)
		if err != nil {
			r.expandErr(err)
			return false
		}
		if k < 0 {
			// Negative indices count from one past the maximum index.
			if k += internal.IndexedMax(vr.List, vr.Indexes) + 1; k < 0 {
				r.errf("unset: [%s]: bad array subscript\n", sub) // bash names no array here
				r.exit.code = 1
				return false
			}
		}
		// TODO: only clone when inside a subshell and getting a var from outside for the first time
		vr.List = slices.Clone(vr.List)
		vr.Indexes = slices.Clone(vr.Indexes)
		vr.List, vr.Indexes = internal.DeleteIndexedElem(vr.List, vr.Indexes, k)
		r.setVar(name, vr)
	case expand.Associative:
		if sub == "@" || sub == "*" {
			return r.delVar(name)
		}
		// TODO: only clone when inside a subshell and getting a var from outside for the first time
		vr.Map = maps.Clone(vr.Map)
		delete(vr.Map, r.subscriptKey(sub))
		r.setVar(name, vr)
	case expand.String:
		// A scalar can be unset via a subscript that evaluates to zero
		// (`unset 'x[0]'`, `unset 'x["key"]'` with key unset).
		if expr, err := syntax.NewParser().Arithmetic(strings.NewReader(sub)); err == nil && expr != nil {
			k, err := expand.Subscript(r.ecfg, expr)
			if err != nil {
				r.expandErr(err)
				return false
			}
			if k == 0 {
				return r.delVar(name)
			}
		}
		r.errf("unset: %s: not an array variable\n", name)
		r.exit.code = 1
		return false
	}
	return true
}

func (r *Runner) setFunc(name string, body *syntax.Stmt) {
	if r.Funcs == nil {
		r.Funcs = make(map[string]*syntax.Stmt, 4)
	}
	r.Funcs[name] = body
	if r.funcSources == nil {
		r.funcSources = make(map[string]string, 4)
	}
	r.funcSources[name] = cmp.Or(r.source(), r.mainSource)
}

func stringIndex(index syntax.ArithmExpr) bool {
	w, ok := index.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return false
	}
	switch w.Parts[0].(type) {
	case *syntax.DblQuoted, *syntax.SglQuoted:
		return true
	}
	return false
}

// TODO: make assignVal and [setVar] consistent with the [expand.WriteEnviron] interface

func (r *Runner) assignVal(name string, prev expand.Variable, as *syntax.Assign, valType string) (string, expand.Variable) {
	if prev.Kind == expand.NameRef && prev.Str == "" {
		valType = "-n" // assigning an empty nameref sets what it names
	} else if valType == "-n" {
		// declare -n ref=y changes the reference itself.
	} else if n, v := prev.Resolve(r.writeEnv); n != "" {
		name, prev = n, v
	}
	wasSet := prev.IsSet() // declare x leaves it declared, not set
	prev.Set = true
	if as.Value != nil {
		s := r.literal(r.colonTildes(as.Value))
		if !as.Append {
			prev.Kind = expand.String
			if valType == "-n" {
				prev.Kind = expand.NameRef
			}
			prev.Str = s
			return name, prev
		}
		switch prev.Kind {
		case expand.String, expand.Unknown:
			prev.Kind = expand.String
			if prev.Integer { // declare -i x; x+=2 adds
				a, _ := r.arithmString(prev.Str)
				b, err := r.arithmString(s)
				if err != nil {
					r.errf("%v\n", err)
					r.exit.code = 1
				}
				prev.Str = strconv.Itoa(a + b)
			} else {
				prev.Str += s
			}
		case expand.Indexed:
			// Appends to the element at index 0, creating it if unset.
			if len(prev.List) > 0 && (prev.Indexes == nil || prev.Indexes[0] == 0) {
				prev.List[0] += s
			} else {
				prev.List, prev.Indexes = internal.SetIndexedElem(prev.List, prev.Indexes, 0, s)
			}
		case expand.Associative:
			// TODO
		}
		return name, prev
	}
	if as.Array == nil {
		// don't return the zero value, as that's an unset variable
		prev.Kind = expand.String
		if valType == "-n" {
			prev.Kind = expand.NameRef
		}
		prev.Str = ""
		return name, prev
	}
	// Array assignment.
	elems := as.Array.Elems
	if valType == "" {
		valType = "-a" // indexed
		if prev.Kind == expand.Associative || len(elems) > 0 && stringIndex(elems[0].Index) {
			valType = "-A" // associative
		}
	}
	if valType == "-A" {
		return name, r.assocArray(name, prev, wasSet, as)
	}
	// The base array which the new elements are set on; empty unless
	// we are appending to an existing value.
	var list []string
	var indexes []int
	if as.Append {
		switch prev.Kind {
		case expand.Unknown:
		case expand.String:
			if wasSet {
				list = []string{prev.Str}
			}
		case expand.Indexed:
			// TODO: only clone when inside a subshell and getting a var from outside for the first time
			list = slices.Clone(prev.List)
			indexes = slices.Clone(prev.Indexes)
		case expand.Associative:
			// TODO
			return name, prev
		default:
			// Should only happen if we forgot a case above.
			panic(fmt.Sprintf("unexpected conversion of kind %d", prev.Kind))
		}
	}
	// Evaluate values for each array element. An explicit index like
	// [5]=x resets our index counter, which otherwise advances for every
	// value, starting after the maximum index of the base array. As in
	// bash, every value is expanded before any index is evaluated.
	values := make([][]string, len(elems))
	braced := make([]bool, len(elems))
	for i, elem := range elems {
		switch {
		case elem.Index != nil && elem.Value != nil && hasBraces(elem.Value):
			// As in bash, [k]=x{1,2} brace-expands to the plain values
			// [k]=x1 and [k]=x2; one word is still an element's.
			assign := "]="
			if elem.Append {
				assign = "]+="
			}
			word := &syntax.Word{Parts: append([]syntax.WordPart{&syntax.Lit{Value: "[" + expand.ArithmText(elem.Index) + assign}}, elem.Value.Parts...)}
			if fields := r.fields(word); len(fields) != 1 {
				values[i], braced[i] = fields, true
				break
			}
			fallthrough
		case elem.Index != nil:
			values[i] = []string{r.literal(r.colonTildes(elem.Value))}
		default:
			values[i] = r.fields(elem.Value)
		}
	}
	index := internal.IndexedMax(list, indexes) + 1
	var err error
	for i, elem := range elems {
		if elem.Index != nil && !braced[i] {
			if !prev.ReadOnly && namesVar(elem.Index, name) {
				// As in bash, a subscript sees the array being assigned
				// so far: a=([0]=1+2 [a[0]]=x) sets a[3]; one that
				// assigns to it (a=([a[0]=5]=x)) changes it.
				partial := prev
				partial.Kind, partial.List, partial.Indexes = expand.Indexed, nonNilList(list), indexes
				r.setVar(name, partial)
				writes := r.varWrites
				index, err = expand.Subscript(r.ecfg, elem.Index)
				if cur := r.lookupVar(name); r.varWrites != writes && cur.Kind == expand.Indexed {
					list, indexes = slices.Clone(cur.List), slices.Clone(cur.Indexes)
				}
			} else {
				// Index resets our index with a literal value.
				index, err = expand.Subscript(r.ecfg, elem.Index)
			}
			if err != nil {
				r.expandErr(err)
				break
			}
			if index < 0 {
				// Negative indices count from one past the maximum index.
				if index += internal.IndexedMax(list, indexes) + 1; index < 0 {
					r.errf("%s: bad array subscript\n", name)
					r.exit.code = 1
					break
				}
			}
		}
		// An implicit index advances for every word.
		for _, val := range values[i] {
			if elem.Append && !braced[i] { // [k]+=v appends to the element so far
				val = indexedElem(expand.Variable{Kind: expand.Indexed, List: list, Indexes: indexes}, index) + val
			}
			list, indexes = internal.SetIndexedElem(list, indexes, index, val)
			index++
		}
	}
	if list == nil {
		// An empty array like a=() must still expand to zero fields.
		list = []string{}
	}
	prev.Kind = expand.Indexed
	prev.List = list
	prev.Indexes = indexes
	return name, prev
}

// keepTilde is w with a leading `~` taken as written, as bash takes the
// value of an associative array's `[k]=~/x`.
func keepTilde(w *syntax.Word) *syntax.Word {
	if w == nil || len(w.Parts) == 0 {
		return w
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok || !strings.HasPrefix(lit.Value, "~") {
		return w
	}
	parts := append([]syntax.WordPart{&syntax.SglQuoted{Left: lit.ValuePos, Right: lit.ValueEnd, Value: lit.Value}}, w.Parts[1:]...)
	return &syntax.Word{Parts: parts}
}

// hasBraces tells whether w holds a brace expansion.
func hasBraces(w *syntax.Word) bool {
	word := *w // SplitBraces replaces the parts
	return syntax.SplitBraces(&word)
}

// nonNilList is list, or an empty list for nil: an array of no elements.
func nonNilList(list []string) []string {
	if list == nil {
		return []string{}
	}
	return list
}

// namesVar tells whether the arithmetic expression x names the variable
// name anywhere, so that evaluating it may read or assign that variable.
func namesVar(x syntax.ArithmExpr, name string) bool {
	found := false
	syntax.Walk(x, func(node syntax.Node) bool {
		switch node := node.(type) {
		case *syntax.Lit:
			found = found || node.Value == name || strings.HasPrefix(node.Value, name+"[")
		case *syntax.ParamExp:
			found = found || node.Param != nil && node.Param.Value == name
		}
		return !found
	})
	return found
}

// assignLikeTildes returns a simple command's words with the tildes of
// each word that looks like an assignment expanded as in one, as bash does
// outside POSIX mode: `make PREFIX=~/local` passes $HOME/local.
// declKeyword reports whether w is the name of a declaration builtin, as
// written.
func declKeyword(w *syntax.Word) bool {
	switch w.Lit() {
	case "declare", "typeset", "local", "export", "readonly":
		return true
	}
	return false
}

// declFields expands the words of a declaration builtin reached with
// assignments before it (`FOO=1 readonly v=$w`): as bash, a word that is an
// assignment is one field, neither split nor globbed.
func (r *Runner) declFields(words []*syntax.Word) []string {
	var fields []string
	for _, w := range r.assignLikeTildes(words) {
		if lit, ok := w.Parts[0].(*syntax.Lit); ok {
			name, _, ok := strings.Cut(lit.Value, "=")
			if ok && syntax.ValidName(strings.TrimSuffix(name, "+")) {
				fields = append(fields, r.literal(w))
				continue
			}
		}
		fields = append(fields, r.fields(w)...)
	}
	return fields
}

func (r *Runner) assignLikeTildes(words []*syntax.Word) []*syntax.Word {
	var out []*syntax.Word
	for i, w := range words {
		lit, ok := w.Parts[0].(*syntax.Lit)
		if !ok {
			continue
		}
		name, value, ok := strings.Cut(lit.Value, "=")
		if !ok || !syntax.ValidName(name) || !strings.Contains(value, "~") {
			continue
		}
		parts := append([]syntax.WordPart{&syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: value}}, w.Parts[1:]...)
		expanded := r.colonTildes(&syntax.Word{Parts: parts})
		if expanded.Parts[0] == parts[0] {
			continue // no tilde where one expands
		}
		if out == nil {
			out = slices.Clone(words)
		}
		out[i] = &syntax.Word{Parts: append([]syntax.WordPart{&syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: name + "="}}, expanded.Parts...)}
	}
	if out == nil {
		return words
	}
	return out
}

// assocArray is the associative array `A=([k]=v …)` or `A+=(…)` makes. As
// in bash 5.2, a list without any [k]= is of keys and values in turn
// (`A=(k1 v1 k2 v2)`); in a list with some, an element without one is
// refused and the others assigned.
func (r *Runner) assocArray(name string, prev expand.Variable, wasSet bool, as *syntax.Assign) expand.Variable {
	amap := make(map[string]string, len(as.Array.Elems))
	if as.Append {
		switch prev.Kind {
		case expand.Associative:
			maps.Copy(amap, prev.Map)
		case expand.String:
			if wasSet {
				amap["0"] = prev.Str
			}
		}
	}
	pairs := !slices.ContainsFunc(as.Array.Elems, func(elem *syntax.ArrayElem) bool { return elem.Index != nil })
	var pending []string // the words of pairs
	for _, elem := range as.Array.Elems {
		switch {
		case elem.Index != nil:
			val := r.literal(keepTilde(elem.Value))
			k, err := expand.AssocKey(r.ecfg, elem.Index)
			r.expandErr(err)
			switch {
			case elem.Append && as.Append: // A+=([k]+=v) appends to the element so far
				val = amap[k] + val
			case elem.Append && prev.Kind == expand.Associative:
				// A=([k]+=v) appends to the element A had, as bash's
				// new table replaces the old one only at the end.
				val = prev.Map[k] + val
			}
			amap[k] = val
		case pairs:
			pending = append(pending, r.fields(elem.Value)...)
		default:
			for _, val := range r.fields(elem.Value) {
				r.errf("%s: %s: must use subscript when assigning associative array\n", name, val)
			}
		}
	}
	for i := 0; i < len(pending); i += 2 {
		val := ""
		if i+1 < len(pending) {
			val = pending[i+1]
		}
		amap[pending[i]] = val
	}
	prev.Kind = expand.Associative
	prev.Map = amap
	prev.Str, prev.List, prev.Indexes = "", nil, nil
	return prev
}

// colonTildes returns an assignment's value with each unquoted tilde
// prefix at its start or after a `:` (`~` or `~user`, ending at a `/`, a
// `:` or the word's end) replaced by the home directory it names, as bash
// expands PATH=$PATH:~/bin, x=~:y and x=~root; also in the word of an
// unquoted `${x-word}` (tandem).
func (r *Runner) colonTildes(w *syntax.Word) *syntax.Word {
	if w == nil {
		return w
	}
	var parts []syntax.WordPart
	set := func(i int, part syntax.WordPart) {
		if parts == nil {
			parts = slices.Clone(w.Parts)
		}
		parts[i] = part
	}
	for i, part := range w.Parts {
		if pe, ok := part.(*syntax.ParamExp); ok && pe.Exp != nil && pe.Exp.Word != nil {
			if word := r.colonTildes(pe.Exp.Word); word != pe.Exp.Word {
				pe2, exp := *pe, *pe.Exp
				exp.Word, pe2.Exp = word, &exp
				set(i, &pe2)
			}
			continue
		}
		lit, ok := part.(*syntax.Lit)
		if !ok {
			continue
		}
		val := lit.Value
		if i == 0 {
			val = ":" + val // the value's start is a place for a tilde too
		}
		if !strings.Contains(val, ":~") {
			continue
		}
		var b strings.Builder
		for {
			j := strings.Index(val, ":~")
			if j < 0 {
				break
			}
			b.WriteString(val[:j+1])
			after := val[j+2:]
			end := strings.IndexAny(after, "/:")
			if end < 0 && i == len(w.Parts)-1 {
				end = len(after)
			}
			if dir, ok := r.ecfg.Home(after[:max(end, 0)]); end >= 0 && ok {
				b.WriteString(dir)
				after = after[end:]
			} else {
				b.WriteString("~")
			}
			val = after
		}
		b.WriteString(val)
		out := b.String()
		if i == 0 {
			out = out[1:]
		}
		set(i, &syntax.Lit{ValuePos: lit.ValuePos, ValueEnd: lit.ValueEnd, Value: out})
	}
	if parts == nil {
		return w
	}
	return &syntax.Word{Parts: parts}
}

// osType is $OSTYPE as bash's build for this system sets it.
func osType() string {
	if runtime.GOOS == "linux" {
		return "linux-gnu"
	}
	return runtime.GOOS
}
