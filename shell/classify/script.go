package classify

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/expand"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"

	"github.com/tandemdev/tandem/approvals"
)

type lang uint8

const (
	langBash lang = iota
	langPOSIX
)

func langOf(shell string) lang {
	switch shell {
	case "bash", "zsh", "ksh", "mksh":
		return langBash
	}
	return langPOSIX
}

// Script classifies a whole script without running it: every simple
// command (in functions, loops, command and process substitutions, alias and
// trap payloads, eval of a known string) and every redirection, each with
// the words it has before it runs. A word whose value only the run can tell
// (a command substitution, a variable the environment does not set, a
// positional parameter) is unknown: its command is exec, and its other words
// are still judged. An assignment without a command, and one before a
// command, is exec; so is export with an operand. cd with a known directory
// moves the working directory of the commands after it.
//
// The runner classifies each step again, with its real arguments, when it
// runs; this static view is what `sh -c SCRIPT` gets, and what the shell
// corpus pins.
func Script(src, dir string, env expand.Environ, p *approvals.Policy) ([]approvals.Step, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, err
	}
	w := &walker{env: env, p: p, dir: dir}
	w.file(f)
	return w.steps, nil
}

// script classifies a script nested in a step (sh -c, eval, alias, trap):
// the step gets the union of its commands' effects and their paths. A
// script that does not parse is exec. Its positional parameters are
// unknown (the caller judges the words that become them).
func (c *classifier) script(src, dir string, l lang) {
	if c.depth > maxDepth {
		c.eff = approvals.All
		return
	}
	v := syntax.LangBash
	if l == langPOSIX {
		v = syntax.LangPOSIX
	}
	f, err := syntax.NewParser(syntax.Variant(v)).Parse(strings.NewReader(src), "")
	if err != nil {
		c.add(approvals.Exec)
		c.read(dir, src)
		return
	}
	w := &walker{env: c.env, p: c.p, dir: dir, depth: c.depth}
	w.file(f)
	for _, s := range w.steps {
		c.eff |= s.Effects
		c.paths = append(c.paths, s.Paths...)
	}
}

// walker classifies the commands of a parsed script in source order.
type walker struct {
	env   expand.Environ
	p     *approvals.Policy
	dir   string
	depth int
	steps []approvals.Step
	// stdin is the known text a command reads as its input (a here-document,
	// a here-string, the output of echo before a pipe): a shell reading its
	// commands from it runs that text.
	stdin   map[*syntax.CallExpr]string
	globbed int // directory entries globs have read
}

// hereInput records the here-document or here-string of a simple command.
func (w *walker) hereInput(st *syntax.Stmt) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return
	}
	for _, r := range st.Redirs {
		var word *syntax.Word
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			word = r.Hdoc
		case syntax.WordHdoc:
			word = r.Word
		default:
			continue
		}
		if word == nil || !w.known(word) {
			continue
		}
		if text, err := expand.Document(w.config(), word); err == nil {
			w.setStdin(call, text)
		}
	}
}

// pipedInput records what echo or printf (without a format) pipes into the
// next command.
func (w *walker) pipedInput(b *syntax.BinaryCmd) {
	if b.Op != syntax.Pipe && b.Op != syntax.PipeAll {
		return
	}
	x, ok1 := b.X.Cmd.(*syntax.CallExpr)
	y, ok2 := b.Y.Cmd.(*syntax.CallExpr)
	if !ok1 || !ok2 {
		return
	}
	argv, unknown := w.fields(x.Args)
	if unknown || len(argv) < 2 {
		return
	}
	switch {
	case argv[0] == "echo":
		w.setStdin(y, strings.Join(argv[1:], " "))
	case argv[0] == "printf" && !strings.Contains(argv[1], "%"):
		w.setStdin(y, argv[1])
	}
}

func (w *walker) setStdin(call *syntax.CallExpr, text string) {
	if w.stdin == nil {
		w.stdin = map[*syntax.CallExpr]string{}
	}
	w.stdin[call] = text
}

func (w *walker) file(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			w.hereInput(n)
		case *syntax.BinaryCmd:
			w.pipedInput(n)
		case *syntax.CallExpr:
			w.call(n)
		case *syntax.DeclClause:
			w.decl(n)
		case *syntax.TestClause:
			w.test(n)
		case *syntax.Redirect:
			w.redirect(n)
		}
		return true
	})
}

func (w *walker) classifier() *classifier {
	c := newClassifier(w.env, w.p)
	c.depth = w.depth + 1
	return c
}

func (w *walker) config() *expand.Config {
	env := w.env
	if env == nil {
		env = expand.ListEnviron()
	}
	return &expand.Config{
		Env:       env,
		ReadDir2:  w.readDir,
		ProcSubst: func(*syntax.ProcSubst) (string, error) { return "/dev/null", nil },
	}
}

// maxGlobEntries bounds the directory entries the globs of one script may
// read; past it a glob's word is unknown (exec), so /*/*/*/* costs little.
const maxGlobEntries = 10000

// errGlobBound stops a glob that read too much.
var errGlobBound = errors.New("glob reads too many entries")

func (w *walker) readDir(dir string) ([]fs.DirEntry, error) {
	if w.globbed >= maxGlobEntries {
		return nil, errGlobBound
	}
	es, err := w.p.ReadDir(w.p.ExamineForProgram(w.dir, dir).RealPath)
	w.globbed += len(es)
	return es, err
}

