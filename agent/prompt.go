package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/tools"
)

// userMessage turns a prompt into the model's user message. Text is kept as
// is. A file the prompt names (a resource link, or an embedded resource
// with a file:// URI, optionally with a #L10-20 range) is read through the
// read tool, so the model gets it tagged, with numbered rows it has seen
// and can edit; other embedded text (a diagnostic list, a terminal's
// output) is included as the client sent it. An image goes to a model
// that takes images, and is refused for any other.
func (c *Chat) userMessage(ctx context.Context, prompt []acp.ContentBlock) (providers.Message, error) {
	m := providers.Message{Role: providers.User}
	for _, b := range prompt {
		var text string
		var images []documents.Image // a linked file that is an image
		switch {
		case b.Text != nil && b.Text.Type != "" && b.Text.Type != "text":
			// The SDK decodes a block of a type it does not know as text.
			return providers.Message{}, unsendable(b.Text.Type)
		case b.Text != nil:
			text = b.Text.Text
		case b.Image != nil:
			pic, err := c.picture(b.Image)
			if err != nil {
				return providers.Message{}, err
			}
			m.Blocks = append(m.Blocks, providers.Block{Kind: providers.Image, Image: pic})
		case b.ResourceLink != nil:
			text, images = c.readContext(ctx, b.ResourceLink.Uri)
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			if strings.HasPrefix(r.Uri, "file://") {
				text, images = c.readContext(ctx, r.Uri)
			} else {
				text = fmt.Sprintf("<context uri=%q>\n%s\n</context>", r.Uri, r.Text)
			}
		default:
			return providers.Message{}, unsendable(blockType(b))
		}
		pics, note := c.pictures(images)
		if text += note; text != "" {
			m.Blocks = append(m.Blocks, providers.Block{Kind: providers.Text, Text: text})
		}
		for _, p := range pics {
			m.Blocks = append(m.Blocks, providers.Block{Kind: providers.Image, Image: &p})
		}
	}
	if len(m.Blocks) == 0 {
		return providers.Message{}, fmt.Errorf("the prompt is empty; type a message")
	}
	return m, nil
}

// unsendable refuses a prompt holding a block of type typ.
func unsendable(typ string) error {
	return fmt.Errorf("the prompt holds a block of type %q, which tandem cannot send to a model yet (only text, images and text resources); remove it and send the prompt again", typ)
}

// blockType names a block's type as ACP spells it.
func blockType(b acp.ContentBlock) string {
	switch {
	case b.Audio != nil:
		return "audio"
	case b.Resource != nil:
		return "resource" // a binary one: text resources are sent
	}
	return "unknown"
}

// title names a chat by its first prompt: the user's own words on one
// line, never an attached file's text; a prompt of attachments alone is
// named by their names.
func title(prompt []acp.ContentBlock) string {
	var words, names []string
	for _, b := range prompt {
		switch {
		case b.Text != nil:
			words = append(words, b.Text.Text)
		case b.ResourceLink != nil:
			names = append(names, b.ResourceLink.Name)
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			names = append(names, path.Base(b.Resource.Resource.TextResourceContents.Uri))
		}
	}
	t := strings.Join(strings.Fields(strings.Join(words, " ")), " ")
	if t == "" {
		t = strings.Join(names, ", ")
	}
	if r := []rune(t); len(r) > 80 {
		t = string(r[:79]) + "…"
	}
	return t
}

// lineRange is a URI fragment naming lines: L10, L10-20 or L10-L20.
var lineRange = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^L(\d+)(?:-L?(\d+))?$`) })

// readContext reads a file a prompt names, as the read tool shows it, with
// the image when the file is one.
func (c *Chat) readContext(ctx context.Context, uri string) (string, []documents.Image) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || !filepath.IsAbs(u.Path) {
		return fmt.Sprintf("<context uri=%q>(not a local file; not read)</context>", uri), nil
	}
	args := map[string]any{"path": u.Path}
	if m := lineRange().FindStringSubmatch(u.Fragment); m != nil {
		args["lines"] = m[1]
		if m[2] != "" {
			args["lines"] = m[1] + "-" + m[2]
		}
	}
	raw, _ := json.Marshal(args)
	res := tools.Call(ctx, c.opts.Session, "read", raw)
	return fmt.Sprintf("<context file=%q>\n%s</context>", u.Path, res.Text), res.Images
}
