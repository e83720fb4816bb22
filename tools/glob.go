package tools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/documents"
)

func init() { register(globTool) }

var globTool = spec[globArgs]{
	Tool: Tool{
		Name:        "glob",
		DisplayName: "Find files by name",
		Description: `Find files and directories by name with a glob pattern: "*" within one path segment, "**" across directories, "{a,b}" alternatives, "[a-z]" classes. ` +
			`The pattern is matched against paths relative to "path", e.g. "**/*_test.go" or "cmd/*/main.go". ` +
			`Files excluded by .gitignore, .ignore or git's exclude files are skipped. ` +
			`Paths are listed newest first (by modification time), then by name, relative to the workspace root; directories end in "/". ` +
			`A page holds at most 200 paths ("limit" asks for fewer); when more match, the last lines give the count and the "skip" for the next page.`,
		Examples: examples(`{"pattern":"**/*_test.go"}`, `{"pattern":"*/main.go","path":"cmd","skip":200,"limit":50}`),
		ReadOnly: true,
		Kind:     KindSearch,
		Aliases:  []string{"find"},
	},
	run: func(ctx context.Context, s *Session, a globArgs) Result {
		if err := s.gateDocument(ctx, approvals.AccessList, a.Path); err != nil {
			return Refused(err)
		}
		rep, err := s.Seen.GlobPage(ctx, s.Roots, documents.GlobRequest(a))
		if err != nil {
			return Refused(err)
		}
		return Result{Text: rep.Render()}
	},
	title: func(a globArgs) string { return "Find " + a.Pattern },
	paths: func(a globArgs) []string { return nonEmpty(a.Path) },
	refine: func(s *jsonschema.Schema) {
		p := s.Properties
		p["skip"].Minimum = jsonschema.Ptr(0.0)
		p["limit"].Minimum, p["limit"].Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(documents.MaxGlobPage))
	},
}

// globArgs are glob's arguments: documents.GlobRequest, described for a
// model.
type globArgs struct {
	Pattern string `json:"pattern" jsonschema:"Glob relative to path."`
	Path    string `json:"path,omitempty" jsonschema:"Directory to search; default the workspace root."`
	Skip    int    `json:"skip,omitempty" jsonschema:"The skip the previous page gave."`
	Limit   int    `json:"limit,omitempty" jsonschema:"Page size; default and maximum 200."`
}
