// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package interp

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// declare runs declare, typeset, local, export and readonly, written as
// such (a [syntax.DeclClause]) or reached as a command whose name came
// from an expansion or an alias, or behind assignments (`e=export; $e
// x=1`, `FOO=1 readonly v=2`): then each argument is one field, split at
// its first '='.
func (r *Runner) declare(variant string, assigns iter.Seq[*syntax.Assign]) {
	local, global := false, false
	var modes []string
	valType := ""
	declQuery := "" // "-f", "-F" or "-p" for query mode
	unexport := false
	switch variant {
	case "declare", "typeset":
		// When used in a function, "declare" acts as "local"
		// unless the "-g" option is used.
		local = r.inFunc
	case "local":
		if !r.inFunc {
			r.errf("local: can only be used in a function\n")
			r.exit.code = 1
			return
		}
		local = true
	case "export":
		modes = append(modes, "-x")
	case "readonly":
		modes = append(modes, "-r")
	case "nameref":
		valType = "-n"
	}
	named := false
	optsDone := false
	for as := range assigns {
		if as.Naked && as.Name.Value == "--" && !optsDone {
			optsDone = true
			continue
		}
		fp := flagParser{remaining: []string{as.Name.Value}}
		isFlag := false
		for !optsDone && fp.more() {
			isFlag = true
			switch flag := fp.flag(); {
			case flag == "-n" && variant == "export":
				unexport = true
			case flag == "-f" && variant == "export", flag == "-p" && (variant == "export" || variant == "readonly"):
				declQuery = "-p"
			case flag == "-x", flag == "-r", flag == "-i", flag == "-l", flag == "-u", flag == "+x", flag == "+i", flag == "+l", flag == "+u":
				modes = append(modes, flag)
			case flag == "-a", flag == "-A", flag == "-n", flag == "+n":
				valType = flag
			case flag == "-g":
				global = true
			case flag == "-t", flag == "+t": // tracing functions: nothing to do
			case flag == "+r": // bash takes no read-only attribute away
			case flag == "-f", flag == "-F", flag == "-p":
				declQuery = flag
			default:
				r.errf("%s: %s: invalid option\n", variant, flag)
				if usage, ok := declUsage[variant]; ok {
					fmt.Fprintf(r.stderr, "%s: usage: %s\n", variant, usage) // bare, as bash prints it
				}
				r.exit.code = 2
				return
			}
		}
		if isFlag {
			continue
		}
		named = true
		name := as.Name.Value
		if as.Index != nil && (variant == "export" || variant == "readonly") {
			// bash's export and readonly take names, not elements.
			var sub bytes.Buffer
			syntax.NewPrinter().Print(&sub, as.Index)
			r.errf("%s: `%s[%s]': not a valid identifier\n", variant, name, sub.String())
			r.exit.code = 1
			continue
		}
		if !syntax.ValidName(name) && declQuery != "-f" && declQuery != "-F" {
			// A function's name may be any word (`ble/foo`).
			word := name // bash names the whole word
			switch {
			case as.Array != nil:
				word += "=(...)"
			case as.Value != nil && as.Append:
				word += "+=" + r.literal(as.Value)
			case as.Value != nil:
				word += "=" + r.literal(as.Value)
			}
			r.errf("%s: `%s': not a valid identifier\n", variant, word)
			r.exit.code = 1
			continue
		}
		switch declQuery {
		case "-f", "-F":
			// Bash silently returns exit 1 for missing functions.
			body := r.Funcs[name]
			switch {
			case body == nil:
				r.exit.code = 1
			case declQuery == "-F":
				r.outf("%s\n", name)
			default:
				r.printFunc(name, body)
			}
			continue
		case "-p":
			if variant == "export" || variant == "readonly" {
				break // export -p NAME exports it, as in bash
			}
			vr := r.lookupVar(name)
			if variant == "local" && !vr.Local {
				vr = expand.Variable{} // local -p names the function's own only
			}
			if !vr.Declared() || !as.Naked { // declare -p x=1 names no variable
				shown := name
				if !as.Naked && as.Value != nil {
					shown += "=" + r.literal(as.Value)
				}
				r.errf("%s: %s: not found\n", variant, shown)
				r.exit.code = 1
				continue
			}
			r.outf("%s\n", declareLine(name, vr))
			continue
		}
		vr := r.lookupVar(name)
		if local && !global && !r.localHere(name) {
			vr = expand.Variable{} // a new local, unset until assigned
		}
		convert := ""
		switch {
		case valType == "-A" && vr.Kind == expand.Indexed:
			convert = "indexed to associative"
		case valType == "-a" && vr.Kind == expand.Associative:
			convert = "associative to indexed"
		}
		if convert != "" && as.Naked {
			// bash names the builtin when no value comes with it, and
			// goes on.
			r.errf("%s: %s: cannot convert %s array\n", variant, name, convert)
			r.exit.code = 1
			continue
		} else if convert != "" {
			r.errf("%s: cannot convert %s array\n", name, convert)
			r.exit.code = 1
			r.exit.exiting, r.exit.discard = true, true // as bash does, with the rest of the line
			return
		}
		if as.Naked {
			switch {
			case valType == "-n" && (vr.Kind == expand.String || vr.Kind == expand.Unknown):
				vr.Kind = expand.NameRef // typeset -n ref: its value is the name
			case valType == "+n" && vr.Kind == expand.NameRef:
				vr.Kind = expand.String
			case valType == "-A" && vr.Kind != expand.Associative:
				vr.Kind, vr.Map = expand.Associative, nil
			case valType == "-a" && vr.Kind == expand.String:
				vr.Kind, vr.List = expand.Indexed, []string{vr.Str}
			case valType == "-a" && vr.Kind == expand.Unknown:
				vr.Kind = expand.Indexed
			case vr.Kind == expand.Unknown:
				vr.Kind = expand.String // declared, not set
			default:
				vr.Kind = expand.KeepValue
			}
		}
		if global {
			vr.Local = false
		} else if local {
			vr.Local = true
		} else {
			// export or readonly of a caller's local changes that
			// local, not a new one of this function.
			vr.Local = false
		}
		for _, mode := range modes {
			on := mode[0] == '-'
			switch mode[1] {
			case 'x':
				vr.Exported = on
			case 'r':
				vr.ReadOnly = vr.ReadOnly || on
			case 'i':
				vr.Integer = on
			case 'l':
				vr.Lower, vr.Upper = on && !slices.Contains(modes, "-u"), false
			case 'u':
				vr.Upper, vr.Lower = on && !slices.Contains(modes, "-l"), false
			}
		}
		if unexport {
			vr.Exported = false
		}
		if as.Index != nil && !as.Naked { // declare a[3]=x
			if valType == "-A" && vr.Kind != expand.Associative {
				vr.Kind = expand.Associative
			}
			r.assignElem(vr, name, as.Index, as)
			continue
		}
		if !as.Naked && as.Array == nil && vr.Kind != expand.NameRef && !r.lookupVar(name).ReadOnly {
			// declare -a x=1 makes an array of one element, and a
			// value for an array sets its element 0 (declare a=9 on
			// a=(1 2) leaves a[1]), as in bash.
			switch {
			case valType == "-a" && vr.Kind != expand.Indexed:
				vr.Kind, vr.List, vr.Indexes = expand.Indexed, nil, nil
				if vr.IsSet() && vr.Str != "" {
					vr.List = []string{vr.Str}
				}
			case valType == "-A" && vr.Kind != expand.Associative:
				vr.Kind, vr.Map = expand.Associative, nil
			}
			if vr.Kind == expand.Indexed || vr.Kind == expand.Associative {
				val := ""
				if as.Value != nil {
					val = r.literal(r.colonTildes(as.Value))
				}
				if list := compoundValue(name, val); list != nil {
					// declare -a x='(1 2)' assigns the list it spells,
					// as bash does for an array's declaration.
					list.Append = as.Append
					as = list
				} else {
					taken := &syntax.Assign{Name: as.Name, Append: as.Append, Value: &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: val}}}}
					r.assignElem(vr, name, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "0"}}}, taken)
					continue
				}
			}
		}
		if !as.Naked {
			name, vr = r.assignVal(name, vr, as, valType)
		}
		if vr.Kind == expand.NameRef && !validRef(vr.Str) {
			r.errf("%s: `%s': invalid variable name for name reference\n", variant, vr.Str)
			r.exit.code = 1
			continue
		}
		if err := r.setVarErr(name, vr); errors.Is(err, errReadOnly) && variant != "export" && variant != "readonly" {
			r.errf("%s: %v\n", variant, err) // as bash words it: declare: r: readonly variable
			r.exit.code = 1
		} else if err != nil {
			r.setVar(name, vr) // reports it as any assignment does
		}
	}
	if named {
		return
	}
	switch {
	case declQuery == "-F":
		for _, name := range slices.Sorted(maps.Keys(r.Funcs)) {
			r.outf("declare -f %s\n", name)
		}
	case declQuery == "-f":
		for _, name := range slices.Sorted(maps.Keys(r.Funcs)) {
			r.printFunc(name, r.Funcs[name])
		}
	case declQuery == "" && len(modes) == 0 && valType == "" && (variant == "declare" || variant == "typeset"):
		// declare alone lists as set does.
		r.listSet()
	case declQuery == "-p", variant == "export", variant == "readonly", variant == "local":
		// export, readonly and local alone list as declare -p does.
		for _, name := range r.varNames() {
			vr := r.lookupVar(name)
			if !vr.Declared() || !hasAttrs(vr, modes, valType) || variant == "local" && !vr.Local {
				continue
			}
			r.outf("%s\n", declareLine(name, vr))
		}
	}
}

