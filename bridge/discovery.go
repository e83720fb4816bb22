package bridge

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
)

// An editor's `tandem lsp` announces its bridge for each workspace root in a
// discovery entry, so a `tandem mcp serve` started outside the editor's
// terminals (an agent's own MCP configuration) finds the editor of its
// folder. An entry holds no token: the bridge admits a request without one
// from a process of this user (the kernel's peer credentials) as the owner
// of the entries, so nothing that opens a session rests in a file. The
// directory is the user's own (0700), each entry 0600, and an entry goes
// when its server ends.

// entry is one discovery file.
type entry struct {
	Root   string `json:"root"`
	Socket string `json:"socket"`
}

// discoveryDir is tandem's private runtime directory of entries, created
// 0700 if missing; an existing one must be a directory of this user's that
// nobody else can enter.
func discoveryDir() (string, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	name := "tandem-lsp"
	if fi, err := os.Stat(base); base == "" || err != nil || !fi.IsDir() {
		base, name = os.TempDir(), fmt.Sprintf("tandem-lsp-%d", os.Getuid())
	}
	dir := filepath.Join(base, name)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s is not a private directory of this user", dir)
	}
	return dir, nil
}

func entryName(root string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return hex.EncodeToString(sum[:12]) + ".json"
}

// Announce writes the discovery entry of root for the bridge at socket (the
// socket of a ByPeer owner). The returned withdraw removes the entry,
// unless a later server of the same root has replaced it.
func Announce(root, socket string) (withdraw func(), err error) {
	if socket == "" {
		return nil, errors.New("the MCP bridge has no socket")
	}
	dir, err := discoveryDir()
	if err != nil {
		return nil, err
	}
	data, _ := json.Marshal(entry{Root: filepath.Clean(root), Socket: socket})
	f, err := os.CreateTemp(dir, ".new-*")
	if err != nil {
		return nil, err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	path := filepath.Join(dir, entryName(root))
	if werr == nil {
		werr = os.Rename(f.Name(), path) // CreateTemp made it 0600
	}
	if werr != nil {
		os.Remove(f.Name())
		return nil, werr
	}
	return func() {
		if got, ok := readEntry(path); ok && got.Socket == socket {
			os.Remove(path)
		}
	}, nil
}

func readEntry(path string) (entry, bool) {
	var e entry
	data, err := os.ReadFile(path)
	return e, err == nil && json.Unmarshal(data, &e) == nil && e.Socket != ""
}

// Discover finds the running editor's tandem whose workspace root is dir or
// the nearest of its parents that has one, and returns its bridge's
// variables and that root. An entry whose socket no longer answers (its
// tandem was killed) is removed on the way. The Env has no token: its
// requests are admitted by peer credentials. When no entry is found, it
// returns ErrNoBridge.
func Discover(dir string) (Env, string, error) {
	ents, err := discoveryDir()
	if err != nil {
		return Env{}, "", fmt.Errorf("%w: %v", ErrNoBridge, err)
	}
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		path := filepath.Join(ents, entryName(d))
		if e, ok := readEntry(path); ok && e.Root == d {
			c, err := net.Dial("unix", e.Socket)
			if err == nil {
				c.Close()
				return Env{Socket: e.Socket}, d, nil
			}
			if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, os.ErrNotExist) {
				os.Remove(path)
			}
		}
		if d == filepath.Dir(d) {
			return Env{}, "", fmt.Errorf("%w: no editor with tandem has %s or a parent open", ErrNoBridge, dir)
		}
	}
}
