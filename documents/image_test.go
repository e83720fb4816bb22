package documents

import (
	"bytes"
	"errors"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/tandemdev/tandem/refusal"
)

// Each type is told by its magic bytes, whatever the file's name, and its
// dimensions come from its header; text is no image.
func TestImageTypeAndDimensions(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 7, 5))
	encode := map[string]func(*bytes.Buffer) error{
		"image/png":  func(b *bytes.Buffer) error { return png.Encode(b, img) },
		"image/jpeg": func(b *bytes.Buffer) error { return jpeg.Encode(b, img, nil) },
		"image/gif":  func(b *bytes.Buffer) error { return gif.Encode(b, img, nil) },
	}
	dir := t.TempDir()
	for want, enc := range encode {
		var b bytes.Buffer
		if err := enc(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "shot.txt") // the name says nothing
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := SniffImage(path); got != want {
			t.Errorf("SniffImage of %s = %q", want, got)
		}
		loaded, err := LoadImage(path, "shot.txt")
		if err != nil || loaded.MediaType != want || loaded.Width != 7 || loaded.Height != 5 {
			t.Errorf("LoadImage of %s: %+v %v", want, loaded.Describe(), err)
		}
	}
	webp := append([]byte("RIFF\x10\x00\x00\x00WEBPVP8 "), make([]byte, 8)...)
	if got := ImageType(webp); got != "image/webp" {
		t.Errorf("ImageType(webp) = %q", got)
	}
	if got := ImageType([]byte("RIFF\x10\x00\x00\x00WAVEfmt ")); got != "" {
		t.Errorf("a WAV file is %q", got)
	}
	if got := ImageType([]byte("hello\n")); got != "" {
		t.Errorf("text is %q", got)
	}
}

// An image over MaxImageBytes is refused as too large, naming the bound
// and the next action, before it is read.
func TestLoadImageRefusesOverTheBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.png")
	big := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, MaxImageBytes)...)
	if err := os.WriteFile(path, big, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadImage(path, "big.png")
	var r *refusal.Error
	if !errors.As(err, &r) || r.Code != refusal.TooLarge || !bytes.Contains([]byte(r.Error()), []byte("Make a smaller copy")) {
		t.Fatalf("LoadImage of %d bytes: %v", len(big), err)
	}
}
