package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/acpserver/acptest"
	"github.com/tandemdev/tandem/agent/providers/scripted"
)

// dotPNG is a real 3×2 PNG.
func dotPNG(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// imagesACP starts `tandem acp` in ws on a scripted model speaking format,
// with images as the model's agent.models "images" ("" leaves it unset).
func imagesACP(t *testing.T, format scripted.Format, model, images string, ws string, responses ...scripted.Response) (*acpProcess, acp.SessionId, *scripted.Server, []string) {
	t.Helper()
	srv, err := scripted.Start(scripted.Script{Format: format, Responses: responses})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	api := "anthropic"
	if format == scripted.OpenAIChat {
		api = "openai-chat"
	}
	entry := "{}"
	if images != "" {
		entry = `{"images": ` + images + `}`
	}
	settings := `{"agent": {"model": "fake/` + model + `", "models": {"fake/` + model + `": ` + entry + `}, "providers": {"fake": {"api": "` + api + `", "url": "` + srv.URL() + `"}}}}`
	xdg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "config", "tandem"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(xdg, "config", "tandem", "config.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(xdg, "config"), "XDG_STATE_HOME=" + filepath.Join(xdg, "state")}
	p := startACP(t, builtTandem(t), ws, &acptest.Client{}, env...)
	return p, p.open(t, ws), srv, env
}

// lastUserContent is the content of the last user message of a recorded
// request, as sent.
func lastUserContent(t *testing.T, body json.RawMessage) string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			var b bytes.Buffer
			if err := json.Compact(&b, req.Messages[i].Content); err != nil {
				t.Fatal(err)
			}
			return b.String()
		}
	}
	t.Fatalf("no user message in %s", body)
	return ""
}

// A pasted image reaches each wire in the wire's own form: an Anthropic
// image block with a base64 source, an OpenAI image_url data URL. The
// chat's file names it by hash (its bytes are kept once beside the chat),
// and the chat reopened in another process shows it in the user's message.
func TestACPImagePromptReachesEachWire(t *testing.T) {
	pic := dotPNG(t)
	data := base64.StdEncoding.EncodeToString(pic)
	for _, tc := range []struct {
		format scripted.Format
		want   string
	}{
		{scripted.Anthropic, `[{"type":"text","text":"What is this?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + data + `"},"cache_control":{"type":"ephemeral"}}]`},
		{scripted.OpenAIChat, `[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,` + data + `"}}]`},
	} {
		t.Run(string(tc.format), func(t *testing.T) {
			ws := t.TempDir()
			p, id, srv, env := imagesACP(t, tc.format, "m1", "true", ws, scripted.Response{Parts: []scripted.Part{{Text: "A grey dot."}}})
			r, err := p.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{
				acp.TextBlock("What is this?"), acp.ImageBlock(data, "image/png")}})
			if err != nil || r.StopReason != acp.StopReasonEndTurn {
				t.Fatalf("prompt: %q, %v\n%s", r.StopReason, err, p.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			if got := lastUserContent(t, reqs[0].Body); got != tc.want {
				t.Errorf("the user message as sent:\n got %s\nwant %s", got, tc.want)
			}
			state := strings.TrimPrefix(env[1], "XDG_STATE_HOME=")
			chats, _ := filepath.Glob(filepath.Join(state, "tandem", "chats", "*.jsonl"))
			if len(chats) != 1 {
				t.Fatalf("chat files: %v", chats)
			}
			if file, _ := os.ReadFile(chats[0]); bytes.Contains(file, []byte(data)) {
				t.Errorf("the chat's file holds the image's data inline")
			}
			sum := sha256.Sum256(pic)
			if kept, err := os.ReadFile(filepath.Join(state, "tandem", "chats", "images", hex.EncodeToString(sum[:]))); !bytes.Equal(kept, pic) {
				t.Errorf("the image is not kept by its hash beside the chat: %v", err)
			}
			again := startACP(t, builtTandem(t), ws, &acptest.Client{}, env...)
			if _, err := again.conn.LoadSession(context.Background(), acp.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []acp.McpServer{}}); err != nil {
				t.Fatal(err)
			}
			var shown []string
			for _, u := range again.client.Updates() {
				if c := u.UserMessageChunk; c != nil && c.Content.Image != nil {
					shown = append(shown, c.Content.Image.MimeType+" "+c.Content.Image.Data)
				}
			}
			if want := "image/png " + data; len(shown) != 1 || shown[0] != want {
				t.Errorf("the reopened chat shows images %q, want one, the prompt's", shown)
			}
		})
	}
}

