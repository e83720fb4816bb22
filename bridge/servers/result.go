package servers

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResultBytes is what a caller's standard output gets of a result: the
// structured content as JSON if the tool sent one, else each content item
// in order — text as is, images, audio and embedded blobs as their decoded
// bytes (so `> out.png` is a real PNG), embedded text resources as their
// text, resource links as their URI — with a newline between items.
func ResultBytes(res *mcp.CallToolResult) ([]byte, error) {
	if res.StructuredContent != nil && !res.IsError {
		return json.Marshal(res.StructuredContent)
	}
	var out []byte
	for i, c := range res.Content {
		if i > 0 {
			out = append(out, '\n')
		}
		switch c := c.(type) {
		case *mcp.TextContent:
			out = append(out, c.Text...)
		case *mcp.ImageContent:
			out = append(out, c.Data...)
		case *mcp.AudioContent:
			out = append(out, c.Data...)
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				if c.Resource.Blob != nil {
					out = append(out, c.Resource.Blob...)
				} else {
					out = append(out, c.Resource.Text...)
				}
			}
		case *mcp.ResourceLink:
			out = append(out, c.URI...)
		default:
			b, err := json.Marshal(c)
			if err != nil {
				return nil, err
			}
			out = append(out, b...)
		}
		if len(out) > MaxResult {
			return nil, fmt.Errorf("the result is larger than 16 MiB")
		}
	}
	return out, nil
}
