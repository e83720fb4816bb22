// Package mcphub is a front door's MCP hub: its MCP-call bridge and the
// servers its sessions share, wired the one way every door wires it. It
// starts from the user's own settings (mcp.bridge, mcp.capacity,
// mcp.autoAllow, mcp.servers; a workspace cannot widen them), and the bash
// steps and `mcp` tool calls of the door's sessions reach it through
// tools.Options.BashEnv. A session may have servers of its own beside the
// door's: those its editor named in ACP's session/new, and the workspace
// files of a folder the door does not serve already.
package mcphub

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/bridge"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/mcpclient"
	"github.com/tandemdev/tandem/tools"
)

// Options is what a door gives its bridge.
type Options struct {
	// Settings returns the door's settings; only the user's own are read.
	// Nil: those of the first session opened, for a door that loads them
	// per session (and reports their problems each time it does).
	Settings func() *config.Settings
	// Roots returns the folders whose workspace files name servers for
	// every session of the door; nil: none, each session reads its own.
	Roots   func() []string
	Version string       // tandem's, sent to the servers
	Log     *slog.Logger // nil: discarded
}

// Hub is one door's bridge and the servers every session of it shares.
// It starts on first use and stops with Close, which stops every server
// it started.
type Hub struct {
	o Options

	once    sync.Once
	b       *bridge.Bridge // nil: disabled by the user, or it could not start
	door    *mcpclient.Manager
	managed mcpclient.Options // how a session's own servers start
	roots   []string
	set     *config.Settings       // the user's servers are read from these
	watch   *mcpclient.ConfigWatch // nil: changed configs are not seen until tandem restarts
}

// New returns the hub of a door; nothing starts yet.
func New(o Options) *Hub {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Roots == nil {
		o.Roots = func() []string { return nil }
	}
	return &Hub{o: o}
}

// settings is the "mcp" section of the user's own settings.
type settings struct {
	Bridge    *bool           `json:"bridge"`   // default true
	Capacity  int             `json:"capacity"` // default 8, at most 16
	AutoAllow []string        `json:"autoAllow"`
	Servers   json.RawMessage `json:"servers"`
}

// Get is the bridge, started on first use; nil, logged, when the user
// disabled it or it could not start.
func (d *Hub) Get() *bridge.Bridge { return d.startWith(nil) }

// startWith starts the bridge once, from Options.Settings, else from
// first's.
func (d *Hub) startWith(first *config.Settings) *bridge.Bridge {
	d.once.Do(func() {
		if d.o.Settings != nil {
			first = d.o.Settings()
		}
		if first == nil {
			first = config.New()
		}
		d.start(first)
	})
	return d.b
}

func (d *Hub) start(set *config.Settings) {
	var m settings
	if v, ok := set.User("mcp"); ok {
		if err := v.Decode(&m); err != nil {
			d.o.Log.Warn("mcp-call bridge disabled: bad mcp settings", "err", err)
			return
		}
	}
	if m.Bridge != nil && !*m.Bridge {
		return
	}
	d.roots, d.set = d.o.Roots(), set
	cfg := d.load(m.Servers)
	// The approvals are remembered only in a private state directory: a
	// planted file there would start a workspace's server unasked.
	approved := ""
	if dir, err := config.PrivateStateDir(); err != nil {
		d.o.Log.Warn("approved MCP servers are not remembered; each start is asked", "err", err)
	} else {
		approved = filepath.Join(dir, "mcp-mcpclient.json")
	}
	d.managed = mcpclient.Options{
		Version:  d.o.Version,
		Approved: mcpclient.NewApproved(approved),
		Ask:      bridge.AskServerStart,
		Log:      d.o.Log,
	}
	d.door = mcpclient.NewManager(cfg, d.managed)
	log := d.o.Log
	b, err := bridge.New(d.door, bridge.Settings{Capacity: m.Capacity, AutoAllow: m.AutoAllow},
		func(format string, args ...any) { log.Info("mcp-call", "event", fmt.Sprintf(format, args...)) })
	if err != nil {
		d.door.Close()
		log.Warn("mcp-call bridge disabled", "err", err)
		return
	}
	d.b = b
	if d.watch, err = mcpclient.WatchConfig(d.roots, config.UserFile(), d.reload); err != nil {
		log.Warn("MCP configs are not watched: a server added is seen when tandem restarts", "err", err)
	}
}

// load reads the servers of the door's roots and the user's own, logging
// the problems met.
func (d *Hub) load(user json.RawMessage) mcpclient.Config {
	cfg := mcpclient.Load(d.roots, user, "mcp.servers of the user settings")
	for _, p := range cfg.Problems {
		d.o.Log.Warn("mcp config problem", "problem", p.Error())
	}
	return cfg
}

