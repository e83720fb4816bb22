package mcpclient

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Layered is one session's roster, the MCP servers its calls reach: the
// servers of its front door, which every session of that door shares, and
// beside them the session's own (those of its folder's workspace files, and
// those its editor named for it). When the door has a server of a name,
// calls reach the door's, never the session's server of that name.
type Layered struct {
	Door, Own *Manager
}

// Config returns the door's servers and problems, and those of the
// session's own servers that the door's do not shadow.
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

// of returns the manager that serves name.
func (l Layered) of(name string) *Manager {
	if _, ok := l.Door.Config().Servers[name]; ok {
		return l.Door
	}
	return l.Own
}

// Tools lists the tools of server, through the manager that serves it
// (Manager.Tools).
func (l Layered) Tools(ctx context.Context, server string) ([]*mcp.Tool, error) {
	return l.of(server).Tools(ctx, server)
}

// Check reports whether server/tool exists, through the manager that
// serves server (Manager.Check).
func (l Layered) Check(ctx context.Context, server, tool string) error {
	return l.of(server).Check(ctx, server, tool)
}

// Call runs one tool call on the manager that serves server
// (Manager.Call).
func (l Layered) Call(ctx context.Context, server, tool string, args json.RawMessage) (Result, error) {
	return l.of(server).Call(ctx, server, tool, args)
}

// Close stops the session's own servers; the door's stay for its other
// sessions.
func (l Layered) Close() { l.Own.Close() }
