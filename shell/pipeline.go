package shell

import (
	"context"
	"errors"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/syntax"

	"github.com/tandemdev/tandem/approvals"
)

// The stages of a pipeline run at the same time, each in its own goroutine,
// so their first steps would reach the gate in any order and one stage could
// start before another was asked. tandem asks a pipeline's first steps in
// order, in one question, before any of them runs:
//
//   - markPipelines rewrites each stage S of every pipeline of a parsed
//     script into `{ stageMarker I N "$_"; S; }`. The marker is the stage's first
//     command; it runs before anything of S, and its handler sees the
//     stage's own pipe ends.
//   - The marker registers the stage in a group, found or made through the
//     pipes it shares with its neighbours (a stage's stdout pipe is the next
//     one's stdin pipe).
//   - The first step (or redirection) of each stage finds its stage by those
//     pipe ends and waits until every stage of the group has either arrived
//     with its first step or ended without one; then the group's steps are
//     checked together, in stage order, and all run or none does.
//
// eval's code gets the same rewrite before eval parses it (evalMarked). A
// stage's later steps, and pipelines in a sourced file (which the
// interpreter reads itself), are gated one by one as they run.
const stageMarker = "__tandem_pipeline_stage"

// markPipelines applies the rewrite above to every pipeline in f and
// reports whether f holds one.
func markPipelines(f *syntax.File) bool {
	seen := map[*syntax.BinaryCmd]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		b, ok := n.(*syntax.BinaryCmd)
		if !ok || seen[b] || !isPipe(b) {
			return true
		}
		var stages []*syntax.Stmt
		var flatten func(s *syntax.Stmt)
		flatten = func(s *syntax.Stmt) {
			if inner, ok := s.Cmd.(*syntax.BinaryCmd); ok && isPipe(inner) && plain(s) {
				seen[inner] = true
				flatten(inner.X)
				flatten(inner.Y)
				return
			}
			stages = append(stages, s)
		}
		seen[b] = true
		flatten(b.X)
		flatten(b.Y)
		for i, s := range stages {
			orig := *s
			*s = syntax.Stmt{Position: orig.Position, Cmd: &syntax.Block{Stmts: []*syntax.Stmt{
				{Cmd: &syntax.CallExpr{Args: []*syntax.Word{lit(stageMarker), lit(strconv.Itoa(i)), lit(strconv.Itoa(len(stages))), lastArg}}},
				&orig,
			}}}
		}
		return true
	})
	return len(seen) > 0
}

func isPipe(b *syntax.BinaryCmd) bool { return b.Op == syntax.Pipe || b.Op == syntax.PipeAll }

// plain reports whether s is only its command: no negation, redirection or
// background that would make it more than a part of the enclosing pipeline.
func plain(s *syntax.Stmt) bool {
	return !s.Negated && !s.Background && !s.Coprocess && len(s.Redirs) == 0
}

// lastArg, "$_" as the marker's last word, leaves $_ as the stage found it:
// a simple command sets $_ to its last word.
var lastArg = &syntax.Word{Parts: []syntax.WordPart{&syntax.DblQuoted{Parts: []syntax.WordPart{&syntax.ParamExp{Short: true, Param: &syntax.Lit{Value: "_"}}}}}}

func lit(s string) *syntax.Word { return &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: s}}} }

// stages is the runtime side: the groups of one run.
type stages struct {
	mu     sync.Mutex
	byPipe map[uint64]*group   // pipe inode → group
	byEnd  map[*os.File]*stage // a stage's own pipe end → stage
}

type group struct {
	n         int
	stages    map[int]*stage
	into      *group // set when merged into another group
	resolving bool
	done      chan struct{}
	refused   error
	refusedN  int // the number of the refused step
}

type stage struct {
	g      *group
	idx    int
	ends   []*os.File // closed once the stage has ended
	step   *approvals.Step
	silent bool                     // arrived with no step of its own (xargs, a shell reading its script)
	record func(approvals.Step) int // records the step; returns its number
	number int
}

func newStages() *stages {
	return &stages{byPipe: map[uint64]*group{}, byEnd: map[*os.File]*stage{}}
}

func (g *group) root() *group {
	for g.into != nil {
		g = g.into
	}
	return g
}

func pipeInode(f *os.File) (uint64, bool) {
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Ino, true
}

