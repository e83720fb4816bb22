package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/tools"
)

// The agent over the editor's connection: ACP's session methods, with
// ACP's names and payloads, on the LSP framing tandem's own editor clients
// already speak — so their chats get the editor's buffers, applyEdit and
// undo, and questions as the editor's prompts. tandem's additions are
// `_tandem/…` methods, as ACP's extension rules say. See docs/protocol.md.

// errNoConnector is the refusal of a server started without a way to reach
// models (Options.Connect nil).
var errNoConnector = errors.New("this tandem reaches no model provider; start it as `tandem lsp`")

// newAgentService returns the service that holds the connection's agent
// sessions. Each one opens its tools session on this connection
// (openTools) and keeps its chat in the user's chat store.
func (s *Server) newAgentService() *agent.Service {
	connect := s.opts.Connect
	if connect == nil {
		connect = func(*config.Settings, string) (providers.Provider, agent.Endpoint, error) {
			return nil, agent.Endpoint{}, errNoConnector
		}
	}
	store, err := agent.UserStore()
	if err != nil {
		s.log.Warn("chats are not kept", "err", err)
		store = nil
	}
	return agent.NewService(func(o agent.Opening) (*tools.Session, error) {
		if !filepath.IsAbs(o.Cwd) {
			return nil, invalidParams("session/new", fmt.Errorf("cwd %q is not an absolute path", o.Cwd))
		}
		return s.openTools(o.ID, []string{filepath.Clean(o.Cwd)}, o.MCPServers, false), nil
	}, connect, store)
}

// updater sends a session's updates to the editor as session/update.
func (s *Server) updater(id acp.SessionId) func(acp.SessionUpdate) {
	return func(u acp.SessionUpdate) {
		_ = s.client.Notify(context.Background(), "session/update", acp.SessionNotification{SessionId: id, Update: u})
	}
}

// sessionCwd is the folder a session works in: the request's, else the
// first workspace folder.
func (s *Server) sessionCwd(method, cwd string) (string, error) {
	if cwd != "" {
		return cwd, nil
	}
	if roots := s.Roots(); len(roots) > 0 {
		return roots[0], nil
	}
	return "", invalidParams(method, fmt.Errorf("cwd is missing and the editor named no workspace folder"))
}

func (s *Server) acpNewSession(_ context.Context, params json.RawMessage) (any, error) {
	var p acp.NewSessionRequest
	if err := decodeParams("session/new", params, &p); err != nil {
		return nil, err
	}
	cwd, err := s.sessionCwd("session/new", p.Cwd)
	if err != nil {
		return nil, err
	}
	resp, err := s.agent.New(cwd, p.McpServers)
	if err != nil {
		return nil, err
	}
	// The client learns the session's id from this answer: its commands
	// follow it.
	go s.agent.Advertise(resp.SessionId, s.updater(resp.SessionId))
	return resp, nil
}

func (s *Server) acpLoadSession(_ context.Context, params json.RawMessage) (any, error) {
	var p acp.LoadSessionRequest
	if err := decodeParams("session/load", params, &p); err != nil {
		return nil, err
	}
	cwd, err := s.sessionCwd("session/load", p.Cwd)
	if err != nil {
		return nil, err
	}
	opts, err := s.agent.Load(cwd, string(p.SessionId), p.McpServers, s.updater(p.SessionId))
	if err != nil {
		return nil, agentError(err)
	}
	return acp.LoadSessionResponse{ConfigOptions: opts}, nil
}

func (s *Server) acpPrompt(ctx context.Context, params json.RawMessage) (any, error) {
	var p acp.PromptRequest
	if err := decodeParams("session/prompt", params, &p); err != nil {
		return nil, err
	}
	resp, err := s.agent.Send(ctx, p, s.updater(p.SessionId))
	if err != nil {
		return nil, agentError(err)
	}
	return resp, nil
}

func (s *Server) acpCancel(_ context.Context, params json.RawMessage) (any, error) {
	var p acp.CancelNotification
	if err := decodeParams("session/cancel", params, &p); err != nil {
		return nil, err
	}
	s.agent.Cancel(p.SessionId)
	return nil, nil
}

func (s *Server) acpListSessions(_ context.Context, params json.RawMessage) (any, error) {
	list, err := s.agent.List()
	if err != nil {
		return nil, errorf("the chats could not be listed: %v", err)
	}
	return acp.ListSessionsResponse{Sessions: list}, nil
}

func (s *Server) acpSetConfigOption(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		SessionId acp.SessionId   `json:"sessionId"`
		ConfigId  string          `json:"configId"`
		Value     json.RawMessage `json:"value"`
	}
	if err := decodeParams("session/set_config_option", params, &p); err != nil {
		return nil, err
	}
	var (
		opts []acp.SessionConfigOption
		err  error
	)
	switch p.ConfigId {
	case agent.ConfigModel:
		var model string
		if json.Unmarshal(p.Value, &model) != nil {
			return nil, invalidParams("session/set_config_option", fmt.Errorf("value of %s must be a string \"PROVIDER/MODEL\"", p.ConfigId))
		}
		opts, err = s.agent.SetModel(p.SessionId, model)
	case agent.ConfigPlanMode:
		var on bool
		if json.Unmarshal(p.Value, &on) != nil {
			return nil, invalidParams("session/set_config_option", fmt.Errorf("value of %s must be true or false", p.ConfigId))
		}
		opts, err = s.agent.SetPlanMode(p.SessionId, on)
	default:
		return nil, invalidParams("session/set_config_option", fmt.Errorf("there is no option %q; the options are %s and %s", p.ConfigId, agent.ConfigModel, agent.ConfigPlanMode))
	}
	if err != nil {
		return nil, agentError(err)
	}
	return map[string]any{"configOptions": opts}, nil
}

// sessionParams are the params of the methods whose only argument is a
// session.
type sessionParams struct {
	SessionId acp.SessionId `json:"sessionId"`
}

func (s *Server) acpCloseSession(_ context.Context, params json.RawMessage) (any, error) {
	var p sessionParams
	if err := decodeParams("session/close", params, &p); err != nil {
		return nil, err
	}
	s.agent.Close(p.SessionId)
	return map[string]any{}, nil
}

// extension serves one of tandem's `_tandem/…` methods through the agent.
func extension(method string) handlerFunc {
	return func(s *Server, ctx context.Context, params json.RawMessage) (any, error) {
		res, err := s.agent.Extension(ctx, method, params)
		var pe *agent.ParamsError
		switch {
		case errors.As(err, &pe):
			return nil, invalidParams(method, pe.Err)
		case err != nil:
			return nil, agentError(err)
		}
		return res, nil
	}
}

// agentError turns an agent's refusal into a typed JSON-RPC error
// (CodeAgent) whose message, the refusal's text, says what to do.
func agentError(err error) error {
	return rpcError(CodeAgent, KindAgent, "%s", err.Error())
}
