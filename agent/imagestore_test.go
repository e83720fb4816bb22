package agent

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/tools"
)

// pngOf is a 1×1 PNG of one colour, and the name the store keeps it by.
func pngOf(t *testing.T, c color.RGBA) (data, name string) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, c)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b.Bytes())
	return base64.StdEncoding.EncodeToString(b.Bytes()), hex.EncodeToString(sum[:])
}

// storedImages is the names in the store's images directory.
func storedImages(t *testing.T, store string) []string {
	t.Helper()
	es, err := os.ReadDir(imagesDir(store))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// A deleted chat takes its images with it, but not one another chat
// names, nor one just stored that no chat's file names yet; an image left
// by no chat (an interrupted write, a chat deleted long ago) goes too.
func TestDeletingAChatDeletesTheImagesNoOtherChatNames(t *testing.T) {
	ws, dir := t.TempDir(), filepath.Join(t.TempDir(), "chats")
	store, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	shared, sharedName := pngOf(t, color.RGBA{R: 255, A: 255})
	own, ownName := pngOf(t, color.RGBA{G: 255, A: 255})
	takesImages := true
	chatWith := func(images ...string) string {
		m := &fake.Model{}
		m.Responses = []func(providers.Request) providers.Response{fake.Say("I see it.")}
		c := NewChat(Options{Session: tools.Open(tools.Options{Roots: []string{ws}}), Provider: m,
			Endpoint: Endpoint{Provider: "test", Model: "m"}, Model: ModelInfo{Images: &takesImages}, Store: store})
		defer c.Close()
		prompt := textPrompt("What is this?")
		for _, img := range images {
			prompt = append(prompt, acp.ImageBlock(img, "image/png"))
		}
		if _, err := c.Prompt(context.Background(), prompt, func(acp.SessionUpdate) {}); err != nil {
			t.Fatal(err)
		}
		return c.ID
	}
	first := chatWith(shared, own)
	second := chatWith(shared)
	if got := storedImages(t, dir); !slices.Equal(got, sortedOf(sharedName, ownName)) {
		t.Fatalf("stored %v, want %s and %s", got, sharedName, ownName)
	}
	// An image no chat names: one left long ago, one being stored now.
	stale, fresh := filepath.Join(imagesDir(dir), hex.EncodeToString(make([]byte, 32))), filepath.Join(imagesDir(dir), ".tmp-123")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2 * pictureGrace)
	if err := os.Chtimes(stale, long, long); err != nil {
		t.Fatal(err)
	}

	if err := store.Delete(first); err != nil {
		t.Fatal(err)
	}
	if got := storedImages(t, dir); !slices.Equal(got, sortedOf(sharedName, ".tmp-123")) {
		t.Fatalf("after deleting the first chat the store holds %v, want the shared image and the one being stored", got)
	}
	if _, msgs, err := store.Load(second); err != nil || len(msgs) != 2 || msgs[0].Blocks[len(msgs[0].Blocks)-1].Image == nil {
		t.Fatalf("the chat sharing the image lost it: %+v %v", msgs, err)
	}
	if err := store.Delete(second); err != nil {
		t.Fatal(err)
	}
	if got := storedImages(t, dir); !slices.Equal(got, []string{".tmp-123"}) {
		t.Fatalf("after deleting both chats the store holds %v", got)
	}
}

func sortedOf(s ...string) []string { slices.Sort(s); return s }
