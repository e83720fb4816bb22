package documents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/tandemdev/tandem/refusal"
)

// RepoScheme prefixes a path that must stay inside the first workspace root.
const RepoScheme = "repo://"

// schemeRE recognises "name://" at the start of a path (RFC 3986 scheme).
var schemeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`) })

// Resolve turns a path the model wrote into an absolute, cleaned path.
//
// A plain path is relative to the first root, or absolute; it is not confined
// here (the path policy judges it later). A repo:// path is confined to the
// first root twice: lexically — ".." above the root is the refusal escapes,
// never clamped to the root — and then by real path, so a symlink that leads
// out of the root is escapes too. Any other scheme is the refusal scheme.
func Resolve(roots []string, p string) (string, error) {
	if strings.IndexByte(p, 0) >= 0 {
		// No file name holds a NUL; the system would refuse it with a bare
		// "invalid argument" that does not say what is wrong.
		return "", refusal.New(refusal.Invalid, fmt.Sprintf(
			"The path %q holds a NUL byte, which no file name can. Give the path without it.", p))
	}
	if m := schemeRE().FindString(p); m != "" {
		if m != RepoScheme {
			return "", refusal.New(refusal.Scheme, fmt.Sprintf(
				"%q uses the scheme %q, which tandem does not know. Use a plain path or repo://PATH.",
				p, strings.TrimSuffix(m, "://")))
		}
		return resolveRepo(roots, p)
	}
	if p == "" {
		return "", refusal.New(refusal.Invalid,
			"The path is empty. Give a path relative to the workspace root, or an absolute one.")
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	if len(roots) == 0 {
		return "", refusal.New(refusal.Invalid, fmt.Sprintf(
			"%q is relative, but this session has no workspace root. Give an absolute path.", p))
	}
	return filepath.Join(roots[0], p), nil
}

func resolveRepo(roots []string, p string) (string, error) {
	if len(roots) == 0 {
		return "", refusal.New(refusal.Invalid, fmt.Sprintf(
			"%q names the workspace root, but this session has none. Give an absolute path.", p))
	}
	root := filepath.Clean(roots[0])
	segs, ok := confine(strings.TrimPrefix(p, RepoScheme))
	if !ok {
		return "", escapes(p)
	}
	abs := filepath.Join(append([]string{root}, segs...)...)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", refusal.New(refusal.Failed, fmt.Sprintf(
			"The workspace root %s cannot be resolved (%v). Check that it exists.", root, err))
	}
	real, err := realPath(abs, 0)
	if err != nil {
		return "", refusal.New(refusal.Failed, fmt.Sprintf(
			"%q cannot be resolved (%v). Check the path and try again.", p, err))
	}
	if !Inside(realRoot, real) {
		return "", escapes(p)
	}
	return abs, nil
}

// confine applies URL path segments under a root: ".." goes up one segment,
// "." and empty segments do not move. It fails when a ".." would go above the
// root; the caller refuses, it never clamps.
func confine(rest string) ([]string, bool) {
	var segs []string
	for _, s := range strings.Split(rest, "/") {
		switch s {
		case "", ".":
		case "..":
			if len(segs) == 0 {
				return nil, false
			}
			segs = segs[:len(segs)-1]
		default:
			segs = append(segs, s)
		}
	}
	return segs, true
}

// realPath follows symlinks in abs. A path that does not exist yet (a file
// about to be written) resolves through its longest existing ancestor, so a
// symlinked directory on the way is still followed.
func realPath(abs string, depth int) (string, error) {
	if depth > 40 {
		return "", errors.New("too many levels of symbolic links")
	}
	var rest []string
	p := abs
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs, nil
		}
		// A dangling symlink is resolved by its target, not skipped.
		if t, lerr := os.Readlink(p); lerr == nil {
			if !filepath.IsAbs(t) {
				t = filepath.Join(parent, t)
			}
			return realPath(filepath.Join(append([]string{t}, rest...)...), depth+1)
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

func escapes(p string) error {
	return refusal.New(refusal.Escapes, fmt.Sprintf(
		"%q leads outside the workspace root, so it is refused (it is never clamped to the root). Name a path under the root, such as repo://README.md.", p))
}

// Inside reports whether path is root or below it. Both must be clean.
func Inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Display shows an absolute path back to the model: relative to the first
// root when it is inside it (with "/" separators), else absolute.
func Display(roots []string, abs string) string {
	if len(roots) > 0 {
		root := filepath.Clean(roots[0])
		if abs == root {
			return "."
		}
		if Inside(root, abs) {
			rel, _ := filepath.Rel(root, abs)
			return filepath.ToSlash(rel)
		}
	}
	return abs
}
