package mcpclient

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResultBytes is what a caller's standard output gets of a result: the
// structured content as JSON if the tool sent one, else each content item
// in order with a newline between — text as is, embedded text resources as
// their text, resource links as their URI. A binary item (image, audio,
// embedded blob) that is the only item is its decoded bytes, so
// `> out.png` is a real PNG; among other items it is a data: URI, text
// that keeps every byte. MaxResult bounds what this returns, not the
// reply that carried it (which may hold the text twice, as content and as
// structured content).
func ResultBytes(res *mcp.CallToolResult) ([]byte, error) {
	if res.StructuredContent != nil && !res.IsError {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, err
		}
		return b, checkSize(len(b))
	}
	if len(res.Content) == 1 {
		if data, _, ok := binary(res.Content[0]); ok {
			return data, checkSize(len(data))
		}
	}
	var out []byte
	for i, c := range res.Content {
		if i > 0 {
			out = append(out, '\n')
		}
		if data, mime, ok := binary(c); ok {
			out = append(out, "data:"+mime+";base64,"...)
			out = base64.StdEncoding.AppendEncode(out, data)
			continue
		}
		switch c := c.(type) {
		case *mcp.TextContent:
			out = append(out, c.Text...)
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				out = append(out, c.Resource.Text...)
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
	}
	return out, checkSize(len(out))
}

// binary is the bytes and media type of an image, audio or embedded blob.
func binary(c mcp.Content) (data []byte, mime string, ok bool) {
	switch c := c.(type) {
	case *mcp.ImageContent:
		return c.Data, c.MIMEType, true
	case *mcp.AudioContent:
		return c.Data, c.MIMEType, true
	case *mcp.EmbeddedResource:
		if c.Resource != nil && c.Resource.Blob != nil {
			return c.Resource.Blob, c.Resource.MIMEType, true
		}
	}
	return nil, "", false
}

func checkSize(n int) error {
	if n > MaxResult {
		return fmt.Errorf("the result is %.1f MiB, over the 16 MiB limit; ask the tool for less (a narrower query, a page of the results)", float64(n)/(1<<20))
	}
	return nil
}
