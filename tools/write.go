package tools

import (
	"context"

	"github.com/tandemdev/tandem/edits"
	"github.com/tandemdev/tandem/refusal"
)

func init() { register(writeTool) }

var writeTool = spec[writeArgs]{
	Tool: Tool{
		Name:        "write",
		DisplayName: "Write a whole file",
		Idempotent:  true, // the same content twice leaves the same file
		Description: `Write a whole file: create it (with missing directories), or replace an existing file you have read. ` +
			`An existing file is replaced only when its current content is a version you have seen; otherwise nothing is written and you are told to read it first. ` +
			`A replaced file keeps its byte order mark, line endings and mode (a warning says when your content had other line endings). For changes to part of a file, prefer edit. ` +
			`The reply gives the new tag and a compact diff.`,
		Examples:    examples(`{"path":"notes/todo.md","content":"- ship it\n"}`),
		Destructive: true,
		Kind:        KindEdit,
		Aliases:     []string{"write_file", "create_file"},
	},
	run: func(ctx context.Context, s *Session, a writeArgs) Result {
		if a.Path == nil || a.Content == nil {
			return Refused(refusal.New(refusal.Invalid, "write needs both path and content. Call write again with both."))
		}
		s.pull(ctx, *a.Path)
		return s.commitWatched(ctx, func(env *edits.Env) (string, error) { return edits.Write(ctx, env, *a.Path, *a.Content) })
	},
	title: func(a writeArgs) string { return "Write " + valueOr(a.Path) },
	paths: func(a writeArgs) []string { return nonEmpty(valueOr(a.Path)) },
}

// writeArgs are write's arguments; nil is a key not sent.
type writeArgs struct {
	Path    *string `json:"path" jsonschema:"File path: relative to the workspace root, absolute, or repo://PATH."`
	Content *string `json:"content" jsonschema:"The whole new content of the file."`
}
