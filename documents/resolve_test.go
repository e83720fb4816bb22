package documents

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/refusal"
)

func codeOf(err error) refusal.Code {
	var r *refusal.Error
	if errors.As(err, &r) {
		return r.Code
	}
	return ""
}

// segmentsGen draws repo:// paths out of a small alphabet of segments, so
// ".." often climbs above the root and often stays below it.
func segmentsGen() *rapid.Generator[[]string] {
	return rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b", "..", ".", ""}), 0, 8)
}

// climbsAbove is the lexical rule stated as depth: a path escapes when some
// prefix of it has more ".." segments than it went down.
func climbsAbove(segs []string) bool {
	depth := 0
	for _, s := range segs {
		switch s {
		case "", ".":
		case "..":
			if depth--; depth < 0 {
				return true
			}
		default:
			depth++
		}
	}
	return false
}

func TestLaw_path_rejects_escape(t *testing.T) {
	root := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		segs := segmentsGen().Draw(t, "segs")
		if !climbsAbove(segs) {
			t.Skip("stays inside")
		}
		p := RepoScheme + strings.Join(segs, "/")
		abs, err := Resolve([]string{root}, p)
		if codeOf(err) != refusal.Escapes {
			t.Fatalf("Resolve(%q) = %q, %v; want escapes (never clamped)", p, abs, err)
		}
	})
}

func TestLaw_path_resolves_inside(t *testing.T) {
	root := t.TempDir()
	rapid.Check(t, func(t *rapid.T) {
		segs := segmentsGen().Draw(t, "segs")
		if climbsAbove(segs) {
			t.Skip("escapes")
		}
		p := RepoScheme + strings.Join(segs, "/")
		abs, err := Resolve([]string{root}, p)
		// A path that never climbs above the root means what the operating
		// system's cleaning makes of it.
		want := filepath.Join(root, filepath.FromSlash(strings.Join(segs, "/")))
		if err != nil || abs != want {
			t.Fatalf("Resolve(%q) = %q, %v; want %q", p, abs, err, want)
		}
	})
}

func TestResolveSymlinkOutIsEscapes(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, os.Symlink(outside, filepath.Join(root, "out")))
	must(t, os.Symlink(filepath.Join(outside, "gone"), filepath.Join(root, "dangling")))
	must(t, os.Mkdir(filepath.Join(root, "in"), 0o755))
	must(t, os.Symlink(filepath.Join(root, "in"), filepath.Join(root, "alias")))
	for _, p := range []string{"repo://out/secret", "repo://out", "repo://out/new-file", "repo://dangling", "repo://dangling/x"} {
		if _, err := Resolve([]string{root}, p); codeOf(err) != refusal.Escapes {
			t.Errorf("Resolve(%q) = %v; want escapes", p, err)
		}
	}
	for _, p := range []string{"repo://alias/new-file", "repo://in", "repo://"} {
		if _, err := Resolve([]string{root}, p); err != nil {
			t.Errorf("Resolve(%q) = %v; want it inside", p, err)
		}
	}
	// Plain paths are not confined here: the path policy judges them.
	if abs, err := Resolve([]string{root}, "out/secret"); err != nil || abs != filepath.Join(root, "out/secret") {
		t.Errorf("plain path: %q, %v", abs, err)
	}
	if abs, err := Resolve([]string{root}, "../x"); err != nil || abs != filepath.Join(filepath.Dir(root), "x") {
		t.Errorf("plain ..: %q, %v", abs, err)
	}
}

func TestResolveSchemes(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"ssh://box/x", "file:///etc/passwd", "http://x", "REPO://a"} {
		if _, err := Resolve([]string{root}, p); codeOf(err) != refusal.Scheme {
			t.Errorf("Resolve(%q) = %v; want scheme", p, err)
		}
	}
	if abs, err := Resolve([]string{root}, "/etc/hosts"); err != nil || abs != "/etc/hosts" {
		t.Errorf("absolute: %q %v", abs, err)
	}
	if _, err := Resolve(nil, "a.go"); codeOf(err) != refusal.Invalid {
		t.Errorf("relative path without roots: %v", err)
	}
	for _, p := range []string{"a\x00b", "repo://a\x00b", "/etc\x00/hosts"} {
		if _, err := Resolve([]string{root}, p); codeOf(err) != refusal.Invalid || !strings.Contains(err.Error(), "NUL byte") {
			t.Errorf("Resolve(%q) = %v; want invalid naming the NUL byte", p, err)
		}
	}
}

func TestDisplay(t *testing.T) {
	roots := []string{"/w/proj"}
	for abs, want := range map[string]string{
		"/w/proj":         ".",
		"/w/proj/a/b.go":  "a/b.go",
		"/w/projx/a":      "/w/projx/a",
		"/etc/hosts":      "/etc/hosts",
		"/w/proj/..a/b.c": "..a/b.c",
	} {
		if got := Display(roots, abs); got != want {
			t.Errorf("Display(%q) = %q; want %q", abs, got, want)
		}
	}
}

// fataler is what the helpers need of a *testing.T or a *rapid.T.
type fataler interface{ Fatal(args ...any) }

func must(t fataler, err error) {
	if err != nil {
		t.Fatal(err)
	}
}
