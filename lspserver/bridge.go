package lspserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tandemdev/tandem/bridge"
	"github.com/tandemdev/tandem/bridge/servers"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/tools"
)

// The MCP-call bridge of one editor connection. It is created on first use
// (the first bash call, or the editor asking for terminal variables) and
// stopped with the connection, which stops every MCP server it started.
//
// Owners: each bash call of a session (registered through the bash tool's
// environment hook, revoked when its script ends), and the editor's
// integrated terminals (tandem/terminalEnv, revoked when the connection
// ends). Whether the bridge exists at all, which tools run unasked, and the
// user's own MCP servers come from the user's settings only.
type serverBridge struct {
	once sync.Once
	b    *bridge.Bridge // nil: disabled by the user, or it could not start

	mu       sync.Mutex
	terminal *bridge.Registration
}

// mcpBridge is the connection's bridge, started on first use; nil when the
// user disabled it or it could not start.
func (s *Server) mcpBridge() *bridge.Bridge {
	sb := &s.bridge
	sb.once.Do(func() { sb.b = startBridge(s) })
	return sb.b
}

// mcpSettings is the "mcp" section of the user's own settings.
type mcpSettings struct {
	Bridge    *bool           `json:"bridge"`   // default true
	Capacity  int             `json:"capacity"` // default 8, at most 16
	AutoAllow []string        `json:"autoAllow"`
	Servers   json.RawMessage `json:"servers"`
}

func userMCPSettings(set *config.Settings) (mcpSettings, error) {
	var m mcpSettings
	if v, ok := set.User("mcp"); ok {
		if err := v.Decode(&m); err != nil {
			return mcpSettings{}, err
		}
	}
	return m, nil
}

// startBridge starts the bridge the user's settings describe; nil, logged,
// when they disable it or it cannot start.
func startBridge(s *Server) *bridge.Bridge {
	m, err := userMCPSettings(s.Settings())
	if err != nil {
		s.Log().Warn("mcp-call bridge disabled: bad mcp settings", "err", err)
		return nil
	}
	if m.Bridge != nil && !*m.Bridge {
		return nil
	}
	cfg := servers.Load(s.Roots(), m.Servers, "mcp.servers of the user settings")
	for _, p := range cfg.Problems {
		s.Log().Warn("mcp config problem", "problem", p.Error())
	}
	mgr := servers.NewManager(cfg, servers.Options{
		Version:  s.opts.Version,
		Approved: servers.NewApproved(filepath.Join(config.StateDir(), "mcp-servers.json")),
		Ask:      bridge.AskServerStart,
	})
	log := s.Log()
	b, err := bridge.New(mgr, bridge.Settings{Capacity: m.Capacity, AutoAllow: m.AutoAllow},
		func(format string, args ...any) { log.Info("mcp-call", "event", fmt.Sprintf(format, args...)) })
	if err != nil {
		mgr.Close()
		s.Log().Warn("mcp-call bridge disabled", "err", err)
		return nil
	}
	return b
}

// stop stops the bridge with its connection; a bridge not started yet
// never starts.
func (sb *serverBridge) stop() {
	sb.once.Do(func() {})
	if sb.b != nil {
		sb.b.Close()
	}
}

// bashEnv makes each bash call of a session of this connection an owner of
// the bridge while its script runs.
func (s *Server) bashEnv(_ context.Context, sess *tools.Session) ([]string, func()) {
	b := s.mcpBridge()
	if b == nil {
		return nil, nil
	}
	reg, err := b.AddOwner(bridge.Owner{Session: sess.ID, Asker: sess.Asker()})
	if err != nil {
		s.log.Warn("mcp-call owner not registered", "err", err)
		return nil, nil
	}
	return reg.Env(), reg.Revoke
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
	b := s.mcpBridge()
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
