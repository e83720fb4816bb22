package tools

import "github.com/modelcontextprotocol/go-sdk/mcp"

// MCP is the result as an MCP CallToolResult, the one mapping every front
// door sends: the model's text as one text content, isError, the
// structured content, and on a refusal its code in _meta.code, so a client
// can tell a conflict from a denial without parsing the text.
func (r Result) MCP() *mcp.CallToolResult {
	out := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: r.Text}},
		IsError:           r.IsError,
		StructuredContent: r.Structured,
	}
	for _, img := range r.Images {
		out.Content = append(out.Content, &mcp.ImageContent{Data: img.Data, MIMEType: img.MediaType})
	}
	if r.Code != "" {
		out.Meta = mcp.Meta{"code": string(r.Code)}
	}
	return out
}

// MCPTools is the session's tools as an MCP server lists them, each with
// the hints an MCP client decides by whether to ask before a call and
// whether calls may run side by side — all from the tool's definition, as
// the agent's plan mode and concurrency are — and marked to be loaded up
// front: Claude Code otherwise hides a server's tools behind its tool
// search, and a model that must search before every read uses its own
// blind tools instead.
func MCPTools(s *Session) []*mcp.Tool {
	alwaysLoad := mcp.Meta{"anthropic/alwaysLoad": true}
	var out []*mcp.Tool
	for _, t := range List(s) {
		hints := &mcp.ToolAnnotations{
			Title:          t.DisplayName,
			ReadOnlyHint:   t.ReadOnly,
			IdempotentHint: t.ReadOnly || t.Idempotent,
			OpenWorldHint:  &t.OpenWorld,
		}
		if !t.ReadOnly {
			hints.DestructiveHint = &t.Destructive
		}
		out = append(out, &mcp.Tool{Name: t.Name, Title: t.DisplayName, Description: t.Description, InputSchema: t.InputSchema(), Annotations: hints, Meta: alwaysLoad})
	}
	return out
}
