package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"
)

// Setting is a value at a dotted key, such as "agent.model".
type Setting struct {
	Key   string
	Value any
}

// SetUser sets values in the user settings file, in order, for an
// editor's setup done by the user: the
// file is edited in place on its syntax tree (tailscale/hujson), so the
// order, layout and every other setting stay as they were (the
// new value is written compactly where it goes); a missing file is made
// (0600, in a private directory). It is written through a
// temporary file and a rename, and only when tandem trusts the file
// (Trusted). It never takes a key: keys live in the environment.
func SetUser(sets ...Setting) error {
	file := UserFile()
	if file == "" {
		_, err := Home()
		return err
	}
	src, err := ReadTrusted(file)
	made := errors.Is(err, fs.ErrNotExist)
	switch {
	case made:
		src = []byte("{}\n")
		if err := MakePrivateDir(filepath.Dir(file)); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	v, err := hujson.Parse(src)
	if err != nil {
		return fmt.Errorf("%s is not valid JSON (%v); fix it, then try again", file, err)
	}
	for _, set := range sets {
		ops, err := setOps(v, strings.Split(set.Key, "."), set.Value)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if err := v.Patch(ops); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	}
	if made {
		v.Format() // tandem's own file: laid out whole; a user's keeps its layout
	}
	return WriteReplacing(file, v.Pack(), 0o600)
}

// setOps is the JSON Patch that sets path to value in v: an "add" of each
// object on the way that is missing, then of the value (which replaces
// one there). A value on the way that is not an object is an error.
func setOps(v hujson.Value, path []string, value any) ([]byte, error) {
	var ops []map[string]any
	pointer := ""
	var cur any
	plain := v.Clone()
	plain.Standardize() // comments and trailing commas out, for encoding/json
	if err := json.Unmarshal(plain.Pack(), &cur); err != nil {
		return nil, err
	}
	for i, name := range path {
		pointer += "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s is not an object; fix it, then try again", strings.Join(path[:i], "."))
		}
		if i == len(path)-1 {
			ops = append(ops, map[string]any{"op": "add", "path": pointer, "value": value})
			break
		}
		next, ok := obj[name]
		if !ok {
			ops = append(ops, map[string]any{"op": "add", "path": pointer, "value": map[string]any{}})
			next = map[string]any{}
		}
		cur = next
	}
	return json.Marshal(ops)
}

// WriteReplacing writes data over file through a temporary file beside it
// and a rename, so that a reader never sees half a file; the file keeps its
// mode, and a new one gets newMode.
func WriteReplacing(file string, data []byte, newMode fs.FileMode) error {
	mode := newMode
	if st, err := os.Stat(file); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".tandem-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
