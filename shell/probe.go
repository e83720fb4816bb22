package shell

import (
	"context"
	"io/fs"

	"mvdan.cc/sh/v3/interp"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/shell/classify"
)

// gatedBuiltin marks the context of a builtin that already passed the gate
// as a step (test, [, cd, pushd): the files it looks at are its own words,
// judged with it, so looking at them asks nothing more.
type gatedBuiltin struct{}

// stat answers the interpreter's file tests. Whether a secret exists is the
// user's to reveal: `test -f ~/.ssh/id_ed25519` asks as a step, so the same
// probe written `[[ -f ~/.ssh/id_ed25519 ]]`, which is no command and reaches
// no other handler, must ask here.
func (x *Run) stat(ctx context.Context, path string, follow bool) (_ fs.FileInfo, err error) {
	defer guard(&err)
	if err := x.probe(ctx, path); err != nil {
		return nil, err
	}
	return interp.DefaultStatHandler()(ctx, path, follow)
}

// access answers -r, -w and -x the same way.
func (x *Run) access(ctx context.Context, path string, mode interp.AccessMode) (err error) {
	defer guard(&err)
	if err := x.probe(ctx, path); err != nil {
		return err
	}
	return interp.DefaultAccessHandler()(ctx, path, mode)
}

// probe gates looking at a path that is or holds a secret, outside a gated
// builtin, as a step of its own.
func (x *Run) probe(ctx context.Context, path string) error {
	if ctx.Value(gatedBuiltin{}) != nil {
		return x.stopped()
	}
	hc := interp.HandlerCtx(ctx)
	s := classify.Redirect(path, false, hc.Dir, x.policy)
	if !s.Effects.Has(approvals.Secret) {
		return x.stopped()
	}
	real := path
	if len(s.Paths) == 1 && s.Paths[0].Real != "" {
		real = s.Paths[0].Real
	}
	s.Text = "[[ -e " + approvals.Show([]string{real}) + " ]]"
	n, err := x.gate(ctx, hc, s)
	if err != nil {
		return err
	}
	x.ran(n, -1)
	return nil
}
