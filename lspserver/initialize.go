package lspserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"go.lsp.dev/protocol"

	acp "github.com/coder/acp-go-sdk"
	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/sandbox"
	"github.com/tandemdev/tandem/tools"
)

// ProtocolVersion is the version of tandem's own methods (docs/protocol.md),
// sent in capabilities.experimental.tandem.
const ProtocolVersion = 1

type workspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

type initializeParams struct {
	ProcessID  int `json:"processId"`
	ClientInfo *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
	RootPath              string            `json:"rootPath"`
	RootURI               string            `json:"rootUri"`
	WorkspaceFolders      []workspaceFolder `json:"workspaceFolders"`
	InitializationOptions json.RawMessage   `json:"initializationOptions"`
	Capabilities          map[string]any    `json:"capabilities"`
	Trace                 string            `json:"trace"`
}

func (s *Server) initialize(ctx context.Context, raw json.RawMessage) (any, error) {
	var p initializeParams
	if err := decodeParams("initialize", raw, &p); err != nil {
		return nil, err
	}
	var roots []string
	for _, f := range p.WorkspaceFolders {
		if path, ok := filePath(f.URI); ok {
			roots = append(roots, path)
		}
	}
	if len(roots) == 0 {
		if path, ok := filePath(p.RootURI); ok {
			roots = []string{path}
		} else if filepath.IsAbs(p.RootPath) {
			roots = []string{filepath.Clean(p.RootPath)}
		} else if s.opts.Cwd != "" {
			roots = []string{s.opts.Cwd}
		}
	}
	c := s.client
	c.mu.Lock()
	c.caps = p.Capabilities
	if p.ClientInfo != nil {
		c.name, c.version = p.ClientInfo.Name, p.ClientInfo.Version
	}
	c.mu.Unlock()
	c.setTrace(p.Trace)
	if err := s.settings.SetInitializationOptions(p.InitializationOptions); err != nil {
		s.log.Warn("initializationOptions ignored", "err", err)
		c.ShowMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("tandem ignored its initializationOptions: %v. Fix them in the editor's tandem settings.", err))
	}
	s.mu.Lock()
	s.roots = roots
	s.state = stateRunning
	s.mu.Unlock()
	if p.ProcessID > 0 {
		go s.watchEditor(p.ProcessID)
	}
	s.log.Info("initialized", "client", c.Name(), "clientVersion", c.Version(), "roots", len(roots))
	return map[string]any{
		"capabilities": map[string]any{
			"textDocumentSync": map[string]any{
				"openClose": true,
				"change":    protocol.TextDocumentSyncKindIncremental,
				"save":      map[string]bool{"includeText": false},
			},
			"workspace": map[string]any{
				"workspaceFolders": map[string]bool{"supported": true, "changeNotifications": true},
			},
			"experimental": map[string]any{
				"tandem": map[string]any{"protocolVersion": ProtocolVersion, "methods": s.methodNames()},
				// The agent's ACP handshake, carried by LSP's initialize.
				"acp": map[string]any{"protocolVersion": acp.ProtocolVersionNumber, "agentCapabilities": acp.AgentCapabilities{
					LoadSession: true, McpCapabilities: acp.McpCapabilities{Http: true}, PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true, Image: true},
				}},
			},
		},
		"serverInfo": map[string]string{"name": "tandem", "version": s.opts.Version},
	}, nil
}

// initialized runs after the client's `initialized` notification. Where the
// client supports them, it asks for the workspace-level settings and for
// file change events, in goroutines, because the read loop must not wait
// for the client.
func (s *Server) initialized() {
	ctx := context.Background()
	msg := fmt.Sprintf("tandem %s is serving %d workspace folder(s)", s.opts.Version, len(s.Roots()))
	if s.opts.LogPath != "" {
		msg += "; its log is " + s.opts.LogPath
	}
	s.client.LogMessage(ctx, protocol.MessageTypeInfo, msg+".")
	if err := s.opts.SettingsErr; err != nil {
		s.client.ShowMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
			"tandem ignored the user config file: %v. Its settings do not apply until it is fixed; `tandem doctor` checks it.", err))
	}
	s.warnSettings(ctx)
	switch held, why, chosen := tools.SandboxHeld(s.settings); {
	case !held && !chosen:
		s.client.ShowMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
			"tandem cannot hold the programs of bash steps in a kernel sandbox here: %v. The gate still asks before risky steps; `tandem doctor` says more.", why))
	case held && sandbox.Supported().Limits != "":
		s.client.ShowMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
			"tandem's kernel sandbox holds bash steps only in part here: %s. `tandem doctor` says more.", sandbox.Supported().Limits))
	}
	s.refreshConfiguration()
	s.announce()
	if s.client.Supports("workspace.didChangeWatchedFiles.dynamicRegistration") {
		go func() {
			err := s.client.Call(ctx, "client/registerCapability", map[string]any{
				"registrations": []map[string]any{{
					"id":     "tandem-watched-files",
					"method": "workspace/didChangeWatchedFiles",
					"registerOptions": map[string]any{
						"watchers": []map[string]any{{"globPattern": "**/*"}},
					},
				}},
			}, nil)
			if err != nil {
				s.log.Info("file watching not registered", "err", err)
				return
			}
			// The editor now reports every change in its folders: chats
			// need no watches of their own there.
			s.mu.Lock()
			s.editorReports = true
			roots := slices.Clone(s.roots)
			s.mu.Unlock()
			agent.SharedWatches().EditorReports(roots)
			s.log.Debug("the editor reports file changes", "roots", roots)
		}()
	}
}

