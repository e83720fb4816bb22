package tools

import (
	"context"
	"encoding/json"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/documents"
)

var globTool = Tool{
	Name: "glob",
	Description: `Find files and directories by name with a glob pattern: "*" within one path segment, "**" across directories, "{a,b}" alternatives, "[a-z]" classes. ` +
		`The pattern is matched against paths relative to "path", e.g. "**/*_test.go" or "cmd/*/main.go". ` +
		`Files excluded by .gitignore, .ignore or git's exclude files are skipped. ` +
		`Paths are listed newest first (by modification time), then by name, relative to the workspace root; directories end in "/". ` +
		`A page holds at most 200 paths ("limit" asks for fewer); when more match, the last lines give the count and the "skip" for the next page.`,
	InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Glob relative to path."},
    "path": {"type": "string", "description": "Directory to search; default the workspace root."},
    "skip": {"type": "integer", "minimum": 0, "description": "The skip the previous page gave."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Page size; default and maximum 200."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`),
	Handler: func(ctx context.Context, s *Session, args json.RawMessage) Result {
		var req documents.GlobRequest
		if err := decode("glob", args, &req); err != nil {
			return Refused(err)
		}
		if err := s.gateDocument(ctx, approvals.AccessList, req.Path); err != nil {
			return Refused(err)
		}
		text, err := documents.Glob(ctx, s.Roots, req)
		if err != nil {
			return Refused(err)
		}
		return Result{Text: text}
	},
}
