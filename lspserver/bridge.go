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
	err  error

	mu       sync.Mutex
	terminal *bridge.Registration
}

var bridges sync.Map // *Server → *serverBridge

// sessionServers maps a session to its connection, for the bash hook.
var sessionServers sync.Map // *tools.Session → *Server

func bridgeOf(s *Server) *serverBridge {
	v, _ := bridges.LoadOrStore(s, &serverBridge{})
	sb := v.(*serverBridge)
	sb.once.Do(func() { sb.b, sb.err = startBridge(s) })
	return sb
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

func startBridge(s *Server) (*bridge.Bridge, error) {
	m, err := userMCPSettings(s.Settings())
	if err != nil {
		s.Log().Warn("mcp-call bridge disabled: bad mcp settings", "err", err)
		return nil, err
	}
	if m.Bridge != nil && !*m.Bridge {
		return nil, nil
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
		return nil, err
	}
	return b, nil
}

func init() {
	onSessionOpen(func(s *Server, sess *tools.Session) {
		sessionServers.Store(sess, s)
		sess.OnClose(func() { sessionServers.Delete(sess) })
	})
	onExit(func(s *Server) {
		v, ok := bridges.LoadAndDelete(s)
		if !ok {
			return
		}
		sb := v.(*serverBridge)
		sb.once.Do(func() {}) // a bridge not started yet never starts
		if sb.b != nil {
			sb.b.Close()
		}
	})
	// Each bash call of a session of this connection is an owner while its
	// script runs.
	tools.AddBashEnv(func(_ context.Context, sess *tools.Session) ([]string, func()) {
		v, ok := sessionServers.Load(sess)
		if !ok {
			return nil, nil // a standalone session: no bridge
		}
		sb := bridgeOf(v.(*Server))
		if sb.b == nil {
			return nil, nil
		}
		// The session's Asker was attached when it opened, before any call.
		reg, err := sb.b.AddOwner(bridge.Owner{Session: sess.ID, Asker: sess.Asker})
		if err != nil {
			v.(*Server).Log().Warn("mcp-call owner not registered", "err", err)
			return nil, nil
		}
		return reg.Env(), reg.Revoke
	})
	// tandem/terminalEnv: the variables the editor puts into the integrated
	// terminals it opens, so `tandem mcp call` works there. One owner per
	// connection, revoked when the connection ends. An empty object means no
	// bridge (disabled in the user's settings).
	onRequest("tandem/terminalEnv", func(_ context.Context, s *Server, params json.RawMessage) (any, error) {
		var p struct{}
		if len(params) > 0 && string(params) != "null" {
			if err := decodeParams("tandem/terminalEnv", params, &p); err != nil {
				return nil, err
			}
		}
		sb := bridgeOf(s)
		env := map[string]string{}
		if sb.b == nil {
			return map[string]any{"env": env}, nil
		}
		sb.mu.Lock()
		defer sb.mu.Unlock()
		if sb.terminal == nil {
			reg, err := sb.b.AddOwner(bridge.Owner{Session: "terminal", Asker: routerOf(s)})
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
	})
}
