package edits

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

// ws is a real temporary workspace with one session's environment.
type ws struct {
	t    tester
	root string
	env  *Env
}

// tester is what the helpers need of a *testing.T or a *rapid.T.
type tester interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

func newWS(t *testing.T, files map[string]string) *ws {
	t.Helper()
	return newWSIn(t, t.TempDir(), files)
}

// newWSIn makes a workspace in dir/w, its commits' journal in
// dir/journal (for property tests, which clean up themselves).
func newWSIn(t tester, dir string, files map[string]string) *ws {
	t.Helper()
	root := filepath.Join(dir, "w")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &ws{t: t, root: root, env: &Env{Roots: []string{root}, Seen: documents.NewStore(), Buffers: documents.NewOverlay(), Journal: filepath.Join(dir, "journal")}}
}

func (w *ws) abs(name string) string { return filepath.Join(w.root, name) }

func (w *ws) file(name string) string {
	w.t.Helper()
	b, err := os.ReadFile(w.abs(name))
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

func (w *ws) put(name, content string) {
	w.t.Helper()
	if err := os.WriteFile(w.abs(name), []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

var headerRE = regexp.MustCompile(`\[([^\]]+)#([0-9A-F]{8})\]`)

// read reads a file (or some lines of it) as the model would and returns the
// tag.
func (w *ws) read(name, lines string) string {
	w.t.Helper()
	out, err := documents.Read(context.Background(), w.env.Seen, w.env.Buffers, w.env.Roots, name, lines)
	if err != nil {
		w.t.Fatalf("read %s: %v", name, err)
	}
	m := headerRE.FindStringSubmatch(out)
	if m == nil {
		w.t.Fatalf("read %s: no header in %q", name, out)
	}
	return m[2]
}

// edit calls Edit with JSON arguments, as the tool does.
func (w *ws) edit(args string) (string, error) {
	w.t.Helper()
	var a Args
	dec := json.NewDecoder(strings.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		w.t.Fatalf("bad test args %s: %v", args, err)
	}
	return Edit(context.Background(), w.env, a)
}

func codeOf(err error) refusal.Code {
	var r *refusal.Error
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func jsonDecode(s string, v any) error {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
