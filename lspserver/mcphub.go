package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tandemdev/tandem/bridge"
	"github.com/tandemdev/tandem/tools"
	"github.com/tandemdev/tandem/tools/mcphub"
)

// The MCP hub of one editor connection (see mcphub): started on
// first use, stopped with the connection, which stops every MCP server it
// started.
//
// Owners: each bash call and `mcp` call of a session (mcphub.Open; an
// ACP session's roster holds the mcpServers its session/new named), and
// the editor's integrated terminals (tandem/terminalEnv, revoked when the
// connection ends), and the discovery entries of the workspace roots. The
// last two serve tools sessions to `tandem mcp serve` (see hostedTools).
type connHub struct {
	mcp *mcphub.Hub

	mu       sync.Mutex
	terminal *bridge.Registration
	hosts    []*hostedTools
	// discovery owns the discovery entries (admitted by peer credentials,
	// so no entry holds a token); entries withdraws each root's entry.
	// Both nil until initialized.
	discovery *bridge.Registration
	entries   map[string]func()
}

// hostLocked is a new owner's tools sessions, closed with the connection.
// ch.mu must be held.
func (ch *connHub) hostLocked(s *Server) *hostedTools {
	h := &hostedTools{s: s, sessions: map[string]*tools.Session{}}
	ch.hosts = append(ch.hosts, h)
	return h
}

// close withdraws the discovery entries and closes every hosted session;
// the bridge itself stops after (its connections wait for their calls).
func (ch *connHub) close() {
	ch.mu.Lock()
	entries, owner, hosts := ch.entries, ch.discovery, ch.hosts
	ch.entries, ch.discovery, ch.hosts = nil, nil, nil
	ch.mu.Unlock()
	for _, withdraw := range entries {
		withdraw()
	}
	if owner != nil {
		owner.Revoke()
	}
	for _, h := range hosts {
		h.closeAll()
	}
}

// announce writes a discovery entry for each workspace root, so a `tandem
// mcp serve` started outside the editor's terminals, in one of them, finds
// this editor; it runs once the client is initialized, and again when the
// folders change (an entry for each added folder, none left for a removed
// one). Nothing when the user disabled the bridge.
func (s *Server) announce() {
	b := s.hub.mcp.Get()
	if b == nil {
		return
	}
	ch := &s.hub
	ch.mu.Lock()
	defer ch.mu.Unlock()
	roots := s.Roots() // under ch.mu: the last change's announce ends last
	if ch.discovery == nil {
		reg, err := b.AddOwner(bridge.Owner{Session: "discovered", Asker: s.router, Tools: ch.hostLocked(s), ByPeer: true})
		if err != nil {
			s.log.Warn("no discovery entry: the bridge took no owner", "err", err)
			return
		}
		ch.discovery, ch.entries = reg, map[string]func(){}
	}
	for root, withdraw := range ch.entries {
		if !slices.Contains(roots, root) {
			withdraw()
			delete(ch.entries, root)
		}
	}
	for _, r := range roots {
		if ch.entries[r] != nil {
			continue
		}
		withdraw, err := bridge.Announce(r, ch.discovery.Socket())
		if err != nil {
			s.log.Warn("no discovery entry for a workspace folder", "folder", r, "err", err)
			continue
		}
		ch.entries[r] = withdraw
	}
}

// reannounce follows a change of the workspace folders, once the first
// announce ran.
func (s *Server) reannounce() {
	s.hub.mu.Lock()
	started := s.hub.discovery != nil
	s.hub.mu.Unlock()
	if started {
		s.announce()
	}
}

// maxHosted bounds the sessions one owner holds: each holds memory and
// may run jobs, and a session whose client cannot be watched (no peer
// credentials) stays open until the editor's connection ends.
const maxHosted = 32

// hostedTools is one owner's tools sessions (bridge.Tools), each opened for
// one MCP client of `tandem mcp serve` as the editor's own sessions are:
// the editor's buffers, applyEdit, prompts and settings.
type hostedTools struct {
	s        *Server
	mu       sync.Mutex
	sessions map[string]*tools.Session
	closed   bool
}

var errHostClosed = errors.New("the editor's tandem is stopping; its tools sessions are closed. Start the agent again from a running editor's terminal")

func (h *hostedTools) Open(ctx context.Context) ([]byte, error) {
	roots := h.s.Roots()
	if len(roots) == 0 {
		return nil, errors.New("the editor named no workspace folder; open a folder in the editor, then start the agent again")
	}
	h.mu.Lock()
	n, closed := len(h.sessions), h.closed
	h.mu.Unlock()
	if closed {
		return nil, errHostClosed
	}
	if n >= maxHosted {
		return nil, fmt.Errorf("this editor already serves %d agents' sessions; quit an agent (its session ends with it) and start it again", n)
	}
	sess := h.s.openTools("", roots, nil)
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		sess.Close()
		return nil, errHostClosed
	}
	h.sessions[sess.ID] = sess
	h.mu.Unlock()
	// A client killed before it closed its session does not leave it open.
	sess.OnClose(bridge.OnPeerExit(ctx, func() { _ = h.Close(sess.ID) }))
	h.s.log.Info("session opened for mcp serve", "session", sess.ID, "roots", len(roots))
	return json.Marshal(bridge.OpenReply{Session: sess.ID, Tools: tools.MCPTools(sess)})
}

func (h *hostedTools) session(id string) (*tools.Session, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if sess := h.sessions[id]; sess != nil {
		return sess, nil
	}
	if h.closed {
		return nil, errHostClosed
	}
	return nil, fmt.Errorf("there is no open tools session %q here; restart the MCP server to open a new one", id)
}

func (h *hostedTools) Call(ctx context.Context, id, tool string, args json.RawMessage) ([]byte, error) {
	sess, err := h.session(id)
	if err != nil {
		return nil, err
	}
	return json.Marshal(tools.Call(ctx, sess, tool, args).MCP())
}

func (h *hostedTools) Close(id string) error {
	sess, err := h.session(id)
	if err != nil {
		return err
	}
	h.mu.Lock()
	delete(h.sessions, id)
	h.mu.Unlock()
	sess.Close()
	return nil
}

func (h *hostedTools) closeAll() {
	h.mu.Lock()
	ss := h.sessions
	h.sessions, h.closed = nil, true
	h.mu.Unlock()
	for _, sess := range ss {
		sess.Close()
	}
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
	b := s.hub.mcp.Get()
	if b == nil {
		return map[string]any{"env": env}, nil
	}
	ch := &s.hub
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.terminal == nil {
		reg, err := b.AddOwner(bridge.Owner{Session: "terminal", Asker: s.router, Tools: ch.hostLocked(s)})
		if err != nil {
			return nil, errorf("The MCP bridge took no terminal owner (%v); the terminal gets no bridge. Reload the editor window to start a new tandem.", err)
		}
		ch.terminal = reg
	}
	for _, kv := range ch.terminal.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return map[string]any{"env": env}, nil
}
