package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/bridge/core"
	"github.com/tandemdev/tandem/mcpclient"
)

// MaxConns bounds the connections the bridge serves at once; each has one
// goroutine. A connection past it is told busy and closed unread.
const MaxConns = 64

// Settings are the bridge's rules, read only from the user's own settings.
type Settings struct {
	// Capacity is how many requests the bridge holds at once (1..16; 0 is
	// the default, 8). Past it, requests are refused busy.
	Capacity int
	// AutoAllow lists tools that run without a question: "server/tool", or
	// "server/*" for every tool of a server.
	AutoAllow []string
}

// Owner is whoever one registration admits to call through the bridge: one
// running bash call, one editor session's integrated terminals, or an
// editor's discovery entries (ByPeer). Its questions go to Asker, as
// questions of its session.
type Owner struct {
	Session string          // the session a question names, and the scope of "allow for this session"
	Asker   approvals.Asker // nil: nobody can answer, so calls needing a yes are denied at once
	// Servers are the MCP servers the owner's calls reach (its roster)
	// when its session has servers of its own: mcpclient.Layered over the
	// bridge's. If nil, the calls reach the bridge's servers. The owner
	// closes Servers, not the bridge.
	Servers Servers
	// ToolCall is the agent's tool call the owner runs for (a bash step's
	// or an mcp call's), named by its questions; empty outside a chat.
	ToolCall string
	// Who names the owner in its questions when it is not the agent (the
	// editor's terminal, where the user runs commands); empty: the agent.
	Who string
	// Tools serves the owner's tandem tools sessions (the open, tool and
	// close operations). If nil, the owner has none.
	Tools Tools
	// ByPeer admits a request that carries no token when the kernel's
	// peer credentials show that a process of this user sent it. It is for
	// the owner of the discovery entries: an entry is a file, and a file
	// is no place for a token. At most one owner of a bridge is ByPeer.
	ByPeer bool
}

// Tools hosts an owner's tandem tools sessions, each opened for one MCP
// client of `tandem mcp serve`. Its methods return the bytes of the reply:
// JSON that the serving tandem reads back.
type Tools interface {
	// Open opens a session and returns an OpenReply.
	Open(ctx context.Context) ([]byte, error)
	// Call calls a tool of an open session and returns its MCP
	// CallToolResult; a tool's refusal is a result, not an error.
	Call(ctx context.Context, session, tool string, args json.RawMessage) ([]byte, error)
	// Close ends a session, its calls and its jobs.
	Close(session string) error
}

// OpenReply is the body of an open request's reply: the session and the
// tools it serves, as an MCP server lists them.
type OpenReply struct {
	Session string      `json:"session"`
	Tools   []*mcp.Tool `json:"tools"`
}

// serversOf returns the servers an owner's calls reach (its roster).
func (b *Bridge) serversOf(o Owner) Servers {
	if o.Servers != nil {
		return o.Servers
	}
	return b.servers
}

// Bridge is the I/O shell of one tandem process's bridge: it owns the
// socket and its connections, turns what happens on them into core events,
// and runs the effects the core returns. Its state has one writer: every
// core step runs under mu.
type Bridge struct {
	servers  Servers
	settings Settings
	logf     func(format string, args ...any)

	mu        sync.Mutex
	st        core.State
	owners    map[core.OwnerID]Owner
	nextOwner core.OwnerID
	reqs      map[core.RequestID]*request
	byPeer    *core.Token     // the ByPeer owner's token, held only here
	allowed   map[string]bool // session + "\x00" + server/tool, answered "allow for this session"
	ln        net.Listener
	readLimit time.Duration // how long a client may take to send its line
	dir       string        // the private directory holding the socket
	conns     int
	wg        sync.WaitGroup
}

// Servers is what the bridge needs of its MCP client; *mcpclient.Manager is
// the one tandem runs. The seam lets a benchmark measure the bridge's own
// cost apart from an MCP server's.
type Servers interface {
	Config() mcpclient.Config
	Tools(ctx context.Context, server string) ([]*mcp.Tool, error)
	Check(ctx context.Context, server, tool string) error
	Call(ctx context.Context, server, tool string, args json.RawMessage) (mcpclient.Result, error)
	Close()
}