// refreshConfiguration fetches the workspace settings in the background,
// one fetch at a time. However many changes are announced while a fetch
// runs, a single further fetch after it reads them all.
func (s *Server) refreshConfiguration() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.configFetching {
		s.configStale = true
		return
	}
	s.configFetching = true
	go func() {
		for {
			s.fetchConfiguration(context.Background())
			s.mu.Lock()
			if !s.configStale {
				s.configFetching = false
				s.mu.Unlock()
				return
			}
			s.configStale = false
			s.mu.Unlock()
		}
	}()
}

// fetchConfiguration reads the "tandem" section through
// workspace/configuration. Editors merge workspace settings into it, so it
// is a workspace-level source.
func (s *Server) fetchConfiguration(ctx context.Context) {
	if !s.client.Supports("workspace.configuration") {
		return
	}
	var res []json.RawMessage
	err := s.client.Call(ctx, "workspace/configuration", map[string]any{
		"items": []map[string]string{{"section": "tandem"}},
	}, &res)
	if err != nil || len(res) != 1 {
		s.log.Info("workspace/configuration failed", "err", err)
		return
	}
	if err := s.settings.Set(config.SourceConfiguration, res[0]); err != nil {
		s.log.Warn("workspace settings ignored", "err", err)
		s.client.ShowMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("tandem ignored the workspace settings: %v. Fix the tandem section of the settings.", err))
		return
	}
	s.warnSettings(ctx)
}

// warnSettings shows the editor each setting value the tools refuse, so the
// user never believes a refused value applies.
func (s *Server) warnSettings(ctx context.Context) {
	for _, p := range append(tools.SettingsProblems(s.settings), agent.SettingsProblems(s.settings)...) {
		s.log.Warn("setting refused", "err", p)
		s.client.ShowMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf("tandem: %v. Fix it in the tandem settings.", p))
	}
}

// filePath converts a file:// URI to an absolute path; other schemes (an
// untitled buffer, a remote file) have none.
func filePath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || !filepath.IsAbs(u.Path) {
		return "", false
	}
	return filepath.Clean(u.Path), true
}

// fileURI is the file:// URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

func (s *Server) didChangeConfiguration(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Settings map[string]json.RawMessage `json:"settings"`
	}
	if err := decodeParams("workspace/didChangeConfiguration", params, &p); err != nil {
		return nil, err
	}
	if s.client.Supports("workspace.configuration") {
		s.refreshConfiguration()
		return nil, nil
	}
	if section, ok := p.Settings["tandem"]; ok {
		if err := s.settings.Set(config.SourceConfiguration, section); err != nil {
			return nil, err
		}
		s.warnSettings(ctx)
	}
	return nil, nil
}

func (s *Server) didChangeWorkspaceFolders(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Event struct {
			Added   []workspaceFolder `json:"added"`
			Removed []workspaceFolder `json:"removed"`
		} `json:"event"`
	}
	if err := decodeParams("workspace/didChangeWorkspaceFolders", params, &p); err != nil {
		return nil, err
	}
	s.mu.Lock()
	removed := map[string]bool{}
	for _, f := range p.Event.Removed {
		if path, ok := filePath(f.URI); ok {
			removed[path] = true
		}
	}
	var roots []string
	for _, r := range s.roots {
		if !removed[r] {
			roots = append(roots, r)
		}
	}
	var added []string
	for _, f := range p.Event.Added {
		if path, ok := filePath(f.URI); ok && !removed[path] && !slices.Contains(roots, path) {
			roots = append(roots, path)
			added = append(added, path)
		}
	}
	s.roots = roots
	reports := s.editorReports
	s.mu.Unlock()
	s.reannounce()
	if reports && len(added) > 0 {
		agent.SharedWatches().EditorReports(added)
		s.log.Debug("the editor reports file changes", "roots", added)
	}
	return nil, nil
}

// editorPoll is how often tandem checks that the editor process still lives.
var editorPoll = 3 * time.Second

// editorChecked is called after each check that found the editor alive, so
// that a test can wait for checks to run instead of waiting on a clock.
var editorChecked = func() {}

// watchEditor ends the connection when the editor's process is gone, as LSP
// asks: an editor that died without closing tandem's stdin (a wrapper kept
// the pipe open) must not leave tandem running.
func (s *Server) watchEditor(pid int) {
	t := time.NewTicker(editorPoll)
	defer t.Stop()
	for {
		select {
		case <-s.exit:
			return
		case <-s.conn.Done():
			return
		case <-t.C:
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			s.log.Warn("the editor process is gone; stopping", "pid", pid)
			s.end()
			return
		}
		editorChecked()
	}
}
