package acpdoor

import (
	"context"
	"errors"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/tools"
)

// configModel is the id of the session's one config option: the model.
const configModel acp.SessionConfigId = "model"

// session is one ACP session: a tools session and the chat on it.
type session struct {
	id       acp.SessionId // the tools session's id, so a question names its ACP session
	tools    *tools.Session
	settings *config.Settings
	system   string // built once: every chat of the session has the same
	provider ProviderFunc

	mu sync.Mutex
	// chat is nil while no model can be reached; unreachable says why.
	chat        *agent.Chat
	unreachable error
	model       string             // the model option's value; "" when none is set
	stop        context.CancelFunc // ends the running turn; nil when none runs
	closed      bool
}

// setModel points the session's next turns at model ("" is the user's
// agent.model). A new chat on the same tools session starts, so what the
// session has seen and allowed stays, and the conversation starts afresh:
// a chat's model is fixed for its life. The session's first model ("")
// failing is remembered as the answer to its prompts; a model the client
// picks failing is the client's error, and the model in use stays.
func (s *session) setModel(model string) error {
	p, e, err := s.provider(s.settings, model)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if model != "" {
			return err
		}
		s.unreachable, s.model = err, configuredModel(s.settings)
		return nil
	}
	s.chat = agent.NewChat(agent.Options{Session: s.tools, Provider: p, Endpoint: e, System: s.system})
	s.unreachable, s.model = nil, e.String()
	return nil
}

// configuredModel is the user's agent.model, shown as the model option's
// value while it cannot be reached.
func configuredModel(st *config.Settings) string {
	var model string
	if v, ok := st.User("agent.model"); ok {
		_ = v.Decode(&model)
	}
	return model
}

func (s *session) modelName() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.model
}

// configOptions is the model picker: the model in use, or none while no
// model is set at all. Any "PROVIDER/MODEL" is accepted when set.
func (s *session) configOptions() []acp.SessionConfigOption {
	model := s.modelName()
	if model == "" {
		return []acp.SessionConfigOption{}
	}
	category := acp.SessionConfigOptionCategoryModel
	values := acp.SessionConfigSelectOptionsUngrouped{{Name: model, Value: acp.SessionConfigValueId(model)}}
	return []acp.SessionConfigOption{{Select: &acp.SessionConfigOptionSelect{
		Id: configModel, Name: "Model", Category: &category, Type: "select",
		CurrentValue: acp.SessionConfigValueId(model),
		Options:      acp.SessionConfigSelectOptions{Ungrouped: &values},
	}}}
}

// prompt runs one turn on a context ending with life, session/cancel or
// the session's close. One turn runs at a time: a second prompt is refused
// rather than queued or allowed to stop the first.
func (s *session) prompt(life context.Context, blocks []acp.ContentBlock, emit func(acp.SessionUpdate)) (acp.StopReason, error) {
	s.mu.Lock()
	switch {
	case s.closed:
		s.mu.Unlock()
		return "", failure(codeInvalidRequest, errors.New("the session is closed; open a new one with session/new"))
	case s.stop != nil:
		s.mu.Unlock()
		return "", failure(codeInvalidRequest, errors.New("a prompt is already running in this session; wait for its answer or cancel it with session/cancel"))
	case s.chat == nil:
		s.mu.Unlock()
		return "", failure(codeInternal, s.unreachable)
	}
	turn, stop := context.WithCancel(life)
	s.stop = stop
	chat := s.chat
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.stop = nil
		s.mu.Unlock()
		stop()
	}()
	reason, err := chat.Prompt(turn, blocks, emit)
	if err != nil {
		return "", failure(codeInternal, err)
	}
	return reason, nil
}

// cancel stops the running turn, if any: its model call ends, its tools
// are cancelled (a pending question is withdrawn), and it answers
// cancelled.
func (s *session) cancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		s.stop()
	}
}

// close stops the running turn and closes the tools session, which ends
// every process its tools started before close returns.
func (s *session) close() {
	s.mu.Lock()
	s.closed = true
	if s.stop != nil {
		s.stop()
	}
	s.mu.Unlock()
	s.tools.Close()
}
