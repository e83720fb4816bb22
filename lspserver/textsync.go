package lspserver

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/documents"
)

// Text synchronisation: the editor's open documents mirrored into the
// overlay every session reads through. These are notifications, applied in
// order on the read loop, so a request sent after a change sees it.

type textDocumentItem struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
	Text    string `json:"text"`
}

type textDocumentID struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
}

// contentChange keeps the range a pointer: LSP tells a full-text change from
// an incremental one by the range's absence, which protocol's value type
// cannot express.
type contentChange struct {
	Range *documents.Range `json:"range"`
	Text  string           `json:"text"`
}

func (s *Server) didOpen(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		TextDocument textDocumentItem `json:"textDocument"`
	}
	if err := decodeParams("textDocument/didOpen", params, &p); err != nil {
		return nil, err
	}
	if path, ok := filePath(p.TextDocument.URI); ok {
		s.buffers.Open(path, p.TextDocument.Version, []byte(p.TextDocument.Text))
	}
	return nil, nil
}

func (s *Server) didChange(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		TextDocument   textDocumentID  `json:"textDocument"`
		ContentChanges []contentChange `json:"contentChanges"`
	}
	if err := decodeParams("textDocument/didChange", params, &p); err != nil {
		// A change that cannot be applied leaves the mirror behind the
		// editor for good: if the document can still be named, stop
		// mirroring it rather than show the agent a wrong buffer.
		var named struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		}
		if json.Unmarshal(params, &named) == nil {
			if path, ok := filePath(named.TextDocument.URI); ok {
				s.lose(ctx, path, err)
			}
		}
		return nil, err
	}
	path, ok := filePath(p.TextDocument.URI)
	if !ok {
		return nil, nil
	}
	if _, lost := s.buffers.Lost(path); lost {
		return nil, nil // the editor was told once; it resumes by reopening
	}
	changes := make([]documents.Change, len(p.ContentChanges))
	for i, c := range p.ContentChanges {
		changes[i] = documents.Change{Range: c.Range, Text: c.Text}
	}
	if err := s.buffers.Change(path, p.TextDocument.Version, changes); err != nil {
		s.lose(ctx, path, err)
		return nil, err
	}
	return nil, nil
}

// lose stops mirroring an open document whose change could not be applied
// and tells the editor once: reads show the disk and say so, and edits of
// it are refused until the editor opens it again.
func (s *Server) lose(ctx context.Context, path string, why error) {
	if _, already := s.buffers.Lost(path); already {
		return
	}
	s.buffers.Lose(path, "a change the editor sent could not be applied")
	s.client.ShowMessage(ctx, protocol.MessageTypeWarning, fmt.Sprintf(
		"tandem lost track of the unsaved text of %s (%v); the agent now sees the file on disk and cannot edit it. Close and reopen the file to resume.", path, why))
}

func (s *Server) didSave(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		TextDocument textDocumentID `json:"textDocument"`
	}
	if err := decodeParams("textDocument/didSave", params, &p); err != nil {
		return nil, err
	}
	if path, ok := filePath(p.TextDocument.URI); ok {
		s.buffers.Saved(path)
	}
	return nil, nil
}

func (s *Server) didClose(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		TextDocument textDocumentID `json:"textDocument"`
	}
	if err := decodeParams("textDocument/didClose", params, &p); err != nil {
		return nil, err
	}
	if path, ok := filePath(p.TextDocument.URI); ok {
		s.buffers.Close(path)
	}
	return nil, nil
}

// tandem reads the disk at use time and checks content tags, so a file
// changed behind the editor needs no invalidation of what was read; a
// search kept for its next pages is not served again, and the chats that
// read a file changed are told at their next model request.
func (s *Server) didChangeWatchedFiles(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Changes []struct {
			URI  string `json:"uri"`
			Type int    `json:"type"`
		} `json:"changes"`
	}
	if err := decodeParams("workspace/didChangeWatchedFiles", params, &p); err != nil {
		return nil, err
	}
	s.log.Debug("files changed on disk", "count", len(p.Changes))
	s.buffers.DiskChanged()
	paths := make([]string, 0, len(p.Changes))
	for _, c := range p.Changes {
		if path, ok := filePath(c.URI); ok {
			paths = append(paths, path)
		}
	}
	agent.SharedWatches().Changed(paths)
	return nil, nil
}