// New opens a bridge over the servers m reaches. logf receives one line per
// stale, dropped or lost event, under "mcp-call"; it never gets a token,
// arguments or a result. Nothing listens until the first owner.
func New(m Servers, set Settings, logf func(format string, args ...any)) (*Bridge, error) {
	if set.Capacity == 0 {
		set.Capacity = core.DefaultCapacity
	}
	st, err := core.New(set.Capacity)
	if err != nil {
		return nil, err
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	b := &Bridge{
		servers: m, settings: set, logf: logf, st: st,
		readLimit: ReadTimeout,
		owners:    map[core.OwnerID]Owner{},
		reqs:      map[core.RequestID]*request{},
		allowed:   map[string]bool{},
	}
	b.mu.Lock()
	b.applyLocked(core.Event{Kind: core.Started}, nil)
	b.mu.Unlock()
	return b, nil
}

// Registration is an owner in force (added and not yet revoked): the
// variables its commands get, and the way to revoke it.
type Registration struct {
	b      *Bridge
	id     core.OwnerID
	token  string
	byPeer bool
	once   sync.Once
}

// Env returns the variables to add to the environment of the owner's
// commands, after any removal of credentials: the socket path and the
// token.
func (r *Registration) Env() []string {
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	if r.b.ln == nil {
		return nil
	}
	return []string{EnvSocket + "=" + r.b.socketPath(), EnvToken + "=" + r.token}
}

// Revoke ends the owner: its token stops working, its waiting prompts are
// withdrawn and its calls cancelled. When the last owner goes, the socket
// and its directory are removed. Revoke is idempotent.
func (r *Registration) Revoke() {
	r.once.Do(func() {
		b := r.b
		b.mu.Lock()
		defer b.mu.Unlock()
		b.applyLocked(core.Event{Kind: core.OwnerRemoved, Owner: r.id}, nil)
		delete(b.owners, r.id)
		if r.byPeer {
			b.byPeer = nil
		}
		if b.st.Owners() == 0 {
			b.closeListenerLocked()
		}
	})
}

// ErrOwnerRejected means the core did not take the registration: the bridge
// is stopped or holds its maximum of owners. The owner's commands then get
// no bridge variables.
var ErrOwnerRejected = errors.New("the MCP bridge takes no more owners now")

// ErrSecondPeerOwner means a ByPeer owner is already in force: a request
// without a token could not tell which one it is for.
var ErrSecondPeerOwner = errors.New("the MCP bridge already has an owner admitted by peer credentials")

// AddOwner registers an owner with a fresh token, creating the socket if
// this is the first owner.
func (b *Bridge) AddOwner(o Owner) (*Registration, error) {
	var tok core.Token
	if _, err := rand.Read(tok[:]); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.st.Open() {
		return nil, ErrOwnerRejected
	}
	if o.ByPeer && b.byPeer != nil {
		return nil, ErrSecondPeerOwner
	}
	if b.ln == nil {
		if err := b.listenLocked(); err != nil {
			return nil, fmt.Errorf("creating the MCP bridge socket: %w", err)
		}
	}
	b.nextOwner++
	id := b.nextOwner
	effs := b.applyLocked(core.Event{Kind: core.OwnerAdded, Owner: id, Token: tok}, nil)
	for _, e := range effs.List() {
		if e.Kind == core.Log && e.Log == core.OwnerRejected {
			if b.st.Owners() == 0 {
				b.closeListenerLocked()
			}
			return nil, ErrOwnerRejected
		}
	}
	if o.Asker == nil {
		o.Asker = approvals.Nobody
	}
	b.owners[id] = o
	if o.ByPeer {
		b.byPeer = &tok
	}
	return &Registration{b: b, id: id, token: hex.EncodeToString(tok[:]), byPeer: o.ByPeer}, nil
}

// Socket returns the bridge's socket path while the owner is in force, and
// "" once it is revoked.
func (r *Registration) Socket() string {
	r.b.mu.Lock()
	defer r.b.mu.Unlock()
	if r.b.ln == nil {
		return ""
	}
	return r.b.socketPath()
}

// Close stops the bridge: every token is revoked, prompts are withdrawn,
// calls cancelled, the socket removed; then it waits for the connections to
// end and stops every MCP server with its process group.
func (b *Bridge) Close() {
	b.mu.Lock()
	if b.st.Open() {
		b.applyLocked(core.Event{Kind: core.Stopped}, nil)
	}
	b.closeListenerLocked()
	for _, r := range b.reqs {
		r.conn.Close() // a slow reader must not hold the stop
	}
	b.mu.Unlock()
	b.wg.Wait()
	b.servers.Close()
}

// SocketDir returns the private directory of the socket, or "" while no
// owner is in force.
func (b *Bridge) SocketDir() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dir
}

func (b *Bridge) socketPath() string { return filepath.Join(b.dir, "s") }

// listenLocked creates a new private directory with a random name under
// $XDG_RUNTIME_DIR (else the temp dir) and listens in it. A fresh directory
// means no stale socket can be in the way, and its 0700 mode keeps other
// users out.
func (b *Bridge) listenLocked() error {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if fi, err := os.Stat(base); base == "" || err != nil || !fi.IsDir() {
		base = os.TempDir()
	}
	sweepStale(base)
	dir, err := os.MkdirTemp(base, "tandem-mcp-")
	if err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		os.RemoveAll(dir)
		return err
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(true)
	b.ln, b.dir = ln, dir
	b.wg.Add(1)
	go b.accept(ln)
	return nil
}

func (b *Bridge) closeListenerLocked() {
	if b.ln == nil {
		return
	}
	b.ln.Close()
	os.RemoveAll(b.dir)
	b.ln, b.dir = nil, ""
}

func (b *Bridge) accept(ln net.Listener) {
	defer b.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return // closed
		}
		b.mu.Lock()
		full := b.conns >= MaxConns
		if !full {
			b.conns++
			b.wg.Add(1)
		}
		b.mu.Unlock()
		if full {
			b.logf("mcp-call kind=too_many_connections")
			_ = writeReply(c, Header{Status: StatusBusy, Reason: reasonText(StatusBusy)}, nil)
			c.Close()
			continue
		}
		go b.serve(c)
	}
}

// allowKey is the key of an "allow for this session" answer: the owner's
// session, which is the answer's scope, and the tool.
func allowKey(session, tool string) string { return session + "\x00" + tool }

// sweepStale removes the socket directories of tandem processes that died
// without cleaning up (killed, crashed): a directory of ours whose socket
// refuses connections has no listener left. A live bridge's socket accepts,
// and a directory without a socket yet is left alone.
func sweepStale(base string) {
	dirs, _ := filepath.Glob(filepath.Join(base, "tandem-mcp-*"))
	for _, d := range dirs {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Getuid() {
			continue
		}
		c, err := net.Dial("unix", filepath.Join(d, "s"))
		if err == nil {
			c.Close()
			continue
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			os.RemoveAll(d)
		}
	}
}
