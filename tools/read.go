package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/documents"
)

var readTool = Tool{
	Name: "read",
	Description: `Read a text file, or list a directory. The path is relative to the workspace root, absolute, or repo://PATH (confined to the workspace). ` +
		`The first line is [path#TAG]: TAG names the exact content the rows come from; edits quote it. Each row is "N:text" with its 1-based line number. ` +
		`"lines" selects rows, e.g. "40-80" or "1-5,120-" (ranges are sorted and merged; "..." stands where lines are skipped). ` +
		`Only rows you were shown count as seen, and edits may only anchor on seen lines. A long result keeps its head and tail and says which lines it cut and how to read them. ` +
		`A directory lists its numbered entries (files with size and lines); "lines" pages them. If the editor has the file open with unsaved changes, you see that buffer and are told so. Files over 4 MiB can be read only with "lines" and have no tag; binary and non-UTF-8 files are refused with what was found.`,
	InputSchema: json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File or directory: relative to the workspace root, absolute, or repo://PATH."},
    "lines": {"type": ["string", "integer"], "description": "Optional rows to read: \"N\", \"N-M\", \"N-\" (to the end), comma-separated, e.g. \"1-20,80-95\"."}
  },
  "required": ["path"],
  "additionalProperties": false
}`),
	Handler: func(ctx context.Context, s *Session, args json.RawMessage) Result {
		var a struct {
			Path  string   `json:"path"`
			Lines selector `json:"lines"`
		}
		if err := decode("read", args, &a); err != nil {
			return Refused(err)
		}
		if err := s.gateDocument(ctx, approvals.AccessRead, a.Path); err != nil {
			return Refused(err)
		}
		s.pull(ctx, a.Path)
		text, err := documents.Read(ctx, s.Seen, s.Buffers, s.Roots, a.Path, string(a.Lines))
		if err != nil {
			return Refused(err)
		}
		return Result{Text: text}
	},
}

// selector is read's lines argument: a string such as "5-10", or a bare line
// number, as models often send it.
type selector string

func (s *selector) UnmarshalJSON(b []byte) error {
	var str string
	if json.Unmarshal(b, &str) == nil {
		*s = selector(str)
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf(`lines must be a string such as "5-10" or a line number, not %s`, b)
	}
	*s = selector(strconv.Itoa(n))
	return nil
}
