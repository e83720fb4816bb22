package lspserver

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/tandemdev/tandem/edits"
)

// editor changes open documents through the editor, so each agent edit shows
// in the buffer and the editor's own undo reverts it. It is every session's
// edits.Editor.
type editor struct{ c *Client }

// Transactional reports whether the client applies a multi-document edit
// all or nothing: it takes versioned documentChanges and declares
// transactional failure handling (LSP 3.16). tandem's edits are text only,
// so "textOnlyTransactional" (what VS Code declares) counts as
// transactional too.
func (e editor) Transactional() bool {
	raw, ok := e.c.Capability("workspace.workspaceEdit.failureHandling")
	return ok && e.c.Supports("workspace.workspaceEdit.documentChanges") &&
		(string(raw) == `"transactional"` || string(raw) == `"textOnlyTransactional"`)
}

// ApplyEdit sends workspace/applyEdit: versioned documentChanges when the
// client takes them (the editor then refuses an edit computed on an older
// version), else plain changes.
func (e editor) ApplyEdit(ctx context.Context, label string, docs []edits.DocumentEdit) (bool, string, error) {
	if !e.c.Supports("workspace.applyEdit") {
		return false, "the editor does not accept workspace/applyEdit; close the file in the editor so tandem edits it on disk", nil
	}
	var we protocol.WorkspaceEdit
	versioned := e.c.Supports("workspace.workspaceEdit.documentChanges")
	if !versioned {
		we.Changes = map[protocol.DocumentURI][]protocol.TextEdit{}
	}
	for _, d := range docs {
		uri := protocol.DocumentURI(fileURI(d.Path))
		tes := make([]protocol.TextEdit, len(d.Edits))
		for i, te := range d.Edits {
			tes[i] = protocol.TextEdit{
				Range: protocol.Range{
					Start: protocol.Position{Line: te.Range.Start.Line, Character: te.Range.Start.Character},
					End:   protocol.Position{Line: te.Range.End.Line, Character: te.Range.End.Character},
				},
				NewText: te.NewText,
			}
		}
		if versioned {
			v := d.Version
			we.DocumentChanges = append(we.DocumentChanges, protocol.TextDocumentEdit{
				TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
					TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: &v},
				Edits: tes,
			})
		} else {
			we.Changes[uri] = tes
		}
	}
	var res protocol.ApplyWorkspaceEditResponse
	if err := e.c.Call(ctx, "workspace/applyEdit", protocol.ApplyWorkspaceEditParams{Label: label, Edit: we}, &res); err != nil {
		return false, "", err
	}
	return res.Applied, res.FailureReason, nil
}

// CanSave reports whether the editor declared
// experimental.tandem.saveDocument, tandem's request to save an open
// document (LSP has no such request).
func (e editor) CanSave() bool { return e.c.Supports("experimental.tandem.saveDocument") }

// Save sends tandem/saveDocument {uri} and waits for the editor's answer.
func (e editor) Save(ctx context.Context, path string) error {
	var res json.RawMessage
	if err := e.c.Call(ctx, "tandem/saveDocument", map[string]string{"uri": fileURI(path)}, &res); err != nil {
		return fmt.Errorf("tandem/saveDocument: %w", err)
	}
	return nil
}
