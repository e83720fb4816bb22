// Copyright (c) 2017, Daniel Martí <mvdan@mvdan.cc>
// See LICENSE for licensing information

package interp

import (
	"strings"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"
)

// funcText is a function as bash's `declare -f` and `type` list it (the
// first two lines end with a blank):
//
//	f ()
//	{
//	    echo a;
//	    for i in 1 2;
//	    do
//	        echo $i;
//	    done
//	}
//
// Words, tests and arithmetic are printed as written. A statement without
// a position in the source (one a handler added when it rewrote the code)
// is not the script's, and is left out. A construct this printer does not
// lay out as bash does (a here-document, a nested function) is printed as
// the syntax printer prints it.
func funcText(name string, body *syntax.Stmt) string {
	fp := funcPrinter{printer: syntax.NewPrinter()}
	fp.b.WriteString(name + " () \n")
	if blk, ok := body.Cmd.(*syntax.Block); ok && len(body.Redirs) == 0 {
		fp.b.WriteString("{ \n")
		fp.list(blk.Stmts, 1, false)
		fp.b.WriteString("\n}")
	} else {
		fp.stmt(body, 0)
	}
	return fp.b.String()
}

type funcPrinter struct {
	b       strings.Builder
	printer *syntax.Printer
}

func (fp *funcPrinter) indent(depth int) {
	fp.b.WriteString(strings.Repeat("    ", depth))
}

// source is a node as the syntax printer prints it.
func (fp *funcPrinter) source(n syntax.Node) string {
	var b strings.Builder
	fp.printer.Print(&b, n)
	return b.String()
}

// visible are the statements written in the script.
func visible(stmts []*syntax.Stmt) []*syntax.Stmt {
	var out []*syntax.Stmt
	for _, st := range stmts {
		if st.Pos().IsValid() {
			out = append(out, st)
		}
	}
	return out
}

// list writes stmts one a line at depth, each ended by `;` but the last
// unless terminated; a background one is followed on its line by the next.
func (fp *funcPrinter) list(stmts []*syntax.Stmt, depth int, terminated bool) {
	stmts = visible(stmts)
	fp.indent(depth)
	for i, st := range stmts {
		fp.stmt(st, depth)
		last := i == len(stmts)-1
		switch {
		case st.Background:
			fp.b.WriteString(" &")
			if !last {
				fp.b.WriteString(" ")
			}
			continue
		case !last || terminated:
			fp.b.WriteString(";")
		}
		if !last {
			fp.b.WriteString("\n")
			fp.indent(depth)
		}
	}
}

// inline writes stmts on one line, as a condition: `a; b`.
func (fp *funcPrinter) inline(stmts []*syntax.Stmt, depth int) {
	for i, st := range visible(stmts) {
		if i > 0 {
			fp.b.WriteString("; ")
		}
		fp.stmt(st, depth)
	}
}

func (fp *funcPrinter) stmt(st *syntax.Stmt, depth int) {
	for _, rd := range st.Redirs {
		if rd.Hdoc != nil {
			fp.b.WriteString(fp.source(st))
			return
		}
	}
	if st.Negated {
		fp.b.WriteString("! ")
	}
	fp.command(st.Cmd, depth)
	for _, rd := range st.Redirs {
		fp.b.WriteString(" ")
		if rd.N != nil {
			fp.b.WriteString(rd.N.Value)
		}
		fp.b.WriteString(rd.Op.String())
		if rd.Op != syntax.DplIn && rd.Op != syntax.DplOut {
			fp.b.WriteString(" ")
		}
		fp.b.WriteString(fp.source(rd.Word))
	}
}

