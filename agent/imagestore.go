package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tandemdev/tandem/agent/providers"
)

// A chat's images are kept once each, by the SHA-256 of their bytes, in
// the store's images directory beside the chat files; the chat's lines
// name them by hash. Inline base64 would put up to 7 MB on one line,
// which every listing of chats reads past for titles, and a screenshot
// pasted again or read twice would be stored twice. Deleting a chat
// deletes the images no other chat names (dropPictures).

// imagesDir is where a store keeps its chats' images.
func imagesDir(store string) string { return filepath.Join(store, "images") }

// keepPictures stores the pictures of r's message in dir and returns r with
// each picture named by its hash instead of holding its data. r's own
// message is left as it was.
func keepPictures(dir string, r record, durable bool) (record, error) {
	if r.Message == nil || !hasPictures(*r.Message) {
		return r, nil
	}
	m := *r.Message
	m.Blocks = slices.Clone(m.Blocks)
	for i := range m.Blocks {
		b := &m.Blocks[i]
		if b.Image != nil {
			p, err := keepPicture(dir, *b.Image, durable)
			if err != nil {
				return r, err
			}
			b.Image = &p
		}
		if b.Images != nil {
			b.Images = slices.Clone(b.Images)
			for k, pic := range b.Images {
				p, err := keepPicture(dir, pic, durable)
				if err != nil {
					return r, err
				}
				b.Images[k] = p
			}
		}
	}
	r.Message = &m
	return r, nil
}

func hasPictures(m providers.Message) bool {
	return slices.ContainsFunc(m.Blocks, func(b providers.Block) bool { return b.Image != nil || len(b.Images) > 0 })
}

// keepPicture writes p's bytes to dir under their hash, unless there
// already, and returns p naming that file.
func keepPicture(dir string, p providers.Picture, durable bool) (providers.Picture, error) {
	if p.Data == "" {
		return p, nil // already stored
	}
	data, err := base64.StdEncoding.DecodeString(p.Data)
	if err != nil {
		return p, err
	}
	sum := sha256.Sum256(data)
	name := hex.EncodeToString(sum[:])
	kept := providers.Picture{MediaType: p.MediaType, SHA256: name}
	path := filepath.Join(dir, name)
	if _, err := os.Stat(path); err == nil {
		// Stored again now: a chat being deleted meanwhile must not take
		// it (see pictureGrace).
		now := time.Now()
		_ = os.Chtimes(path, now, now)
		return kept, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return p, err
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return p, err
	}
	defer os.Remove(f.Name()) // after the rename, nothing
	_, err = f.Write(data)
	if err == nil && durable {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	return kept, err
}

// loadPictures gives the pictures of m, named by hash, their data again
// from dir. A picture whose file is gone or altered becomes a note saying
// so, for the model and the user: the chat goes on without it.
func loadPictures(dir string, m providers.Message) providers.Message {
	if !hasPictures(m) {
		return m
	}
	var out []providers.Block
	for _, b := range m.Blocks {
		if b.Image != nil {
			p, err := loadPicture(dir, *b.Image)
			if err != nil {
				out = append(out, providers.Block{Kind: providers.Text, Note: true, Text: fmt.Sprintf("(An image of this prompt is no longer in the chat store: %v.)", err)})
				continue
			}
			b.Image = &p
		}
		var kept []providers.Picture
		for _, pic := range b.Images {
			p, err := loadPicture(dir, pic)
			if err != nil {
				b.Text += fmt.Sprintf("\n(An image this call gave is no longer in the chat store: %v.)", err)
				continue
			}
			kept = append(kept, p)
		}
		b.Images = kept
		out = append(out, b)
	}
	m.Blocks = out
	return m
}

func loadPicture(dir string, p providers.Picture) (providers.Picture, error) {
	if p.Data != "" {
		return p, nil
	}
	data, err := os.ReadFile(filepath.Join(dir, filepath.Base(p.SHA256)))
	if err != nil {
		return p, err
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != p.SHA256 {
		return p, fmt.Errorf("its file %s does not hold the image named", p.SHA256)
	}
	return providers.Picture{MediaType: p.MediaType, Data: base64.StdEncoding.EncodeToString(data)}, nil
}

// pictureGrace is how long an image that no chat's file names is kept
// when a chat is deleted: a journal stores a prompt's images (or touches
// them, when already there) just before it appends the line naming them,
// perhaps in another process.
const pictureGrace = time.Minute

// dropPictures removes from the store's images directory every image that
// no chat file left in store names: those deleted (the lines of the chat
// just deleted) named, and any other last stored over pictureGrace ago
// (left by an interrupted write, or by a chat deleted before tandem did
// this). A picture a chat loaded later misses becomes a note (loadPictures).
func dropPictures(store string, deleted []byte, now time.Time) error {
	dir := imagesDir(store)
	images, err := os.ReadDir(dir)
	if err != nil || len(images) == 0 {
		return nil // no image was ever kept
	}
	named := map[string]bool{}
	chats, err := os.ReadDir(store)
	if err != nil {
		return err
	}
	for _, c := range chats {
		if !strings.HasSuffix(c.Name(), ".jsonl") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(store, c.Name()))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // deleted meanwhile
			}
			return err // an image it names must not go
		}
		namePictures(data, func(name string) { named[name] = true })
	}
	gone := map[string]bool{}
	namePictures(deleted, func(name string) { gone[name] = true })
	var failed []string
	for _, e := range images {
		name := e.Name()
		if named[name] {
			continue
		}
		if !gone[name] {
			info, err := e.Info()
			if err != nil || now.Sub(info.ModTime()) < pictureGrace {
				continue
			}
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			failed = append(failed, name)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d images no chat names could not be removed from %s (%s…); remove them by hand", len(failed), dir, failed[0])
	}
	return nil
}

// namePictures calls found with the hash of each picture chat lines name.
func namePictures(lines []byte, found func(name string)) {
	const key = `"sha256":"`
	for {
		i := bytes.Index(lines, []byte(key))
		if i < 0 {
			return
		}
		lines = lines[i+len(key):]
		if end := bytes.IndexByte(lines, '"'); end == 2*sha256.Size {
			if _, err := hex.DecodeString(string(lines[:end])); err == nil {
				found(string(lines[:end]))
			}
		}
	}
}
