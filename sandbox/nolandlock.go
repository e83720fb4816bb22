//go:build !linux

package sandbox

// ruleset is a built Landlock ruleset on Linux; elsewhere nothing is kept
// between starts.
type ruleset struct{}

func (*ruleset) close() {}

// spawner exists on Linux only; elsewhere there is none.
type spawner struct{}

// spawnerKey exists on Linux only.
type spawnerKey struct{}

// view exists on Linux only.
type view struct{}

func (*spawner) close() {}