func (fp *funcPrinter) command(cmd syntax.Command, depth int) {
	switch cm := cmd.(type) {
	case nil:
	case *syntax.CallExpr, *syntax.DeclClause, *syntax.LetClause:
		fp.b.WriteString(fp.source(cm))
	case *syntax.TestClause:
		fp.b.WriteString(fp.source(cm))
	case *syntax.ArithmCmd:
		fp.b.WriteString("(( " + fp.arith(cm.X) + " ))")
	case *syntax.BinaryCmd:
		fp.stmt(cm.X, depth)
		fp.b.WriteString(" " + cm.Op.String() + " ")
		fp.stmt(cm.Y, depth)
	case *syntax.Block:
		if !cm.Lbrace.IsValid() {
			// A handler's rewrite wrapped the script's statements.
			fp.inline(cm.Stmts, depth)
			return
		}
		fp.b.WriteString("{ \n")
		fp.list(cm.Stmts, depth+1, false)
		fp.b.WriteString("\n")
		fp.indent(depth)
		fp.b.WriteString("}")
	case *syntax.Subshell:
		fp.b.WriteString("( ")
		for i, st := range visible(cm.Stmts) {
			if i > 0 {
				fp.b.WriteString(";\n")
				fp.indent(depth)
			}
			fp.stmt(st, depth)
		}
		fp.b.WriteString(" )")
	case *syntax.IfClause:
		fp.ifClause(cm, depth)
	case *syntax.WhileClause:
		if cm.Until {
			fp.b.WriteString("until ")
		} else {
			fp.b.WriteString("while ")
		}
		fp.inline(cm.Cond, depth)
		fp.b.WriteString("; do\n")
		fp.body(cm.Do, depth)
		fp.b.WriteString("done")
	case *syntax.ForClause:
		switch loop := cm.Loop.(type) {
		case *syntax.WordIter:
			fp.b.WriteString("for " + loop.Name.Value)
			if loop.InPos.IsValid() {
				fp.b.WriteString(" in")
				for _, w := range loop.Items {
					fp.b.WriteString(" " + fp.source(w))
				}
			} else {
				fp.b.WriteString(` in "$@"`)
			}
			fp.b.WriteString(";\n")
		case *syntax.CStyleLoop:
			fp.b.WriteString("for ((" + fp.arith(loop.Init) + "; " + fp.arith(loop.Cond) + "; " + fp.arith(loop.Post) + "))\n")
		}
		fp.indent(depth)
		fp.b.WriteString("do\n")
		fp.body(cm.Do, depth)
		fp.b.WriteString("done")
	case *syntax.CaseClause:
		fp.b.WriteString("case " + fp.source(cm.Word) + " in \n")
		for _, item := range cm.Items {
			fp.indent(depth + 1)
			for i, p := range item.Patterns {
				if i > 0 {
					fp.b.WriteString(" | ")
				}
				fp.b.WriteString(fp.source(p))
			}
			fp.b.WriteString(")\n")
			if len(visible(item.Stmts)) > 0 {
				fp.list(item.Stmts, depth+2, false)
				fp.b.WriteString("\n")
			}
			fp.indent(depth + 1)
			fp.b.WriteString(item.Op.String() + "\n")
		}
		fp.indent(depth)
		fp.b.WriteString("esac")
	default:
		fp.b.WriteString(fp.source(cm))
	}
}

// body writes a loop's or an if's statements, each ended by `;`, and the
// indentation of the word that closes it.
func (fp *funcPrinter) body(stmts []*syntax.Stmt, depth int) {
	if len(visible(stmts)) > 0 {
		fp.list(stmts, depth+1, true)
		fp.b.WriteString("\n")
	}
	fp.indent(depth)
}

// arith is an arithmetic expression as the syntax printer prints it.
func (fp *funcPrinter) arith(x syntax.ArithmExpr) string {
	if x == nil {
		return ""
	}
	// Positions around x keep the printer on one line.
	s := fp.source(&syntax.ArithmCmd{Left: x.Pos(), Right: x.End(), X: x})
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, "(("), "))"))
}

// ifClause writes an if as bash does, an elif as an if inside the else.
func (fp *funcPrinter) ifClause(cm *syntax.IfClause, depth int) {
	fp.b.WriteString("if ")
	fp.inline(cm.Cond, depth)
	fp.b.WriteString("; then\n")
	fp.body(cm.Then, depth)
	if e := cm.Else; e != nil {
		fp.b.WriteString("else\n")
		if e.ThenPos.IsValid() {
			fp.indent(depth + 1)
			fp.ifClause(e, depth+1)
			fp.b.WriteString(";\n")
			fp.indent(depth)
		} else {
			fp.body(e.Then, depth)
		}
	}
	fp.b.WriteString("fi")
}
