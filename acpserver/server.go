// Package acpserver is tandem's ACP front door: `tandem acp` serves one ACP
// v1 client (Zed, JetBrains, CodeCompanion, avante…) over newline-delimited
// JSON-RPC on stdio, with a tandem agent chat for each ACP session. Its
// tools sessions are opened as every front door's are (tools.Open, the
// user's own settings), and their questions go to the client as
// session/request_permission.
//
// The package is named acpserver, not acp, because it and its callers import
// the ACP SDK, whose package is acp: each side then needs no alias.
package acpserver

import (
	"context"
	"encoding/json"
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
	"github.com/tandemdev/tandem/jsonlines"
	"github.com/tandemdev/tandem/tools"
	"github.com/tandemdev/tandem/tools/mcphub"
)

// Options is what Serve is given by its command.
type Options struct {
	Log     *slog.Logger // nil: discarded
	Version string       // tandem's, sent as agentInfo.version
	// Settings returns the settings a new session is opened with, the
	// user's own file loaded and its problems already reported where the
	// user will see them. If it is nil, sessions get empty settings: every
	// default.
	Settings func() *config.Settings
	// Connect reaches each chat's model. If it is nil, every prompt fails
	// with an error saying no model can be reached.
	Connect agent.Connector
	// Store keeps the chats, so a client can list and load them; nil keeps
	// none.
	Store *agent.Store
}

// server is one client's connection: ACP's transport around the agent's
// sessions (agent.Service, which tandem lsp serves too).
type server struct {
	o     Options
	conn  *acp.AgentSideConnection
	agent *agent.Service
	// life ends when the connection does: a turn runs on it rather than
	// on its request's context (see Prompt).
	life context.Context

	mcp *mcphub.Hub // the MCP-call bridge of every session

	fsMu sync.Mutex
	fs   acp.FileSystemCapabilities // the client's, from initialize
}

// Serve answers the client on in and out until in ends or ctx does, then
// closes every session: their turns stop and every process their tools
// started ends before Serve returns.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	agent.SharedWatches().SetLog(o.Log)
	if o.Settings == nil {
		o.Settings = config.New
	}
	if o.Connect == nil {
		o.Connect = func(*config.Settings, string) (providers.Provider, agent.Endpoint, error) {
			return nil, agent.Endpoint{}, errors.New("this tandem cannot reach any model: it was started without model clients")
		}
	}
	life, end := context.WithCancel(ctx)
	defer end()
	s := &server{o: o, life: life}
	s.mcp = mcphub.New(mcphub.Options{Version: o.Version, Log: o.Log}) // no Settings: the hub starts from the first session's
	s.agent = agent.NewService(s.openTools, o.Connect, o.Store)
	started := make(chan struct{})
	w := jsonlines.NewWriter(out)
	messages := jsonlines.NewStream(jsonlines.NewReader(in, w, maxMessage, "ACP"))
	s.conn = acp.NewAgentSideConnection(s, w, gatedReader{messages, started})
	s.conn.SetLogger(o.Log)
	close(started)
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	end()
	s.agent.CloseAll()
	s.mcp.Close()
	o.Log.Info("connection ended")
}

// maxMessage is the longest line tandem reads as one message. acp-go-sdk
// ends the connection on a line over 10 MiB; tandem answers one over this
// limit and skips it (package jsonlines) before the library sees it.
const maxMessage = 8 << 20

// gatedReader reads r only after the channel open is closed. The ACP
// connection starts reading in its constructor, and the handlers use the
// server's conn field, so no message may be handled before the server has
// stored the connection.
type gatedReader struct {
	r    io.Reader
	open <-chan struct{}
}

func (g gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}

// openTools opens the tools session of an ACP session on cwd, the workspace
// root that relative paths resolve against and that the gate judges paths
// by. It is opened as every front door opens one, with the MCP-call bridge
// for its bash steps and `mcp` calls; they reach the user's servers, the
// servers of cwd's workspace files, and those the client named. The tools
// session has the ACP session's ID, so its questions name that session.
func (s *server) openTools(o agent.Opening) (*tools.Session, error) {
	cwd := o.Cwd
	if fi, err := os.Stat(cwd); !filepath.IsAbs(cwd) || err != nil || !fi.IsDir() {
		return nil, failure(codeInvalidParams, fmt.Errorf("cwd %q is not an absolute path of a directory; send the workspace's absolute path", cwd))
	}
	s.fsMu.Lock()
	fs := s.fs
	s.fsMu.Unlock()
	to := tools.Options{ID: o.ID, Roots: []string{filepath.Clean(cwd)}, Settings: s.o.Settings(), Asker: asker{s.conn}}
	return s.mcp.Open(withFiles(to, fs, s.conn, s.o.Log), o.MCPServers), nil
}

// failure is an error the client shows: its message is the sentence
// itself, not a generic "Internal error" with the sentence tucked in data.
func failure(code int, err error) *acp.RequestError {
	var re *acp.RequestError
	if errors.As(err, &re) {
		return re
	}
	return &acp.RequestError{Code: code, Message: err.Error()}
}

// JSON-RPC codes tandem answers with. codeAgent is the code of an agent's
// refusal (no model reachable, a turn already running, no such session);
// tandem lsp uses the same code.
const (
	codeInvalidParams = -32602
	codeAgent         = -32053
)

