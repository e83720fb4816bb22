package documents

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif" // DecodeConfig reads their headers for the dimensions
	_ "image/jpeg"
	_ "image/png"
	"io"
	"os"

	"github.com/tandemdev/tandem/refusal"
)

// MaxImageBytes bounds an image given to a model: Anthropic's limit for
// one image, which the other providers' are not below.
const MaxImageBytes = 5 << 20

// ImageType names the picture content starts with, by its magic bytes
// (image/png, image/jpeg, image/gif, image/webp), or "" when it is none of
// them: the types every provider that takes images takes.
func ImageType(content []byte) string {
	switch {
	case bytes.HasPrefix(content, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(content, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(content, []byte("GIF87a")), bytes.HasPrefix(content, []byte("GIF89a")):
		return "image/gif"
	case len(content) >= 12 && bytes.HasPrefix(content, []byte("RIFF")) && string(content[8:12]) == "WEBP":
		return "image/webp"
	}
	return ""
}

// Image is an image file as read for a model.
type Image struct {
	Show          string // the path as shown
	MediaType     string
	Data          []byte
	Width, Height int // 0 when the header does not say cheaply (WebP)
}

// Describe says what the image is, in one line: path, type, size and
// dimensions.
func (i Image) Describe() string {
	dims := ""
	if i.Width > 0 {
		dims = fmt.Sprintf(", %d×%d", i.Width, i.Height)
	}
	return fmt.Sprintf("%s: %s image%s, %d bytes", i.Show, i.MediaType, dims, len(i.Data))
}

// SniffImage reports whether the file at abs is an image by its first
// bytes, and which type; a file it cannot open is none.
func SniffImage(abs string) string {
	f, err := os.Open(abs)
	if err != nil {
		return ""
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	head := make([]byte, 12)
	n, _ := io.ReadFull(f, head)
	return ImageType(head[:n])
}

// LoadImage reads the image file at abs (shown as show), within
// MaxImageBytes: a larger one is the refusal too_large.
func LoadImage(abs, show string) (Image, error) {
	info, err := os.Stat(abs)
	if err != nil {
		return Image{}, statRefusal(show, err)
	}
	if info.Size() > MaxImageBytes {
		return Image{}, refusal.New(refusal.TooLarge, fmt.Sprintf(
			"%s is a %d-byte image; models take images of at most %d bytes. Make a smaller copy with the shell (for example `convert -resize 50%%`) and read that.", show, info.Size(), MaxImageBytes))
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return Image{}, statRefusal(show, err)
	}
	img := Image{Show: show, MediaType: ImageType(data), Data: data}
	if img.MediaType == "" || len(data) > MaxImageBytes {
		return Image{}, refusal.New(refusal.Encoding, fmt.Sprintf("%s changed while it was read and is no longer an image. Read it again.", show))
	}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		img.Width, img.Height = cfg.Width, cfg.Height
	}
	return img, nil
}
