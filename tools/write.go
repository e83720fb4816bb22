package tools

import (
	"context"
	"encoding/json"

	"github.com/tandemdev/tandem/edits"
	"github.com/tandemdev/tandem/refusal"
)

var writeTool = Tool{
	Name: "write",
	Description: `Write a whole file: create it (with missing directories), or replace an existing file you have read. ` +
		`An existing file is replaced only when its current content is a version you have seen; otherwise nothing is written and you are told to read it first. ` +
		`A replaced file keeps its byte order mark, line endings and mode (a warning says when your content had other line endings). For changes to part of a file, prefer edit. ` +
		`The reply gives the new tag and a compact diff.`,
	InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File path: relative to the workspace root, absolute, or repo://PATH."},
    "content": {"type": "string", "description": "The whole new content of the file."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`),
	Handler: func(ctx context.Context, s *Session, args json.RawMessage) Result {
		var a struct {
			Path    *string `json:"path"`
			Content *string `json:"content"`
		}
		if err := decode("write", args, &a); err != nil {
			return Refused(err)
		}
		if a.Path == nil || a.Content == nil {
			return Refused(refusal.New(refusal.Invalid, "write needs both path and content. Call write again with both."))
		}
		s.pull(ctx, *a.Path)
		return s.commitWatched(ctx, func(env *edits.Env) (string, error) { return edits.Write(ctx, env, *a.Path, *a.Content) })
	},
}
