package tools

import (
	"context"
	"encoding/json"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/documents"
)

var grepTool = Tool{
	Name: "grep",
	Description: `Search file contents with a regular expression (RE2 syntax, like ripgrep), line by line, in "path" (a directory or one file); "glob" filters files. ` +
		`Files excluded by .gitignore, .ignore or git's exclude files are skipped; files open in the editor are searched as their unsaved buffers. ` +
		`Results are grouped by file under [path#TAG] (the tag of the bytes searched: edit those rows directly), with rows "N:text" as read shows them. ` +
		`"context" adds the lines around each match as " N:text" rows (a leading space, as in edit's diffs), seen like the matches; "..." separates groups. ` +
		`A directory search shows 20 files per page and 20 matches per file; one file, 200 matches per page. When there is more, the last lines give the next page's "skip". ` +
		`Files not searched or cut (binary, ignored, too large, unreadable, symlinks) are counted in closing notes.`,
	InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "description": "Regular expression (RE2 syntax), or text when literal is true."},
    "path": {"type": "string", "description": "Directory or file to search; default the workspace root."},
    "glob": {"type": "string", "description": "Only files matching this glob: \"*.go\" matches names, \"src/**/*.ts\" paths under the searched directory; a leading ! excludes (\"!*_test.go\")."},
    "ignoreCase": {"type": "boolean", "description": "Match without regard to case."},
    "literal": {"type": "boolean", "description": "Treat pattern as plain text."},
    "skip": {"type": "integer", "minimum": 0, "description": "The skip the previous page gave (it counts files for a directory, matches for one file)."},
    "output": {"type": "string", "enum": ["rows", "files", "count"], "description": "rows (default): matching lines; files: paths only; count: matching lines per file."},
    "context": {"type": "integer", "minimum": 0, "maximum": 10, "description": "Lines before and after each match (rg -C)."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`),
	Handler: func(ctx context.Context, s *Session, args json.RawMessage) Result {
		var req documents.GrepRequest
		if err := decode("grep", args, &req); err != nil {
			return Refused(err)
		}
		if err := s.gateDocument(ctx, approvals.AccessSearch, req.Path); err != nil {
			return Refused(err)
		}
		text, err := documents.Grep(ctx, s.Seen, s.Buffers, s.Roots, req)
		if err != nil {
			return Refused(err)
		}
		return Result{Text: text}
	},
}
