package agent

import (
	"context"
	"fmt"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/tools"
)

// Connector finds and builds the provider for model ("PROVIDER/MODEL";
// empty: the settings' agent.model) from the user's own settings.
type Connector func(st *config.Settings, model string) (providers.Provider, Endpoint, error)

// Service is the agent sessions of one client connection — ACP's session
// methods without their transport, so `tandem acp` and `tandem lsp` serve
// the same ones. Sessions are chats, kept in the store.
type Service struct {
	open    func(Opening) (*tools.Session, error) // the front door's tools session
	connect Connector
	store   *Store // nil: chats are not kept

	mu       sync.Mutex
	sessions map[string]*served
}

// served is one open session.
type served struct {
	chat       *Chat
	connErr    error // why no provider could be reached; told at each prompt
	advMu      sync.Mutex
	advertised []acp.AvailableCommand // the commands last sent to the client

	mu     sync.Mutex
	cancel context.CancelFunc // of the running prompt; nil when idle
}

// Opening is what a chat's tools session is opened with.
type Opening struct {
	Cwd string // the workspace root
	// ID names the session as the chat: a new one's fresh id, or the id
	// of the chat loaded.
	ID string
	// MCPServers are the client's, beside the user's, for this session only.
	MCPServers []acp.McpServer
}

// NewService serves sessions opened with open, their models reached with
// connect, kept in store (nil: not kept).
func NewService(open func(Opening) (*tools.Session, error), connect Connector, store *Store) *Service {
	return &Service{open: open, connect: connect, store: store, sessions: map[string]*served{}}
}

// New opens a session on cwd with the client's MCP servers. A model that
// cannot be reached does not stop it: each prompt then says what to set.
func (s *Service) New(cwd string, mcp []acp.McpServer) (*acp.NewSessionResponse, error) {
	sess, err := s.open(Opening{Cwd: cwd, ID: tools.NewID(), MCPServers: mcp})
	if err != nil {
		return nil, err
	}
	sv, _ := s.serve(sess, func(o Options) (*Chat, error) { return NewChat(o), nil })
	return &acp.NewSessionResponse{SessionId: acp.SessionId(sv.chat.ID), ConfigOptions: sv.configOptions()}, nil
}

// Load reopens a stored chat on cwd, with the client's MCP servers, and
// replays it to emit. It returns what a client may set on the session, as
// New does.
func (s *Service) Load(cwd, id string, mcp []acp.McpServer, emit func(acp.SessionUpdate)) ([]acp.SessionConfigOption, error) {
	if s.store == nil {
		return nil, fmt.Errorf("chats are not kept here, so none can be loaded")
	}
	s.mu.Lock()
	_, open := s.sessions[id]
	s.mu.Unlock()
	if open {
		return nil, fmt.Errorf("chat %s is already open; use it, or close it first", id)
	}
	sess, err := s.open(Opening{Cwd: cwd, ID: id, MCPServers: mcp})
	if err != nil {
		return nil, err
	}
	sv, err := s.serve(sess, func(o Options) (*Chat, error) { return ResumeChat(o, id) })
	if err != nil {
		sess.Close()
		return nil, err
	}
	for _, u := range sv.chat.Replay() {
		emit(u)
	}
	// The chat goes on with the model it last used, where it still can.
	if last := sv.chat.lastModel; last != "" && last != sv.chat.Model() {
		if p, end, err := s.connect(sess.Settings(), last); err == nil {
			sv.chat.SetModel(p, end)
			sv.mu.Lock()
			sv.connErr = nil
			sv.mu.Unlock()
		} else {
			emit(acp.UpdateAgentThoughtText(fmt.Sprintf("(this chat used %s, which cannot be reached now (%v); it goes on with %s)\n", last, err, sv.chat.Model())))
		}
	}
	sv.advertise(emit)
	return sv.configOptions(), nil
}

// serve builds a session's chat with make and registers it.
func (s *Service) serve(sess *tools.Session, make func(Options) (*Chat, error)) (*served, error) {
	p, end, connErr := s.connect(sess.Settings(), "")
	c, err := make(Options{Session: sess, Provider: p, Endpoint: end, Store: s.store})
	if err != nil {
		return nil, err
	}
	sv := &served{chat: c, connErr: connErr}
	s.mu.Lock()
	s.sessions[c.ID] = sv
	s.mu.Unlock()
	return sv, nil
}