// known reports whether a word's value is fixed before the script runs.
func (w *walker) known(word *syntax.Word) bool {
	ok := true
	syntax.Walk(word, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ArithmExp:
			ok = false
		case *syntax.ParamExp:
			if n.Param == nil || n.Excl || w.env == nil || !w.env.Get(n.Param.Value).IsSet() {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// fields expands words that are known; unknown ones are reported.
func (w *walker) fields(words []*syntax.Word) (out []string, unknown bool) {
	cfg := w.config()
	for _, word := range words {
		if !w.known(word) {
			unknown = true
			continue
		}
		fs, err := expand.Fields(cfg, word)
		if err != nil {
			unknown = true
			continue
		}
		out = append(out, fs...)
	}
	return out, unknown
}

func (w *walker) add(c *classifier, text string) {
	w.steps = append(w.steps, c.step(text))
}

func (w *walker) assigns(c *classifier, as []*syntax.Assign) {
	for _, a := range as {
		if a.Value == nil {
			continue
		}
		if vs, unknown := w.fields([]*syntax.Word{a.Value}); unknown {
			c.add(approvals.Exec)
		} else {
			c.words(w.dir, vs, false)
		}
	}
}

func (w *walker) call(n *syntax.CallExpr) {
	c := w.classifier()
	if len(n.Assigns) > 0 {
		// The environment can make a reading command run another program.
		c.add(approvals.Exec)
		w.assigns(c, n.Assigns)
	}
	argv, unknown := w.fields(n.Args)
	text := printWords(n)
	if unknown {
		// What the run will give is unknown: exec. A known program still
		// has its own effects, from the words that are known.
		c.add(approvals.Exec)
		if len(n.Args) > 0 && w.known(n.Args[0]) && len(argv) > 0 {
			c.command(argv, w.dir)
		} else {
			c.anyWords(w.dir, argv)
		}
		w.add(c, text)
		return
	}
	if len(argv) > 0 {
		c.command(argv, w.dir)
		if argv[0] == "cd" {
			w.cd(argv[1:])
		}
		if text, ok := w.stdin[n]; ok && shellReadsInput(argv) {
			c.script(text, w.dir, langOf(argv[0]))
		}
	}
	w.add(c, text)
}

// test classifies [[ … ]] as the test builtin is: a word that is or holds
// a secret probes it (does ~/.ssh/id_ed25519 exist?). Its words are neither
// split nor globbed; one whose value is unknown is judged when it runs. It
// is a step only when it has an effect.
func (w *walker) test(n *syntax.TestClause) {
	cfg := w.config()
	c := w.classifier()
	syntax.Walk(n.X, func(m syntax.Node) bool {
		word, ok := m.(*syntax.Word)
		if !ok {
			return true
		}
		if w.known(word) {
			if v, err := expand.Literal(cfg, word); err == nil {
				c.read(w.dir, v)
			}
		}
		return false
	})
	if c.eff != 0 {
		var b strings.Builder
		_ = syntax.NewPrinter().Print(&b, n)
		w.add(c, b.String())
	}
}

// cd follows a known cd so the commands after it read the right directory.
func (w *walker) cd(args []string) {
	var to string
	switch {
	case len(args) == 0:
		if w.env != nil {
			to = w.env.Get("HOME").String()
		}
	case args[0] == "-" || strings.HasPrefix(args[0], "-"):
		return
	default:
		to = args[0]
	}
	if to != "" {
		w.dir = w.p.ExamineForProgram(w.dir, to).Path
	}
}

func (w *walker) decl(n *syntax.DeclClause) {
	c := w.classifier()
	exported := n.Variant.Value == "export" || n.Variant.Value == "readonly"
	for _, a := range n.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			// A flag such as -x.
			if vs, _ := w.fields([]*syntax.Word{a.Value}); len(vs) > 0 && strings.Contains(vs[0], "x") && strings.HasPrefix(vs[0], "-") {
				exported = true
			}
			continue
		}
		if exported {
			c.add(approvals.Exec)
		}
	}
	w.assigns(c, n.Args)
	w.add(c, n.Variant.Value)
}

func (w *walker) redirect(r *syntax.Redirect) {
	write := false
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.AppClob, syntax.RdrInOut:
		write = true
	case syntax.RdrIn:
	case syntax.DplOut, syntax.DplIn:
		if vs, unknown := w.fields([]*syntax.Word{r.Word}); unknown || len(vs) != 1 || isFD(vs[0]) {
			return
		}
		write = r.Op == syntax.DplOut
	default:
		return // here-documents and here-strings open no file
	}
	vs, unknown := w.fields([]*syntax.Word{r.Word})
	if unknown || len(vs) != 1 {
		c := w.classifier()
		c.add(approvals.Exec)
		w.add(c, "redirect to an unknown file")
		return
	}
	w.steps = append(w.steps, Redirect(vs[0], write, w.dir, w.p))
}

// shellReadsInput reports whether argv is a shell that reads its commands
// from its input: no -c and no script file.
func shellReadsInput(argv []string) bool {
	if !isShellName(argv[0]) {
		return false
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "-o" || a == "+o" || a == "-O" || a == "+O":
			i++ // its value
		case !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+"):
			return false // a script file
		case !strings.HasPrefix(a, "--") && strings.Contains(a, "c"):
			return false // -c: the script is an argument, not the input
		}
	}
	return true
}

func isFD(s string) bool { return s == "-" || isDigits(s) }

// printWords writes a call as its source, for a step's text.
func printWords(n *syntax.CallExpr) string {
	var b strings.Builder
	p := syntax.NewPrinter()
	_ = p.Print(&b, n)
	return b.String()
}