// validRef reports whether a nameref may name ref: a variable or an
// array element, not a positional or special parameter.
func validRef(ref string) bool {
	_, _, elem := cutElemSubscript(ref)
	return ref == "" || syntax.ValidName(ref) || elem
}

// localHere reports whether name is a variable of the function being run.
func (r *Runner) localHere(name string) bool {
	o, ok := r.writeEnv.(*overlayEnviron)
	if !ok || !o.funcScope {
		return false
	}
	_, ok = o.values[o.normalize(name)]
	return ok
}

// hasAttrs reports whether vr has every attribute the options name, as
// declare -px or -pa list only such variables.
func hasAttrs(vr expand.Variable, modes []string, valType string) bool {
	for _, m := range modes {
		if m[0] != '-' {
			continue
		}
		switch m[1] {
		case 'x':
			if !vr.Exported {
				return false
			}
		case 'r':
			if !vr.ReadOnly {
				return false
			}
		case 'i':
			if !vr.Integer {
				return false
			}
		case 'l':
			if !vr.Lower {
				return false
			}
		case 'u':
			if !vr.Upper {
				return false
			}
		}
	}
	switch valType {
	case "-a":
		return vr.Kind == expand.Indexed
	case "-A":
		return vr.Kind == expand.Associative
	case "-n":
		return vr.Kind == expand.NameRef
	}
	return true
}

