package mcpclient

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Approved remembers, in the user's state directory, which workspace server
// definitions the user allowed to start, by content hash. It holds hashes,
// names and file paths — never a resolved value.
type Approved struct {
	path string
	mu   sync.Mutex
}

type approvedFile struct {
	Approved map[string]approvedEntry `json:"approved"`
}

type approvedEntry struct {
	Name   string    `json:"name"`
	Source string    `json:"source"`
	At     time.Time `json:"at"`
}

// NewApproved opens the store at path (tandem keeps it in its user state
// directory, as mcp-servers.json). An empty path remembers nothing: every
// server start is asked.
func NewApproved(path string) *Approved { return &Approved{path: path} }

// Has reports whether the definition was approved.
func (a *Approved) Has(d Def) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	f, _ := a.read()
	_, ok := f.Approved[d.Hash()]
	return ok
}

// Add remembers the definition as approved.
func (a *Approved) Add(d Def) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.path == "" {
		return nil // nowhere private to remember it: the next start asks again
	}
	f, err := a.read()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	f.Approved[d.Hash()] = approvedEntry{Name: d.Name, Source: d.Source, At: time.Now().UTC()}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(a.path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(a.path), ".mcp-servers-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), a.path)
}

// read returns the file's contents; a missing or unreadable file is empty
// (nothing approved), so a damaged file asks again rather than trusting.
func (a *Approved) read() (approvedFile, error) {
	f := approvedFile{Approved: map[string]approvedEntry{}}
	data, err := os.ReadFile(a.path)
	if err != nil {
		return f, err
	}
	if json.Unmarshal(data, &f) != nil || f.Approved == nil {
		f.Approved = map[string]approvedEntry{}
	}
	return f, nil
}
