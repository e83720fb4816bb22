package lspserver

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/tandemdev/tandem/bridge"
	"github.com/tandemdev/tandem/tools/mcpbridge"
)

// The MCP-call bridge of one editor connection (see mcpbridge): started on
// first use, stopped with the connection, which stops every MCP server it
// started.
//
// Owners: each bash call and `mcp` call of a session (mcpbridge.Open; an
// ACP session's roster holds the mcpServers its session/new named), and
// the editor's integrated terminals (tandem/terminalEnv, revoked when the
// connection ends).
type serverBridge struct {
	mcp *mcpbridge.Bridge

	mu       sync.Mutex
	terminal *bridge.Registration
}

// tandem/terminalEnv: the variables the editor puts into the integrated
// terminals it opens, so `tandem mcp call` works there. One owner per
// connection, revoked when the connection ends. An empty object means no
// bridge (disabled in the user's settings).
func (s *Server) terminalEnv(_ context.Context, params json.RawMessage) (any, error) {
	var p struct{}
	if len(params) > 0 && string(params) != "null" {
		if err := decodeParams("tandem/terminalEnv", params, &p); err != nil {
			return nil, err
		}
	}
	env := map[string]string{}
	b := s.bridge.mcp.Get()
	if b == nil {
		return map[string]any{"env": env}, nil
	}
	sb := &s.bridge
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.terminal == nil {
		reg, err := b.AddOwner(bridge.Owner{Session: "terminal", Asker: s.router})
		if err != nil {
			return nil, errorf("The MCP bridge took no terminal owner (%v); the terminal gets no bridge. Reload the editor window to start a new tandem.", err)
		}
		sb.terminal = reg
	}
	for _, kv := range sb.terminal.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return map[string]any{"env": env}, nil
}
