package lspserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/tandemdev/tandem/tools"
)

// The agent side: sessions and the one tool registry, reached by the
// editor's agent through tandem/openSession, tandem/listTools and
// tandem/callTool. See docs/protocol.md.

// progressDelay is how long a tool call runs before the editor shows its
// progress; 0 shows it at once. It is a variable so that a test can set it
// to 0.
var progressDelay = 500 * time.Millisecond

type toolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// session returns the open session named id, or the typed error
// CodeUnknownSession when there is none.
func (s *Server) session(id string) (*tools.Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess := s.sessions[id]; sess != nil {
		return sess, nil
	}
	return nil, rpcError(CodeUnknownSession, KindUnknownSession,
		"There is no open session %q. Open one with tandem/openSession and use the id it returns.", id)
}

// newSession opens a session on roots (absolute paths or file:// URIs); with
// no roots, on the workspace folders.
func (s *Server) newSession(rawRoots []string) (*tools.Session, error) {
	roots := s.Roots()
	if len(rawRoots) > 0 {
		roots = nil
		for _, r := range rawRoots {
			path, ok := filePath(r)
			if !ok && filepath.IsAbs(r) {
				path, ok = filepath.Clean(r), true
			}
			if !ok {
				return nil, invalidParams("tandem/openSession", fmt.Errorf("root %q is neither an absolute path nor a file:// URI", r))
			}
			roots = append(roots, path)
		}
	}
	if len(roots) == 0 {
		return nil, invalidParams("tandem/openSession", fmt.Errorf("the editor named no workspace folder; pass roots"))
	}
	sess := s.openTools("", roots, nil, false)
	s.mu.Lock()
	s.sessions[sess.ID] = sess
	s.mu.Unlock()
	s.log.Info("session opened", "session", sess.ID, "roots", len(roots))
	return sess, nil
}

// openTools opens a tools session served by this connection. The session
// reads the editor's buffers and settings, asks its questions through the
// editor's prompts, applies edits with workspace/applyEdit, gives bash
// steps the MCP-call bridge's variables, and tells the editor when a job
// ends; jobEndsInResults tells it in the session's next tool result as
// well, for an MCP client of `tandem mcp serve`, which hears of it no
// other way.
func (s *Server) openTools(id string, roots []string, named []acp.McpServer, jobEndsInResults bool) *tools.Session {
	return s.hub.mcp.Open(tools.Options{
		ID:       id,
		Roots:    roots,
		Buffers:  s.buffers,
		Settings: s.settings,
		Editor:   editor{s.client},
		Language: s.language(),
		Asker:    s.router,
		JobSettled: func(j tools.JobSettled) {
			_ = s.client.Notify(context.Background(), "tandem/jobSettled", j)
		},
		JobEndsInResults: jobEndsInResults,
	}, named)
}

// closeSessions closes every open session, because a session ends with its
// connection. Their jobs' processes end with them.
func (s *Server) closeSessions() {
	s.mu.Lock()
	sessions := make([]*tools.Session, 0, len(s.sessions))
	for id, sess := range s.sessions {
		sessions = append(sessions, sess)
		delete(s.sessions, id)
	}
	s.mu.Unlock()
	for _, sess := range sessions {
		sess.Close()
	}
}

func (s *Server) openSession(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Roots []string `json:"roots"`
	}
	if err := decodeParams("tandem/openSession", params, &p); err != nil {
		return nil, err
	}
	sess, err := s.newSession(p.Roots)
	if err != nil {
		return nil, err
	}
	return map[string]any{"session": sess.ID, "roots": sess.Roots}, nil
}

func (s *Server) closeSession(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Session string `json:"session"`
	}
	if err := decodeParams("tandem/closeSession", params, &p); err != nil {
		return nil, err
	}
	sess, err := s.session(p.Session)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	delete(s.sessions, p.Session)
	s.mu.Unlock()
	sess.Close() // its jobs and their processes end with it
	s.log.Info("session closed", "session", p.Session)
	return nil, nil
}

func (s *Server) listTools(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Session string `json:"session"`
	}
	if err := decodeParams("tandem/listTools", params, &p); err != nil {
		return nil, err
	}
	var sess *tools.Session
	if p.Session != "" {
		var err error
		if sess, err = s.session(p.Session); err != nil {
			return nil, err
		}
	} else {
		sess = s.openTools("", s.Roots(), nil, false)
		defer sess.Close()
	}
	list := []toolInfo{}
	for _, t := range tools.List(sess) {
		list = append(list, toolInfo{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema()})
	}
	return map[string]any{"tools": list}, nil
}

func (s *Server) callTool(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Session       string          `json:"session"`
		Name          string          `json:"name"`
		Arguments     json.RawMessage `json:"arguments"`
		WorkDoneToken json.RawMessage `json:"workDoneToken"`
	}
	if err := decodeParams("tandem/callTool", params, &p); err != nil {
		return nil, err
	}
	if p.Name == "" {
		return nil, invalidParams("tandem/callTool", fmt.Errorf("name is missing"))
	}
	sess, err := s.session(p.Session)
	if err != nil {
		return nil, err
	}
	// The tool may run long: show progress in the editor (at once when it
	// sent a token, after progressDelay otherwise), cancellable there.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		progress *Progress
		finished bool
	)
	done := make(chan struct{})
	go func() {
		if len(p.WorkDoneToken) == 0 && progressDelay > 0 {
			select {
			case <-done:
				return
			case <-time.After(progressDelay):
			}
		}
		// Once begun, the progress is created and ended even if the tool
		// finishes meanwhile, so the editor never keeps a stale one.
		pctx, stop := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer stop()
		pr := s.client.StartProgress(pctx, p.WorkDoneToken, "tandem: "+p.Name, cancel)
		mu.Lock()
		defer mu.Unlock()
		if finished {
			pr.End("")
			return
		}
		progress = pr
	}()
	start := time.Now()
	res := tools.Call(ctx, sess, p.Name, p.Arguments)
	close(done)
	mu.Lock()
	finished = true
	progress.End("")
	mu.Unlock()
	s.log.Info("tool called", "session", sess.ID, "tool", p.Name, "isError", res.IsError, "code", string(res.Code), "ms", time.Since(start).Milliseconds())
	return res.MCP(), nil
}