// register runs the marker of stage idx of n, given the stage's stdin and
// stdout.
func (s *stages) register(idx, n int, stdin, stdout any) {
	var ends []*os.File
	var inodes []uint64
	if f, ok := stdin.(*os.File); ok && idx > 0 {
		if ino, ok := pipeInode(f); ok {
			ends, inodes = append(ends, f), append(inodes, ino)
		}
	}
	if f, ok := stdout.(*os.File); ok && idx < n-1 {
		if ino, ok := pipeInode(f); ok {
			ends, inodes = append(ends, f), append(inodes, ino)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.enclosed(stdin, stdout)
	if len(ends) == 0 {
		return
	}
	var g *group
	for _, ino := range inodes {
		if h, ok := s.byPipe[ino]; ok {
			h = h.root()
			switch {
			case g == nil:
				g = h
			case g != h && !h.resolving && !g.resolving:
				for i, st := range h.stages {
					st.g = g
					g.stages[i] = st
				}
				h.into = g
			}
		}
	}
	if g == nil {
		g = &group{n: n, stages: map[int]*stage{}, done: make(chan struct{})}
	}
	if g.resolving {
		return // a stray marker; the group already went ahead
	}
	st := &stage{g: g, idx: idx, ends: ends}
	g.stages[idx] = st
	for i, ino := range inodes {
		s.byPipe[ino] = g
		s.byEnd[ends[i]] = st
	}
}

// enclosed is called with the streams of a stage marker. A pipeline stage
// that holds one of them as its own pipe end, and has not had a first
// action yet, has a nested pipeline as its first action (`( a | b ) | c`,
// `x | { a | b; }`). That stage lets its group's question go ahead without
// it, as xargs does: the nested pipeline is a group of its own, asked about
// before any of its stages runs, and holding the enclosing stage until the
// nested one had a first step would wait on itself.
func (s *stages) enclosed(streams ...any) {
	for _, end := range streams {
		if f, ok := end.(*os.File); ok {
			if st, ok := s.byEnd[f]; ok && st.step == nil {
				st.silent = true
			}
		}
	}
}

// first returns the stage whose first action this is, if the action runs
// in a pipeline stage that has not had one yet. A stage that passed (a
// nested pipeline's enclosing stage) is skipped, so a nested stage that
// shares the enclosing stage's pipe end finds its own stage by its other
// end. stderr counts too: `cmd 2>&1 >/dev/null | grep x` writes the pipe
// only through it.
func (s *stages) first(stdin, stdout, stderr any) *stage {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, end := range []any{stdout, stdin, stderr} {
		f, ok := end.(*os.File)
		if !ok {
			continue
		}
		if st, ok := s.byEnd[f]; ok && st.step == nil && !st.silent && !st.g.root().resolving {
			return st
		}
	}
	return nil
}

// ended reports whether a stage finished without a first action.
func (st *stage) ended() bool {
	for _, f := range st.ends {
		if _, err := f.Stat(); errors.Is(err, os.ErrClosed) {
			return true
		}
	}
	return false
}

// arrive adds the stage's first step and waits until its group is checked.
// It returns the step's number, or the number of the refused step and the
// refusal that stops the script.
func (s *stages) arrive(ctx context.Context, st *stage, step approvals.Step, record func(approvals.Step) int, check func(context.Context, []approvals.Step) (int, error)) (n, refusedN int, err error) {
	s.mu.Lock()
	st.step, st.record = &step, record
	s.mu.Unlock()
	if err := s.await(ctx, st, check); err != nil {
		return 0, 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g := st.g.root()
	return st.number, g.refusedN, g.refused
}

// pass is the first action of a stage that has no step of its own but may
// block on its input (xargs, a shell reading its script): it lets the
// group's check go ahead without it and waits for it, so no stage waits on
// one that waits on it.
func (s *stages) pass(ctx context.Context, st *stage, check func(context.Context, []approvals.Step) (int, error)) (refusedN int, err error) {
	s.mu.Lock()
	st.silent = true
	s.mu.Unlock()
	if err := s.await(ctx, st, check); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g := st.g.root()
	return g.refusedN, g.refused
}

// await returns once the stage's group is checked, by this caller or
// another. Groups merge while stages arrive (a stage may join a pipeline
// that is itself a stage), so it looks again at the group's root each time.
func (s *stages) await(ctx context.Context, st *stage, check func(context.Context, []approvals.Step) (int, error)) error {
	s.mu.Lock()
	g := st.g.root()
	s.mu.Unlock()
	for !s.tryResolve(ctx, g, check) {
		s.mu.Lock()
		g = g.root()
		done := g.done
		s.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// tryResolve checks the group's steps when every stage has arrived or ended.
// Exactly one caller does the check; it reports whether the group is done.
func (s *stages) tryResolve(ctx context.Context, g *group, check func(context.Context, []approvals.Step) (int, error)) bool {
	s.mu.Lock()
	g = g.root()
	select {
	case <-g.done:
		s.mu.Unlock()
		return true
	default:
	}
	if g.resolving {
		s.mu.Unlock()
		return false
	}
	var ordered []*stage
	for i := 0; i < g.n; i++ {
		st, ok := g.stages[i]
		if !ok {
			s.mu.Unlock()
			return false
		}
		if st.silent {
			continue
		}
		if st.step == nil {
			if !st.ended() {
				s.mu.Unlock()
				return false
			}
			continue
		}
		ordered = append(ordered, st)
	}
	g.resolving = true
	for _, st := range g.stages {
		for _, f := range st.ends {
			delete(s.byEnd, f)
		}
	}
	for ino, h := range s.byPipe {
		if h.root() == g {
			delete(s.byPipe, ino)
		}
	}
	s.mu.Unlock()

	steps := make([]approvals.Step, len(ordered))
	for i, st := range ordered {
		steps[i] = *st.step
	}
	at, err := check(ctx, steps)
	s.mu.Lock()
	for i, st := range ordered {
		if err == nil || i <= at {
			st.number = st.record(*st.step)
		}
		if err != nil && i == at {
			g.refusedN = st.number
		}
	}
	g.refused = err
	close(g.done)
	s.mu.Unlock()
	return true
}
