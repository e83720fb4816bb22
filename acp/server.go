// Package acpdoor is tandem's ACP front door: `tandem acp` serves one ACP
// v1 client (Zed, JetBrains, CodeCompanion, avante…) over newline-delimited
// JSON-RPC on stdio, with a tandem agent chat for each ACP session. Its
// tools sessions are opened as every front door's are (tools.Open, the
// user's own settings), and their questions go to the client as
// session/request_permission.
//
// The package is named acpdoor, not acp, because it and its callers import
// the ACP SDK, whose package is acp: each side then needs no alias.
package acpdoor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/tools"
)

// ProviderFunc builds the model client of a chat for model ("PROVIDER/MODEL";
// empty: the user's setting agent.model). Its error is one sentence saying
// what to set; the client sees it when a prompt is sent.
type ProviderFunc func(st *config.Settings, model string) (providers.Provider, agent.Endpoint, error)

// Options is what Serve is given by its command.
type Options struct {
	Log     *slog.Logger // nil: discarded
	Version string       // tandem's, sent as agentInfo.version
	// Settings returns the settings a new session is opened with: the
	// user's own file loaded, its problems already reported where the user
	// looks. Nil: empty settings, the defaults.
	Settings func() *config.Settings
	// Provider builds each chat's model client. Nil: every prompt fails
	// with an error saying no model can be reached.
	Provider ProviderFunc
}

// server is one client's connection and its sessions.
type server struct {
	o    Options
	conn *acp.AgentSideConnection
	// life ends when the connection does: a turn runs on it rather than
	// on its request's context (see Prompt).
	life context.Context

	mu       sync.Mutex
	sessions map[acp.SessionId]*session
	closed   bool
}

// Serve answers the client on in and out until in ends or ctx does, then
// closes every session: their turns stop and every process their tools
// started ends before Serve returns.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Settings == nil {
		o.Settings = config.New
	}
	if o.Provider == nil {
		o.Provider = func(*config.Settings, string) (providers.Provider, agent.Endpoint, error) {
			return nil, agent.Endpoint{}, errors.New("this tandem cannot reach any model: it was built without model clients")
		}
	}
	life, end := context.WithCancel(ctx)
	defer end()
	s := &server{o: o, life: life, sessions: map[acp.SessionId]*session{}}
	started := make(chan struct{})
	s.conn = acp.NewAgentSideConnection(s, out, gatedReader{in, started})
	s.conn.SetLogger(o.Log)
	close(started)
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	end()
	s.mu.Lock()
	s.closed = true
	all := s.sessions
	s.sessions = nil
	s.mu.Unlock()
	for _, sess := range all {
		sess.close()
	}
	o.Log.Info("connection ended", "sessions", len(all))
}

// gatedReader reads r once open is closed. The connection starts reading
// in its constructor, and its handlers use the server's connection: no
// message may be handled before the server holds it.
type gatedReader struct {
	r    io.Reader
	open <-chan struct{}
}

func (g gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}

// failure is an error the client shows: its message is the sentence
// itself, not a generic "Internal error" with the sentence tucked in data.
func failure(code int, err error) *acp.RequestError {
	return &acp.RequestError{Code: code, Message: err.Error()}
}

