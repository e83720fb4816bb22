//go:build !linux

package sandbox

// ruleset is Landlock's; elsewhere nothing is kept between starts.
type ruleset struct{}

func (*ruleset) close() {}

// spawner is Linux's; elsewhere there is none.
type spawner struct{}

// spawnerKey is Linux's.
type spawnerKey struct{}

// view is Linux's.
type view struct{}

func (*spawner) close() {}
