package agent

import (
	"encoding/base64"
	"fmt"
	"path"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

// imagesByName is the built-in rule for which models take images, by the
// model's own name (the part after the last "/", so OpenRouter's
// "openrouter/anthropic/claude-sonnet-4-5" counts as Claude). It is
// conservative: a name it does not know takes none, and agent.models'
// "images" says otherwise.
func imagesByName(model string) bool {
	name := strings.ToLower(path.Base(model))
	for _, no := range []string{"audio", "realtime", "transcribe", "tts", "embedding", "instant", "claude-2", "claude-3-5-haiku"} {
		if strings.Contains(name, no) {
			return false
		}
	}
	for _, prefix := range []string{"claude-", "gpt-4o", "gpt-4.1", "gpt-5", "o3", "o4-mini", "gemini-1.5", "gemini-2", "gemini-3"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	// Local vision models, as Ollama and llama.cpp name them.
	for _, part := range []string{"llava", "-vl", "vision", "minicpm-v", "pixtral", "moondream"} {
		if strings.Contains(name, part) {
			return true
		}
	}
	return false
}

// picture checks a prompt's image block and turns it into what providers
// send: a model that takes images, a type and size within the bounds of the
// read tool (documents.ImageType, documents.MaxImageBytes).
func (c *Chat) picture(img *acp.ContentBlockImage) (*providers.Picture, error) {
	model := c.opts.Endpoint.String()
	if !c.opts.Model.TakesImages() {
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf(
			"The prompt holds an image, and the model %s does not take images (as tandem knows it). Switch to a model that takes images (set \"images\": true in its agent.models entry if it does), or describe the image in words and send the prompt again.", model))
	}
	data, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		return nil, refusal.New(refusal.Invalid, "The prompt's image is not valid base64 data. Attach the image again.")
	}
	if len(data) > documents.MaxImageBytes {
		return nil, refusal.New(refusal.TooLarge, fmt.Sprintf(
			"The prompt's image is %d bytes; models take images of at most %d bytes. Shrink or crop it and send the prompt again.", len(data), documents.MaxImageBytes))
	}
	typ := documents.ImageType(data)
	if typ == "" {
		return nil, refusal.New(refusal.Encoding, fmt.Sprintf(
			"The prompt's image (declared %q) is not a PNG, JPEG, GIF or WebP picture. Convert it to one of those and send the prompt again.", img.MimeType))
	}
	return &providers.Picture{MediaType: typ, Data: img.Data}, nil
}

// withImages gives a tool result the images its call gave (a read of a
// png) when the model takes images, and else tells the model it was not
// shown them and what to do instead.
func (c *Chat) withImages(b providers.Block, images []documents.Image) providers.Block {
	pics, note := c.pictures(images)
	b.Images, b.Text = pics, b.Text+note
	return b
}

// pictures are images a call or a linked file gave, as the model takes
// them; for a model without images, none and a note saying so.
func (c *Chat) pictures(images []documents.Image) ([]providers.Picture, string) {
	if len(images) == 0 {
		return nil, ""
	}
	if !c.opts.Model.TakesImages() {
		return nil, fmt.Sprintf("\n(The model %s does not take images, so the image is not given to you. Ask the user what it shows, or to switch to a model that takes images.)", c.opts.Endpoint)
	}
	var out []providers.Picture
	for _, img := range images {
		out = append(out, providers.Picture{MediaType: img.MediaType, Data: base64.StdEncoding.EncodeToString(img.Data)})
	}
	return out, ""
}