// declUsage is the usage line bash prints after an invalid option of each
// declaration builtin.
var declUsage = map[string]string{
	"declare":  "declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p [-aAfFilnrtux] [name ...]",
	"typeset":  "typeset [-aAfFgiIlnrtux] name[=value] ... or typeset -p [-aAfFilnrtux] [name ...]",
	"local":    "local [option] name[=value] ...",
	"export":   "export [-fn] [name[=value] ...] or export -p",
	"readonly": "readonly [-aAf] [name[=value] ...] or readonly -p",
}

// declareCall is declare and its kin reached as a command: each field is
// one assignment, split at its first '='.
func (r *Runner) declareCall(name string, args []string) exitStatus {
	r.exit = exitStatus{}
	r.declare(name, func(yield func(*syntax.Assign) bool) {
		for _, field := range args {
			if !yield(fieldAssign(field)) {
				return
			}
		}
	})
	return r.exit
}

// fieldAssign is an argument of declare and its kin that came from an
// expansion (`declare $x`, `typeset s${d}+=v`), split at its first '='.
func fieldAssign(field string) *syntax.Assign {
	as := &syntax.Assign{}
	n, val, ok := strings.Cut(field, "=")
	if strings.HasSuffix(n, "+") && ok && syntax.ValidName(n[:len(n)-1]) {
		n, as.Append = n[:len(n)-1], true
	}
	as.Name = &syntax.Lit{Value: n}
	if !ok {
		as.Naked = true
	} else {
		// The value is as the expansion made it: no tilde or
		// backslash in it is read again, as in bash.
		as.Value = &syntax.Word{Parts: []syntax.WordPart{&syntax.SglQuoted{Value: val}}}
	}
	return as
}