// reload reads the configs again after one changed (the user's settings
// file too when user), and gives the door's servers the new ones.
func (d *Hub) reload(user bool) {
	if user {
		if err := d.set.LoadUser(); err != nil {
			d.o.Log.Warn("the user settings file changed and was not read", "err", err)
		}
	}
	var m settings
	if v, ok := d.set.User("mcp"); ok {
		if err := v.Decode(&m); err != nil {
			d.o.Log.Warn("mcp settings changed and are not valid; the servers stay as they were", "err", err)
			return
		}
	}
	cfg := d.load(m.Servers)
	d.door.Reconfigure(cfg)
	d.o.Log.Info("mcp configs read again", "servers", cfg.Names())
}

// Close stops the bridge and the door's servers; a bridge not started yet
// never starts.
func (d *Hub) Close() {
	d.once.Do(func() {})
	if d.watch != nil {
		d.watch.Close()
	}
	if d.b != nil {
		d.b.Close()
	}
}

// Open opens a tools session as tools.Open does, with its bash steps and
// `mcp` calls reaching the bridge. named are the servers its editor named
// for it (ACP's mcpServers): they join its roster, for it alone, until it
// closes. A named server that is not valid is logged and shown by the `mcp`
// tool's list as a problem; one whose name the door or the session's
// workspace files configure is skipped, logged: the user's configuration
// wins.
func (d *Hub) Open(o tools.Options, named []acp.McpServer) *tools.Session {
	d.startWith(o.Settings)
	own := d.own(o.Roots, named)
	if own == nil {
		o.BashEnv = func(ctx context.Context, s *tools.Session) ([]string, func()) { return d.register(ctx, s, nil) }
		return tools.Open(o)
	}
	roster := mcpclient.Layered{Door: d.door, Own: own}
	o.BashEnv = func(ctx context.Context, s *tools.Session) ([]string, func()) { return d.register(ctx, s, roster) }
	s := tools.Open(o)
	s.OnClose(own.Close)
	return s
}

// register makes a bash call (or an `mcp` call) of s, running on ctx, an
// owner of the bridge while it runs.
func (d *Hub) register(ctx context.Context, s *tools.Session, roster bridge.Servers) ([]string, func()) {
	b := d.Get()
	if b == nil {
		return nil, nil
	}
	reg, err := b.AddOwner(bridge.Owner{Session: s.ID, Asker: s.Asker(), Servers: roster, ToolCall: approvals.ToolCallOf(ctx)})
	if err != nil {
		d.o.Log.Warn("mcp-call owner not registered", "err", err)
		return nil, nil
	}
	return reg.Env(), reg.Revoke
}

// own is the manager of a session's own servers on roots, nil when it has
// none or the bridge is off. Nothing starts until a call needs it.
func (d *Hub) own(roots []string, named []acp.McpServer) *mcpclient.Manager {
	if d.Get() == nil {
		return nil
	}
	var fresh []string
	for _, r := range roots {
		if !slices.Contains(d.roots, r) {
			fresh = append(fresh, r)
		}
	}
	cfg := mcpclient.Load(fresh, nil, "")
	doorCfg := d.door.Config()
	root := ""
	if len(roots) > 0 {
		root = roots[0]
	}
	for _, n := range named {
		def, err := clientDef(n, root)
		if err != nil {
			d.o.Log.Warn("mcp server of the editor refused", "err", err)
			cfg.Problems = append(cfg.Problems, err)
			continue
		}
		taken, ok := doorCfg.Servers[def.Name]
		if !ok {
			taken, ok = cfg.Servers[def.Name]
		}
		if ok {
			d.o.Log.Info("mcp server of the editor skipped: its name is configured", "server", def.Name, "configuredIn", taken.Source)
			continue
		}
		cfg.Servers[def.Name] = def
	}
	if len(cfg.Servers) == 0 && len(cfg.Problems) == 0 {
		return nil
	}
	return mcpclient.NewManager(cfg, d.managed)
}

// clientDef is a server of ACP's mcpServers as tandem configures one.
func clientDef(m acp.McpServer, root string) (mcpclient.Def, error) {
	var d mcpclient.Def
	switch {
	case m.Stdio != nil:
		d = mcpclient.Def{Name: m.Stdio.Name, Type: "stdio", Command: m.Stdio.Command, Args: m.Stdio.Args}
		if len(m.Stdio.Env) > 0 {
			d.Env = map[string]string{}
			for _, e := range m.Stdio.Env {
				d.Env[e.Name] = e.Value
			}
		}
	case m.Http != nil:
		d = mcpclient.Def{Name: m.Http.Name, Type: "http", URL: m.Http.Url, Headers: headers(m.Http.Headers)}
	case m.Sse != nil:
		d = mcpclient.Def{Name: m.Sse.Name, Type: "sse", URL: m.Sse.Url}
	case m.Acp != nil:
		d = mcpclient.Def{Name: m.Acp.Name, Type: "acp"}
	}
	c, err := mcpclient.Client(d, root)
	if err != nil {
		return mcpclient.Def{}, fmt.Errorf("the editor's server %q: %v", d.Name, err)
	}
	return c, nil
}

func headers(hs []acp.HttpHeader) map[string]string {
	if len(hs) == 0 {
		return nil
	}
	m := map[string]string{}
	for _, h := range hs {
		m[h.Name] = h.Value
	}
	return m
}
