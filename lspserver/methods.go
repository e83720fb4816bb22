package lspserver

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/tandemdev/tandem/agent"
)

// handlerFunc serves one method. params is the raw JSON of the message's
// params (null when absent). A request's result is marshalled as its reply;
// an error that is a *jsonrpc2.Error keeps its code, any other error is an
// InternalError. A notification's result is ignored.
type handlerFunc func(s *Server, ctx context.Context, params json.RawMessage) (any, error)

// requests are the requests tandem serves besides the lifecycle ones. Each
// runs in its own goroutine with a context that $/cancelRequest (and the end
// of the connection) cancels, so it may take long and may call the client
// and wait for the answer.
var requests = map[string]handlerFunc{
	"tandem/openSession":    (*Server).openSession,
	"tandem/closeSession":   (*Server).closeSession,
	"tandem/listTools":      (*Server).listTools,
	"tandem/callTool":       (*Server).callTool,
	"tandem/answerApproval": (*Server).answerApproval,
	"tandem/terminalEnv":    (*Server).terminalEnv,
	// The agent, as ACP's session methods (chat.go).
	"session/new":               (*Server).acpNewSession,
	"session/load":              (*Server).acpLoadSession,
	"session/prompt":            (*Server).acpPrompt,
	"session/list":              (*Server).acpListSessions,
	"session/set_config_option": (*Server).acpSetConfigOption,
	"session/close":             (*Server).acpCloseSession,
	agent.MethodDeleteSession:   extension(agent.MethodDeleteSession),
	agent.MethodCheckpoints:     extension(agent.MethodCheckpoints),
	agent.MethodRestore:         extension(agent.MethodRestore),
	agent.MethodModels:          extension(agent.MethodModels),
	agent.MethodSetKey:          extension(agent.MethodSetKey),
	agent.MethodSetModel:        extension(agent.MethodSetModel),
	agent.MethodChanges:         extension(agent.MethodChanges),
	agent.MethodUndo:            extension(agent.MethodUndo),
	agent.MethodKeep:            extension(agent.MethodKeep),
}

// notifications run one at a time, in the order they arrived, on the read
// loop, before any later message is read: that is what makes a request
// sent after a didChange see the change. They must be quick and must never
// wait for the client (start a goroutine for that).
var notifications = map[string]handlerFunc{
	"textDocument/didOpen":                (*Server).didOpen,
	"textDocument/didChange":              (*Server).didChange,
	"textDocument/didSave":                (*Server).didSave,
	"textDocument/didClose":               (*Server).didClose,
	"workspace/didChangeWatchedFiles":     (*Server).didChangeWatchedFiles,
	"workspace/didChangeConfiguration":    (*Server).didChangeConfiguration,
	"workspace/didChangeWorkspaceFolders": (*Server).didChangeWorkspaceFolders,
	"$/setTrace":                          (*Server).setTrace,
	"window/workDoneProgress/cancel":      (*Server).cancelProgress,
	"session/cancel":                      (*Server).acpCancel,
}

// lifecycle methods are served by the dispatcher itself, inline.
var lifecycle = map[string]bool{
	"initialize": true, "initialized": true, "shutdown": true, "exit": true, "$/cancelRequest": true,
}

// methodNames lists the requests and notifications the server serves.
func (s *Server) methodNames() []string {
	var out []string
	for m := range s.requests {
		out = append(out, m)
	}
	for m := range notifications {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}
