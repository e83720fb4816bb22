package lspserver

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/tandemdev/tandem/tools"
)

// handlerFunc serves one method. params is the raw JSON of the message's
// params (null when absent). A request's result is marshalled as its reply;
// an error that is a *jsonrpc2.Error keeps its code, any other error is an
// InternalError. A notification's result is ignored.
type handlerFunc func(ctx context.Context, s *Server, params json.RawMessage) (any, error)

// The method table. Files of this package add their methods in init, the way
// tools register themselves:
//
//   - onRequest: each request runs in its own goroutine with a context that
//     $/cancelRequest (and the end of the connection) cancels, so it may take
//     long and may call the client (s.Client().Call) and wait for the answer.
//   - onNotification: notifications run one at a time, in the order they
//     arrived, on the read loop, before any later message is read. That is
//     what makes a request sent after a didChange see the change. They must
//     be quick and must never wait for the client: start a goroutine for that.
var (
	requests      = map[string]handlerFunc{}
	notifications = map[string]handlerFunc{}
)

func onRequest(method string, h handlerFunc) {
	if requests[method] != nil || lifecycle[method] {
		panic("lspserver: duplicate method " + method)
	}
	requests[method] = h
}

func onNotification(method string, h handlerFunc) {
	if notifications[method] != nil || lifecycle[method] {
		panic("lspserver: duplicate notification " + method)
	}
	notifications[method] = h
}

// lifecycle methods are served by the dispatcher itself, inline.
var lifecycle = map[string]bool{
	"initialize": true, "initialized": true, "shutdown": true, "exit": true, "$/cancelRequest": true,
}

// Hooks for the parts of the server that live in other files.
var (
	// sessionHooks run when tandem/openSession creates a session, before its
	// id is returned: the place to attach front-door services (questions to
	// the editor, edits through workspace/applyEdit) to the session.
	sessionHooks []func(s *Server, sess *tools.Session)
	// exitHooks run when the connection ends, for cleanup.
	exitHooks []func(s *Server)
)

func onSessionOpen(f func(s *Server, sess *tools.Session)) { sessionHooks = append(sessionHooks, f) }
func onExit(f func(s *Server))                             { exitHooks = append(exitHooks, f) }

// methodNames lists the requests and notifications the table serves.
func methodNames() []string {
	var out []string
	for m := range requests {
		out = append(out, m)
	}
	for m := range notifications {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}
