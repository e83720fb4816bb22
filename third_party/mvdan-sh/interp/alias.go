// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package interp

import (
	"context"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// aliasBuiltin is bash's alias: `alias [-p] [name[=value] ... ]`. With no
// name, or -p, it lists every alias sorted by name; a name alone prints
// its alias or fails with `alias: NAME: not found` (status 1), and the
// other names are still done.
func (r *Runner) aliasBuiltin(args []string) exitStatus {
	var exit exitStatus
	list := len(args) == 0
	fp := flagParser{remaining: args}
	for fp.more() {
		switch flag := fp.flag(); flag {
		case "-p":
			list = true
		default:
			return r.usageError("alias", flag)
		}
	}
	if list {
		for _, name := range slices.Sorted(maps.Keys(r.alias)) {
			r.outf("alias %s=%s\n", name, quoteAliasValue(r.alias[name].value))
		}
	}
	for _, arg := range fp.args() {
		name, value, ok := strings.Cut(arg, "=")
		if !ok {
			als, ok := r.alias[name]
			if !ok {
				r.errf("alias: %s: not found\n", name)
				exit.code = 1
				continue
			}
			r.outf("alias %s=%s\n", name, quoteAliasValue(als.value))
			continue
		}
		if !validAliasName(name) {
			r.errf("alias: `%s': invalid alias name\n", name)
			exit.code = 1
			continue
		}
		if r.alias == nil {
			r.alias = make(map[string]alias)
		}
		r.alias[name] = r.newAlias(value)
	}
	return exit
}

// newAlias keeps an alias's value as written; it takes effect from the
// line after the one being run.
func (r *Runner) newAlias(value string) alias {
	return alias{value: value, blank: strings.TrimRight(value, " \t") != value, read: r.aliasRead}
}

// aliasText is the code a simple command stands for when its first word is
// an alias, as bash expands it: the alias's text in place of the word, the
// next word's too while an alias's text ends with a blank, the command's
// assignments before and its other words after, as written. ok is false
// when no alias applies: expansion is off, the word is quoted or not an
// alias, the alias is being expanded already, or it was defined after the
// command was read (on the same line, or after the function holding it).
//
// first is where the first alias's text is in text: bash quotes that text
// in a syntax error within it.
func (r *Runner) aliasText(cm *syntax.CallExpr) (text string, first [2]int, inUse []string, ok bool) {
	if !r.opts[optExpandAliases] || len(r.alias) == 0 || len(cm.Args) == 0 {
		return "", first, nil, false
	}
	if _, found := r.alias[cm.Args[0].Lit()]; !found {
		return "", first, nil, false
	}
	top, inScript := r.aliasTop[cm]
	var b strings.Builder
	printer := syntax.NewPrinter()
	if len(cm.Assigns) > 0 {
		printer.Print(&b, &syntax.CallExpr{Assigns: cm.Assigns})
		b.WriteByte(' ')
	}
	inUse = r.aliasInUse
	i := 0
	for ; i < len(cm.Args); i++ {
		// A word after a blank-ended alias comes from the command as
		// written, so only the aliases whose text holds the command are
		// in use for it (`alias e='echo '; e e` expands both).
		name := cm.Args[i].Lit()
		als, found := r.alias[name]
		if !found || slices.Contains(r.aliasInUse, name) || (inScript && top <= als.read) {
			break
		}
		if i == 0 {
			first = [2]int{b.Len(), b.Len() + len(als.value)}
		}
		b.WriteString(als.value)
		inUse = append(slices.Clip(inUse), name)
		if !als.blank {
			i++
			break
		}
	}
	if i == 0 {
		return "", first, nil, false
	}
	for _, w := range cm.Args[i:] {
		b.WriteByte(' ')
		printer.Print(&b, w)
	}
	return b.String(), first, inUse, true
}

// runAlias runs the code a simple command stands for through its aliases.
// A syntax error in it fails the command with status 2, as in bash.
func (r *Runner) runAlias(ctx context.Context, text string, first [2]int, inUse []string) {
	// Its errors name the line of the command, as bash's do.
	lines := strings.Repeat("\n", int(max(r.line, 1)-1))
	file, err := syntax.NewParser().Parse(strings.NewReader(lines+text), "")
	if err != nil && r.syntaxErrors != nil {
		// bash reads the alias's text as a line of its own, and
		// quotes it when it is where a token was not expected.
		src := lines + text
		if pe, ok := errors.AsType[syntax.ParseError](err); ok && pe.Token != "" && !strings.ContainsAny(pe.Token[:1], "'\"`$") {
			if off := int(pe.TokenPos.Offset()) - len(lines); off >= first[0] && off < first[1] {
				src = lines + text[first[0]:first[1]]
			}
		}
		io.WriteString(r.stderr, r.syntaxErrors(src, err))
		r.exit = exitStatus{code: 2, exiting: true}
		return
	}
	if err != nil {
		r.errf("syntax error in an alias's expansion: %v\n", err)
		r.exit.code = 2
		return
	}
	saved := r.aliasInUse
	r.aliasInUse = inUse
	r.stmts(ctx, file.Stmts)
	r.aliasInUse = saved
}

// readLines notes, for each simple command of a script, the line bash has
// read when it reads the command (the first line of its top-level
// statement), and returns the last line read with each top-level
// statement: a line is read whole, with every statement that starts on
// it.
func (r *Runner) readLines(stmts []*syntax.Stmt) []uint {
	r.aliasTop = make(map[*syntax.CallExpr]uint)
	read := make([]uint, len(stmts))
	for i, stmt := range stmts {
		line := stmt.Pos().Line()
		syntax.Walk(stmt, func(n syntax.Node) bool {
			if cm, ok := n.(*syntax.CallExpr); ok {
				r.aliasTop[cm] = line
			}
			return true
		})
		read[i] = stmt.End().Line()
	}
	for i := len(stmts) - 2; i >= 0; i-- {
		if stmts[i+1].Pos().Line() == stmts[i].End().Line() {
			read[i] = read[i+1]
		}
	}
	return read
}

// AliasLine is line, the first line of a command line the parser could
// not read, with the aliases at its start expanded as bash expands them
// while it reads: the first word, an alias's own first word, and the word
// after an alias whose text ends in a blank (`alias LEFT='{'` makes
// `LEFT echo; }` a block). ok reports whether an alias was expanded.
// (tandem)
func (r *Runner) AliasLine(line string) (expanded string, ok bool) {
	if !r.opts[optExpandAliases] || len(r.alias) == 0 {
		return line, false
	}
	return r.aliasWords(line, nil)
}

// aliasWords expands the alias text starts with, if any, except those in
// use.
func (r *Runner) aliasWords(text string, inUse []string) (string, bool) {
	word := strings.TrimLeft(text, " \t")
	lead := text[:len(text)-len(word)]
	end := strings.IndexAny(word, " \t\n;&|()<>")
	if end < 0 {
		end = len(word)
	}
	word, rest := word[:end], word[end:]
	als, found := r.alias[word]
	if !found || slices.Contains(inUse, word) {
		return text, false
	}
	value, _ := r.aliasWords(als.value, append(slices.Clip(inUse), word))
	if als.blank {
		rest, _ = r.aliasWords(rest, inUse)
	}
	return lead + value + rest, true
}

// validAliasName is bash's legal_alias_name: no quoting, expansion, blank
// or operator character, and no slash.
func validAliasName(name string) bool {
	return name != "" && !strings.ContainsAny(name, " \t\n'\"\\`$/=|&;()<>")
}

// unaliasBuiltin is bash's unalias: `unalias [-a] name [name ...]`.
func (r *Runner) unaliasBuiltin(args []string) exitStatus {
	var exit exitStatus
	fp := flagParser{remaining: args}
	for fp.more() {
		switch flag := fp.flag(); flag {
		case "-a":
			clear(r.alias)
			return exit
		default:
			return r.usageError("unalias", flag)
		}
	}
	names := fp.args()
	if len(names) == 0 {
		r.usage("unalias")
		return exitStatus{code: 2}
	}
	for _, name := range names {
		if _, ok := r.alias[name]; !ok {
			r.errf("unalias: %s: not found\n", name)
			exit.code = 1
			continue
		}
		delete(r.alias, name)
	}
	return exit
}
