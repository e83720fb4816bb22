package tools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/documents"
)

func init() { register(grepTool) }

var grepTool = spec[grepArgs]{
	Tool: Tool{
		Name:        "grep",
		DisplayName: "Search file contents",
		Description: `Search file contents with a regular expression (RE2 syntax, like ripgrep), line by line, in "path" (a directory or one file); "glob" filters files. ` +
			`Files excluded by .gitignore, .ignore or git's exclude files are skipped; files open in the editor are searched as their unsaved buffers. ` +
			`Results are grouped by file under [path#TAG] (the tag of the bytes searched: edit those rows directly), with rows "N:text" as read shows them. ` +
			`"context" adds the lines around each match as " N:text" rows (a leading space, as in edit's diffs), seen like the matches; "..." separates groups. ` +
			`A directory search shows 20 files per page and 20 matches per file; one file, 200 matches per page. When there is more, the last lines give the next page's "skip". ` +
			`Files not searched or cut (binary, ignored, unreadable, symlinks) are counted in closing notes.`,
		Examples: examples(`{"pattern":"func main","glob":"*.go"}`, `{"pattern":"TODO","path":"src","output":"count"}`,
			`{"pattern":"a.b","literal":true,"ignoreCase":true,"context":2,"skip":20,"glob":"!*_test.go"}`),
		ReadOnly: true,
		Kind:     KindSearch,
		Aliases:  []string{"search"},
	},
	run: func(ctx context.Context, s *Session, a grepArgs) Result {
		if err := s.gateDocument(ctx, approvals.AccessSearch, a.Path); err != nil {
			return Refused(err)
		}
		text, err := documents.Grep(ctx, s.Seen, s.Buffers, s.Roots, documents.GrepRequest(a))
		if err != nil {
			return Refused(err)
		}
		return Result{Text: text}
	},
	title: func(a grepArgs) string { return "Search for " + a.Pattern },
	paths: func(a grepArgs) []string { return nonEmpty(a.Path) },
	refine: func(s *jsonschema.Schema) {
		p := s.Properties
		p["skip"].Minimum = jsonschema.Ptr(0.0)
		p["output"].Enum = []any{"rows", "files", "count"}
		p["context"].Minimum, p["context"].Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(10.0)
	},
}

// grepArgs are grep's arguments: documents.GrepRequest, described for a
// model.
type grepArgs struct {
	Pattern    string `json:"pattern" jsonschema:"Regular expression (RE2 syntax), or text when literal is true."`
	Path       string `json:"path,omitempty" jsonschema:"Directory or file to search; default the workspace root."`
	Glob       string `json:"glob,omitempty" jsonschema:"Only files matching this glob: \"*.go\" matches names, \"src/**/*.ts\" paths under the searched directory; a leading ! excludes (\"!*_test.go\")."`
	IgnoreCase bool   `json:"ignoreCase,omitempty" jsonschema:"Match without regard to case."`
	Literal    bool   `json:"literal,omitempty" jsonschema:"Treat pattern as plain text."`
	Skip       int    `json:"skip,omitempty" jsonschema:"The skip the previous page gave (it counts files for a directory, matches for one file)."`
	Output     string `json:"output,omitempty" jsonschema:"rows (default): matching lines; files: paths only; count: matching lines per file."`
	Context    int    `json:"context,omitempty" jsonschema:"Lines before and after each match (rg -C)."`
}

// nonEmpty is path as a list: none when it is "".
func nonEmpty(path string) []string {
	if path == "" {
		return nil
	}
	return []string{path}
}
