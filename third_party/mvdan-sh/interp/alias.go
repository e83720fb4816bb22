// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package interp

import (
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
		als, err := newAlias(value)
		if err != nil {
			// The interpreter expands an alias when its command runs, as
			// words: one that holds operators or keywords is not run.
			r.errf("alias: %s: only an alias made of words is supported, not %q (%v); use a function instead\n", name, value, err)
			exit.code = 1
			continue
		}
		if r.alias == nil {
			r.alias = make(map[string]alias)
		}
		r.alias[name] = als
	}
	return exit
}

// newAlias keeps an alias's value as written, and the words it expands to.
func newAlias(value string) (alias, error) {
	als := alias{value: value, blank: strings.TrimRight(value, " \t") != value}
	parser := syntax.NewParser()
	for w, err := range parser.WordsSeq(strings.NewReader(value)) {
		if err != nil {
			return alias{}, err
		}
		als.args = append(als.args, w)
	}
	return als, nil
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