// JSON-RPC codes tandem answers with.
const (
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

func (s *server) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	s.o.Log.Info("initialize", "clientProtocol", p.ProtocolVersion, "client", clientName(p.ClientInfo))
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{
			PromptCapabilities:  acp.PromptCapabilities{EmbeddedContext: true},
			SessionCapabilities: acp.SessionCapabilities{Close: &acp.SessionCloseCapabilities{}},
		},
		AgentInfo:   &acp.Implementation{Name: "tandem", Version: s.o.Version},
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

func clientName(info *acp.Implementation) string {
	if info == nil {
		return ""
	}
	return info.Name + " " + info.Version
}

// NewSession opens a tools session on cwd and its chat. A model that
// cannot be reached does not fail it: the reason is the answer to the
// session's prompts until the model option names one that can.
func (s *server) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	// The cwd is the workspace root every relative path resolves from and
	// the gate judges inside and outside by: it must be a real directory.
	if fi, err := os.Stat(p.Cwd); !filepath.IsAbs(p.Cwd) || err != nil || !fi.IsDir() {
		return acp.NewSessionResponse{}, failure(codeInvalidParams, fmt.Errorf("cwd %q is not an absolute path of a directory; send the workspace's absolute path", p.Cwd))
	}
	st := s.o.Settings()
	ts := tools.Open(tools.Options{Roots: []string{p.Cwd}, Settings: st, Asker: asker{s.conn}})
	sess := &session{id: acp.SessionId(ts.ID), tools: ts, settings: st, system: agent.SystemPrompt(ts.Roots), provider: s.o.Provider}
	sess.setModel("")
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ts.Close()
		return acp.NewSessionResponse{}, failure(codeInvalidRequest, errors.New("the connection is closing"))
	}
	s.sessions[sess.id] = sess
	s.mu.Unlock()
	s.o.Log.Info("session opened", "session", sess.id, "cwd", p.Cwd, "model", sess.modelName(), "mcpServers", len(p.McpServers))
	return acp.NewSessionResponse{SessionId: sess.id, ConfigOptions: sess.configOptions()}, nil
}

// lookup finds a session the client opened.
func (s *server) lookup(id acp.SessionId) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.sessions[id]; ok {
		return sess, nil
	}
	return nil, failure(codeInvalidParams, fmt.Errorf("there is no session %q; open one with session/new", id))
}

// Prompt runs one turn. It runs on the connection's life, not on the
// request's context: the SDK cancels a session's running prompt when a
// second one arrives, and tandem instead refuses the second and lets the
// first go on. session/cancel, session/close and the end of the
// connection stop it.
func (s *server) Prompt(_ context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	sess, err := s.lookup(p.SessionId)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	stop, err := sess.prompt(s.life, p.Prompt, func(u acp.SessionUpdate) {
		// Not the turn's context: a cancelled turn still reports how
		// its calls ended.
		if err := s.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: sess.id, Update: u}); err != nil {
			s.o.Log.Debug("session/update not sent", "session", sess.id, "err", err)
		}
	})
	s.o.Log.Info("prompt ended", "session", sess.id, "stopReason", stop, "err", err)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: stop}, nil
}

func (s *server) Cancel(_ context.Context, p acp.CancelNotification) error {
	if sess, err := s.lookup(p.SessionId); err == nil {
		sess.cancel()
	}
	return nil
}

func (s *server) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	s.mu.Lock()
	sess, ok := s.sessions[p.SessionId]
	delete(s.sessions, p.SessionId)
	s.mu.Unlock()
	if ok {
		sess.close()
	}
	return acp.CloseSessionResponse{}, nil
}

func (s *server) SetSessionConfigOption(_ context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	if p.ValueId == nil || p.ValueId.ConfigId != configModel {
		return acp.SetSessionConfigOptionResponse{}, failure(codeInvalidParams, fmt.Errorf("tandem has one config option, %q, which takes a \"PROVIDER/MODEL\" value", configModel))
	}
	sess, err := s.lookup(p.ValueId.SessionId)
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, err
	}
	if err := sess.setModel(string(p.ValueId.Value)); err != nil {
		return acp.SetSessionConfigOptionResponse{}, failure(codeInvalidParams, err)
	}
	s.o.Log.Info("model set", "session", sess.id, "model", sess.modelName())
	return acp.SetSessionConfigOptionResponse{ConfigOptions: sess.configOptions()}, nil
}

// unsupported answers the methods tandem does not offer (it advertises
// none of them) as JSON-RPC says: method not found.
func unsupported(method string) error { return acp.NewMethodNotFound(method) }

func (s *server) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, unsupported(acp.AgentMethodAuthenticate)
}

func (s *server) Logout(context.Context, acp.LogoutRequest) (acp.LogoutResponse, error) {
	return acp.LogoutResponse{}, unsupported(acp.AgentMethodLogout)
}

func (s *server) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, unsupported(acp.AgentMethodSessionList)
}

func (s *server) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, unsupported(acp.AgentMethodSessionResume)
}

func (s *server) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, unsupported(acp.AgentMethodSessionSetMode)
}
