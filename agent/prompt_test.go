package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
)

// A chat is named by the user's words, never by the text of a file the
// prompt attaches; a prompt of attachments alone is named by their names.
func TestChatIsTitledByTheUsersWords(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("SECRET PLANS of the attached file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := acp.ResourceLinkBlock("notes.txt", "file://"+filepath.Join(ws, "notes.txt"))
	embedded := acp.ResourceBlock(acp.EmbeddedResourceResource{TextResourceContents: &acp.TextResourceContents{
		Uri: "file://" + filepath.Join(ws, "notes.txt"), Text: "SECRET PLANS of the attached file\n"}})
	for _, c := range []struct {
		name   string
		prompt []acp.ContentBlock
		want   string
	}{
		{"link first", []acp.ContentBlock{link, acp.TextBlock("summarise\n  this file")}, "summarise this file"},
		{"embedded first", []acp.ContentBlock{embedded, acp.TextBlock("what is in it?")}, "what is in it?"},
		{"attachments alone", []acp.ContentBlock{link, embedded}, "notes.txt, notes.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			store, err := OpenStore(filepath.Join(t.TempDir(), "chats"))
			if err != nil {
				t.Fatal(err)
			}
			m := &fake.Model{}
			m.Responses = []func(providers.Request) providers.Response{fake.Say("ok")}
			chat := NewChat(Options{Session: openSession(ws), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"}, Store: store})
			defer chat.Close()
			if _, err := chat.Prompt(context.Background(), c.prompt, func(acp.SessionUpdate) {}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(lastUserText(m.Requests[0]), "SECRET PLANS") {
				t.Fatalf("the file did not reach the model: %+v", m.Requests[0].Messages)
			}
			list, err := store.List()
			if err != nil || len(list) != 1 || list[0].Title != c.want {
				t.Fatalf("title %+v %v, want %q", list, err, c.want)
			}
		})
	}
}

func lastUserText(req providers.Request) string {
	var b strings.Builder
	for _, blk := range req.Messages[len(req.Messages)-1].Blocks {
		b.WriteString(blk.Text)
	}
	return b.String()
}

// A prompt block of a type tandem does not send is refused naming that
// type, whether the SDK knows the type (audio) or not.
func TestUnsendableBlockIsNamed(t *testing.T) {
	for raw, want := range map[string]string{
		`[{"type":"video","uri":"file:///tmp/a.mp4"}]`:                                          `"video"`,
		`[{"type":"text","text":"look"},{"type":"audio","data":"AA==","mimeType":"audio/wav"}]`: `"audio"`,
	} {
		var prompt []acp.ContentBlock
		if err := json.Unmarshal([]byte(raw), &prompt); err != nil {
			t.Fatal(err)
		}
		m := &fake.Model{}
		chat := NewChat(Options{Session: openSession(t.TempDir()), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"}})
		_, err := chat.Prompt(context.Background(), prompt, func(acp.SessionUpdate) {})
		chat.Close()
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "empty") {
			t.Errorf("%s: error %v, want one naming %s", raw, err, want)
		}
		if len(m.Requests) != 0 {
			t.Errorf("%s: the model was called", raw)
		}
	}
}
