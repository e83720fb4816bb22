package mcpclient

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Layered is one session's roster: the servers of its front door, shared by
// every session of it, and beside them the session's own (its folder's
// workspace files, the servers its editor named for it). A name the door's
// servers hold is theirs: the session's server of that name is not reached.
type Layered struct {
	Door, Own *Manager
}

// Config is the door's servers and problems, and the session's own that
// the door does not shadow.
func (l Layered) Config() Config {
	door, own := l.Door.Config(), l.Own.Config()
	c := Config{Servers: map[string]Def{}, Problems: append(append([]error(nil), door.Problems...), own.Problems...)}
	for n, d := range own.Servers {
		c.Servers[n] = d
	}
	for n, d := range door.Servers {
		c.Servers[n] = d
	}
	return c
}

// of is the manager that serves name.
func (l Layered) of(name string) *Manager {
	if _, ok := l.Door.Config().Servers[name]; ok {
		return l.Door
	}
	return l.Own
}

func (l Layered) Tools(ctx context.Context, server string) ([]*mcp.Tool, error) {
	return l.of(server).Tools(ctx, server)
}

func (l Layered) Check(ctx context.Context, server, tool string) error {
	return l.of(server).Check(ctx, server, tool)
}

func (l Layered) Call(ctx context.Context, server, tool string, args json.RawMessage) (Result, error) {
	return l.of(server).Call(ctx, server, tool, args)
}

// Close stops the session's own servers; the door's stay for its other
// sessions.
func (l Layered) Close() { l.Own.Close() }