// refused turns the agent's refusal into the error the client gets, whose
// message is the sentence saying what to do.
func refused(err error) error {
	re := failure(codeAgent, err)
	if re.Code == codeAgent {
		re.Data = map[string]any{"code": "agent"}
	}
	return re
}

func (s *server) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	s.o.Log.Info("initialize", "clientProtocol", p.ProtocolVersion, "client", clientName(p.ClientInfo), "fs", p.ClientCapabilities.Fs)
	s.fsMu.Lock()
	s.fs = p.ClientCapabilities.Fs
	s.fsMu.Unlock()
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession:        s.o.Store != nil,
			McpCapabilities:    acp.McpCapabilities{Http: true},
			PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true, Image: true},
			SessionCapabilities: acp.SessionCapabilities{
				Close: &acp.SessionCloseCapabilities{},
				List:  &acp.SessionListCapabilities{},
			},
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

// NewSession opens a chat on cwd. A model that cannot be reached does not
// fail it: each prompt then says what to set. The client's mcpServers join
// the chat's MCP tools for its life; a bad one is logged, not fatal.
func (s *server) NewSession(_ context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	resp, err := s.agent.New(p.Cwd, p.McpServers)
	if err != nil {
		return acp.NewSessionResponse{}, refused(err)
	}
	s.o.Log.Info("session opened", "session", resp.SessionId, "cwd", p.Cwd, "mcpServers", len(p.McpServers))
	// The client learns the session's id from this answer: its commands
	// follow it, as ACP's agents send them.
	go s.agent.Advertise(resp.SessionId, s.updater(resp.SessionId))
	return *resp, nil
}

// LoadSession reopens a stored chat, replaying it as session/update before
// it answers.
func (s *server) LoadSession(_ context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	opts, err := s.agent.Load(p.Cwd, string(p.SessionId), p.McpServers, s.updater(p.SessionId))
	if err != nil {
		return acp.LoadSessionResponse{}, refused(err)
	}
	s.o.Log.Info("session loaded", "session", p.SessionId, "cwd", p.Cwd)
	return acp.LoadSessionResponse{ConfigOptions: opts}, nil
}

// updater sends a session's updates as session/update. It does not use the
// turn's context, so a cancelled turn still reports how its calls ended.
func (s *server) updater(id acp.SessionId) func(acp.SessionUpdate) {
	return func(u acp.SessionUpdate) {
		if err := s.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: id, Update: u}); err != nil {
			s.o.Log.Debug("session/update not sent", "session", id, "err", err)
		}
	}
}

// Prompt runs one turn. It runs on the connection's life, not on the
// request's context: the SDK cancels a session's running prompt when a
// second one arrives, and tandem instead refuses the second and lets the
// first go on. session/cancel, session/close and the end of the
// connection stop it.
func (s *server) Prompt(_ context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	resp, err := s.agent.Send(s.life, p, s.updater(p.SessionId))
	s.o.Log.Info("prompt ended", "session", p.SessionId, "stopReason", resp.StopReason, "err", err)
	if err != nil {
		return acp.PromptResponse{}, refused(err)
	}
	return resp, nil
}

func (s *server) Cancel(_ context.Context, p acp.CancelNotification) error {
	s.agent.Cancel(p.SessionId)
	return nil
}

// CloseSession ends a session as ACP says: its running turn is cancelled
// (the prompt is answered cancelled, and the model is asked nothing more),
// then its tools' processes end.
func (s *server) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	s.agent.Close(p.SessionId)
	return acp.CloseSessionResponse{}, nil
}

func (s *server) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	list, err := s.agent.List()
	if err != nil {
		return acp.ListSessionsResponse{}, refused(fmt.Errorf("the chats could not be listed: %w", err))
	}
	return acp.ListSessionsResponse{Sessions: list}, nil
}

func (s *server) SetSessionConfigOption(_ context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	var (
		opts []acp.SessionConfigOption
		err  error
	)
	switch {
	case p.ValueId != nil && p.ValueId.ConfigId == agent.ConfigModel:
		opts, err = s.agent.SetModel(p.ValueId.SessionId, string(p.ValueId.Value))
	case p.Boolean != nil && p.Boolean.ConfigId == agent.ConfigPlanMode:
		opts, err = s.agent.SetPlanMode(p.Boolean.SessionId, p.Boolean.Value)
	default:
		return acp.SetSessionConfigOptionResponse{}, failure(codeInvalidParams, fmt.Errorf("the options are %s (a \"PROVIDER/MODEL\" value) and %s (a boolean)", agent.ConfigModel, agent.ConfigPlanMode))
	}
	if err != nil {
		return acp.SetSessionConfigOptionResponse{}, refused(err)
	}
	return acp.SetSessionConfigOptionResponse{ConfigOptions: opts}, nil
}

// HandleExtensionMethod serves tandem's `_tandem/…` methods, the same as
// tandem lsp does.
func (s *server) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (any, error) {
	res, err := s.agent.Extension(ctx, method, params)
	var pe *agent.ParamsError
	switch {
	case errors.Is(err, agent.ErrUnknownExtension):
		return nil, acp.NewMethodNotFound(method)
	case errors.As(err, &pe):
		return nil, failure(codeInvalidParams, pe)
	case err != nil:
		return nil, refused(err)
	}
	return res, nil
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

func (s *server) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, unsupported(acp.AgentMethodSessionResume)
}

func (s *server) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, unsupported(acp.AgentMethodSessionSetMode)
}