// session is an open session, or the error naming what to do.
func (s *Service) session(id acp.SessionId) (*served, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sv := s.sessions[string(id)]; sv != nil {
		return sv, nil
	}
	return nil, fmt.Errorf("there is no open session %q; open one with session/new, or load a stored one with session/load", id)
}

// Prompt runs one turn of session id. One turn at a time: a prompt while
// one runs is refused. Cancel stops it; it then returns cancelled. The
// response names the turn (`_meta.tandem.turn`), the one a restore of
// "before this prompt" names.
func (s *Service) Prompt(ctx context.Context, id acp.SessionId, prompt []acp.ContentBlock, emit func(acp.SessionUpdate)) (acp.PromptResponse, error) {
	return s.Send(ctx, acp.PromptRequest{SessionId: id, Prompt: prompt}, emit)
}

// Send runs a session/prompt request as Prompt does; with
// `_meta.tandem.replaces` (a turn), the prompt replaces that turn's: the
// conversation is cut back to just before it first (Chat.Resend).
func (s *Service) Send(ctx context.Context, p acp.PromptRequest, emit func(acp.SessionUpdate)) (acp.PromptResponse, error) {
	replaces, err := replacedTurn(p.Meta)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	id, prompt := p.SessionId, p.Prompt
	sv, err := s.session(id)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	prompt, compact, done, err := s.runCommand(ctx, id, sv, prompt, emit)
	if done || err != nil {
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sv.mu.Lock()
	if sv.connErr != nil {
		// The settings may have changed since (a model set, a key
		// exported): try again before saying what to set.
		p, end, err := s.connect(sv.chat.opts.Session.Settings(), "")
		if err != nil {
			sv.connErr = err
			sv.mu.Unlock()
			return acp.PromptResponse{}, err
		}
		sv.chat.SetModel(p, end)
		sv.connErr = nil
	}
	if sv.cancel != nil {
		sv.mu.Unlock()
		return acp.PromptResponse{}, fmt.Errorf("a turn of this session is running; wait for it or cancel it, then send the prompt")
	}
	sv.cancel = cancel
	sv.mu.Unlock()
	defer func() {
		sv.mu.Lock()
		sv.cancel = nil
		sv.mu.Unlock()
	}()
	if compact {
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, sv.chat.Compact(ctx, emit)
	}
	turn, stop, err := sv.chat.prompt(ctx, replaces, prompt, emit)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	return acp.PromptResponse{StopReason: stop, Meta: map[string]any{"tandem": map[string]any{"turn": turn}}}, nil
}

// replacedTurn is the turn a prompt's `_meta.tandem.replaces` names; -1
// when it names none.
func replacedTurn(meta map[string]any) (int, error) {
	t, _ := meta["tandem"].(map[string]any)
	v, ok := t["replaces"]
	if !ok || v == nil {
		return -1, nil
	}
	n, ok := v.(float64)
	if !ok || n < 0 || n != float64(int(n)) {
		return -1, refusal.New(refusal.Invalid, fmt.Sprintf("_meta.tandem.replaces is %v, not a turn number; give the turn of the prompt the new one replaces (session/prompt's _meta.tandem.turn names it)", v))
	}
	return int(n), nil
}

// Cancel stops session id's running turn, if any.
func (s *Service) Cancel(id acp.SessionId) {
	if sv, err := s.session(id); err == nil {
		sv.mu.Lock()
		if sv.cancel != nil {
			sv.cancel()
		}
		sv.mu.Unlock()
	}
}

// Config ids a session offers.
const (
	ConfigModel    = "model"
	ConfigPlanMode = "plan_mode"
)

// SetModel switches session id to model ("PROVIDER/MODEL") from its next
// turn; the conversation goes on.
func (s *Service) SetModel(id acp.SessionId, model string) ([]acp.SessionConfigOption, error) {
	sv, err := s.session(id)
	if err != nil {
		return nil, err
	}
	p, end, err := s.connect(sv.chat.opts.Session.Settings(), model)
	if err != nil {
		return nil, err
	}
	sv.chat.SetModel(p, end)
	sv.mu.Lock()
	sv.connErr = nil
	sv.mu.Unlock()
	return sv.configOptions(), nil
}

// SetPlanMode turns session id's plan mode on or off.
func (s *Service) SetPlanMode(id acp.SessionId, on bool) ([]acp.SessionConfigOption, error) {
	sv, err := s.session(id)
	if err != nil {
		return nil, err
	}
	sv.chat.SetPlanMode(on)
	return sv.configOptions(), nil
}

// configOptions are what a client may set on the session: the model and
// plan mode.
func (sv *served) configOptions() []acp.SessionConfigOption {
	model := sv.chat.Model()
	sv.mu.Lock()
	if sv.connErr != nil {
		model = "none"
	}
	sv.mu.Unlock()
	choices := []acp.SessionConfigSelectOption{{Name: model, Value: acp.SessionConfigValueId(model)}}
	for _, name := range ModelNames(sv.chat.opts.Session.Settings()) {
		if name != model {
			choices = append(choices, acp.SessionConfigSelectOption{Name: name, Value: acp.SessionConfigValueId(name)})
		}
	}
	cat := acp.SessionConfigOptionCategoryModel
	mode := acp.SessionConfigOptionCategoryMode
	planDesc := "Only reading runs: read, grep, glob, fetch and bash steps that only read."
	return []acp.SessionConfigOption{
		{Select: &acp.SessionConfigOptionSelect{Id: ConfigModel, Name: "Model", Type: "select", Category: &cat,
			CurrentValue: acp.SessionConfigValueId(model),
			Options:      acp.SessionConfigSelectOptions{Ungrouped: (*acp.SessionConfigSelectOptionsUngrouped)(&choices)}}},
		{Boolean: &acp.SessionConfigOptionBoolean{Id: ConfigPlanMode, Name: "Plan mode", Type: "boolean", Category: &mode,
			CurrentValue: sv.chat.PlanMode(), Description: &planDesc}},
	}
}

// List is the stored chats, newest first.
func (s *Service) List() ([]acp.SessionInfo, error) {
	if s.store == nil {
		return []acp.SessionInfo{}, nil
	}
	chats, err := s.store.List()
	if err != nil {
		return nil, err
	}
	out := make([]acp.SessionInfo, 0, len(chats))
	for _, c := range chats {
		title, updated := c.Title, c.Updated.UTC().Format(time.RFC3339)
		out = append(out, acp.SessionInfo{SessionId: acp.SessionId(c.ID), Cwd: c.Cwd, Title: &title, UpdatedAt: &updated})
	}
	return out, nil
}

// Delete closes session id if open and removes its stored chat.
func (s *Service) Delete(id acp.SessionId) error {
	s.Close(id)
	if s.store == nil {
		return nil
	}
	return s.store.Delete(string(id))
}

// Close ends session id: its turn, its tools' processes.
func (s *Service) Close(id acp.SessionId) {
	s.Cancel(id) // while the session is still found by its id
	s.mu.Lock()
	sv := s.sessions[string(id)]
	delete(s.sessions, string(id))
	s.mu.Unlock()
	if sv != nil {
		sv.chat.Close()
	}
}

// Restore restores session id's checkpoint of turn (see Chat.Restore).
func (s *Service) Restore(ctx context.Context, id acp.SessionId, turn int, around bool) (Restored, error) {
	sv, err := s.session(id)
	if err != nil {
		return Restored{}, err
	}
	return sv.chat.Restore(ctx, turn, around)
}

// Checkpoints lists session id's checkpoints.
func (s *Service) Checkpoints(id acp.SessionId) ([]Checkpoint, error) {
	sv, err := s.session(id)
	if err != nil {
		return nil, err
	}
	return sv.chat.Checkpoints(), nil
}

// CloseAll ends every session: the connection is gone.
func (s *Service) CloseAll() {
	s.mu.Lock()
	ids := make([]string, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.Close(acp.SessionId(id))
	}
}