// A model that does not take images refuses the prompt, naming the model
// and the next action, and the provider is never called.
func TestACPImageRefusedForAModelWithoutImages(t *testing.T) {
	for _, images := range []string{"false", ""} { // said so, or a name the table does not know
		p, id, srv, _ := imagesACP(t, scripted.OpenAIChat, "textonly-7b", images, t.TempDir(), scripted.Response{Parts: []scripted.Part{{Text: "never"}}})
		_, err := p.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{
			acp.TextBlock("What is this?"), acp.ImageBlock(base64.StdEncoding.EncodeToString(dotPNG(t)), "image/png")}})
		var re *acp.RequestError
		if !errors.As(err, &re) || !strings.Contains(re.Message, "the model fake/textonly-7b does not take images") ||
			!strings.HasSuffix(re.Message, "or describe the image in words and send the prompt again.") {
			t.Fatalf("images %q: prompt with an image: %v", images, err)
		}
		if n := len(srv.Requests()); n != 0 {
			t.Errorf("images %q: the provider got %d requests", images, n)
		}
	}
}

// read of a png gives the model the image: inside the tool result on the
// Anthropic wire; on the OpenAI wire, whose tool messages hold text alone,
// in the user message right after the tool message, named by the call.
func TestACPReadOfAPNGGivesTheImage(t *testing.T) {
	pic := dotPNG(t)
	data := base64.StdEncoding.EncodeToString(pic)
	for _, tc := range []struct {
		format scripted.Format
		want   string
	}{
		{scripted.Anthropic, `[{"type":"tool_result","tool_use_id":"call_1","content":[{"type":"text","text":"dot.png: image/png image, 3×2, ` +
			strconv.Itoa(len(pic)) + ` bytes (the image itself is attached for a model that takes images)"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + data + `"}}],"cache_control":{"type":"ephemeral"}}]`},
		{scripted.OpenAIChat, `[{"type":"text","text":"Image from call_1:"},{"type":"image_url","image_url":{"url":"data:image/png;base64,` + data + `"}}]`},
	} {
		t.Run(string(tc.format), func(t *testing.T) {
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "dot.png"), pic, 0o644); err != nil {
				t.Fatal(err)
			}
			p, id, srv, _ := imagesACP(t, tc.format, "m1", "true", ws,
				scripted.Response{Parts: []scripted.Part{{Tool: &scripted.ToolCall{ID: "call_1", Name: "read", Input: json.RawMessage(`{"path":"dot.png"}`)}}}},
				scripted.Response{Parts: []scripted.Part{{Text: "A grey dot."}}})
			if stop, err := p.prompt(id, "Look at dot.png"); err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("prompt: %q, %v\n%s", stop, err, p.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d requests, want 2", len(reqs))
			}
			if got := lastUserContent(t, reqs[1].Body); got != tc.want {
				t.Errorf("after the read:\n got %s\nwant %s", got, tc.want)
			}
		})
	}
}

// A prompt that links an image file (an editor's @shot.png, a dragged
// file) gives the model the image after the file's context, not only its
// one-line description.
func TestACPLinkedImageFileIsSentAsTheImage(t *testing.T) {
	pic := dotPNG(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "dot.png"), pic, 0o644); err != nil {
		t.Fatal(err)
	}
	p, id, srv, _ := imagesACP(t, scripted.Anthropic, "m1", "true", ws, scripted.Response{Parts: []scripted.Part{{Text: "A grey dot."}}})
	r, err := p.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{
		acp.TextBlock("What is this?"), acp.ResourceLinkBlock("dot.png", "file://"+filepath.Join(ws, "dot.png"))}})
	if err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %q, %v\n%s", r.StopReason, err, p.stderr)
	}
	want := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + base64.StdEncoding.EncodeToString(pic) + `"},"cache_control":{"type":"ephemeral"}}]`
	if got := lastUserContent(t, srv.Requests()[0].Body); !strings.HasSuffix(got, want) || !strings.Contains(got, `\u003ccontext file=`) {
		t.Errorf("the user message as sent:\n got %s\nwant it to end with %s", got, want)
	}
}
