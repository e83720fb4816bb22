package shell

import (
	"context"
	"io/fs"

	"github.com/tandemdev/tandem/third_party/mvdan-sh/interp"

	"github.com/tandemdev/tandem/approvals"
)

// gatedBuiltin marks the context of a builtin that already passed the gate
// as a step (test, [, cd, pushd): the files it looks at are its own words,
// judged with it, so looking at them asks nothing more.
type gatedBuiltin struct{}

// stat answers the interpreter's file tests. Whether a secret exists is the
// user's to reveal: `test -f ~/.ssh/id_ed25519` asks as a step, so the same
// probe written `[[ -f ~/.ssh/id_ed25519 ]]`, which is no command and reaches
// no other handler, must ask here. It looks at what was judged (see
// target.stat): if a step running beside it swaps a name for a link into
// ~/.ssh after the judgement, the test tells nothing of what is behind the
// link.
func (x *Run) stat(ctx context.Context, path string, follow bool) (_ fs.FileInfo, err error) {
	defer guard(&err)
	t, err := x.probe(ctx, path)
	if err != nil {
		return nil, err
	}
	if t.byName() {
		return interp.DefaultStatHandler()(ctx, path, follow)
	}
	return t.stat(follow)
}

// access answers -r, -w and -x the same way.
func (x *Run) access(ctx context.Context, path string, mode interp.AccessMode) (err error) {
	defer guard(&err)
	t, err := x.probe(ctx, path)
	if err != nil {
		return err
	}
	if t.byName() {
		return interp.DefaultAccessHandler()(ctx, path, mode)
	}
	return t.access(uint32(mode))
}

// probe judges a path a file test looks at, and gates looking at one that
// is or holds a secret, outside a gated builtin, as a step of its own.
func (x *Run) probe(ctx context.Context, path string) (target, error) {
	hc := interp.HandlerCtx(ctx)
	t := x.judgeTarget(hc.Dir, path, false)
	if ctx.Value(gatedBuiltin{}) != nil || !t.step.Effects.Has(approvals.Secret) {
		return t, x.stopped()
	}
	s := t.step
	s.Text = "[[ -e " + approvals.Show([]string{t.real.Path}) + " ]]"
	n, err := x.gate(ctx, hc, s)
	if err != nil {
		return t, err
	}
	x.ran(n, -1)
	return t, nil
}