func (r *Runner) printFunc(name string, body *syntax.Stmt) {
	r.outf("%s\n", funcText(name, body))
}

// declareLine is a variable as declare -p prints it in bash.
func declareLine(name string, vr expand.Variable) string {
	flags := vr.Flags()
	if flags == "" {
		flags = "-"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "declare -%s %s", flags, name)
	if !vr.IsSet() {
		return b.String()
	}
	switch vr.Kind {
	case expand.Indexed:
		b.WriteString("=(")
		for i, v := range vr.List {
			if i > 0 {
				b.WriteString(" ")
			}
			idx := i
			if vr.Indexes != nil {
				idx = vr.Indexes[i]
			}
			fmt.Fprintf(&b, "[%d]=%s", idx, expand.DeclareQuote(v))
		}
		b.WriteString(")")
	case expand.Associative:
		b.WriteString("=(")
		for _, k := range vr.AssocKeys() {
			fmt.Fprintf(&b, "[%s]=%s ", expand.DeclareKey(k), expand.DeclareQuote(vr.Map[k]))
		}
		b.WriteString(")")
	default:
		fmt.Fprintf(&b, "=%s", expand.DeclareQuote(vr.Str))
	}
	return b.String()
}

// varNames are the names set and declare list, sorted: the variables,
// and the arrays bash keeps of the running frames.
func (r *Runner) varNames() []string {
	names := map[string]bool{"BASH_LINENO": true, "BASH_SOURCE": true}
	for name := range r.writeEnv.Each {
		names[name] = true
	}
	return slices.Sorted(maps.Keys(names))
}

// listSet is set without arguments: each set variable as NAME=VALUE,
// quoted to be read back, by name, then the functions, as bash lists them.
func (r *Runner) listSet() {
	for _, name := range r.varNames() {
		vr := r.lookupVar(name)
		if !vr.IsSet() {
			continue
		}
		switch vr.Kind {
		case expand.Indexed, expand.Associative:
			// declare -p's form, after its attributes.
			_, value, _ := strings.Cut(declareLine(name, vr), " "+name+"=")
			r.outf("%s=%s\n", name, value)
		case expand.NameRef:
			r.outf("%s=%s\n", name, setQuote(vr.Str)) // the name it refers to
		default:
			r.outf("%s=%s\n", name, setQuote(vr.String()))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(r.Funcs)) {
		r.printFunc(name, r.Funcs[name])
	}
}

// setQuote quotes a value as set lists it: bare when nothing in it needs
// quoting, $'…' with control characters, else in single quotes.
func setQuote(s string) string {
	if s == "" {
		return s
	}
	if strings.ContainsFunc(s, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		return expand.QuoteANSIC(s)
	}
	if q, err := syntax.Quote(s, syntax.LangBash); err == nil && q == s {
		return s
	}
	return singleQuote(s)
}

// singleQuote quotes s in single quotes, a quote in it as '\”.
func singleQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// compoundValue is the list assignment a declaration's value for an array
// spells when it is written in parentheses (`declare -a x='(1 2)'`), nil
// for any other value.
func compoundValue(name, val string) *syntax.Assign {
	if !strings.HasPrefix(val, "(") || !strings.HasSuffix(val, ")") {
		return nil
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(name+"="+val), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) > 0 || len(call.Assigns) != 1 || call.Assigns[0].Array == nil {
		return nil
	}
	return call.Assigns[0]
}
