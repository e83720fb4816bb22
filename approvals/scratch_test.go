package approvals

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
)

func TestDefaultScratchFollowsGoEnv(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the cache home checked here is Linux's; macOS uses ~/Library/Caches")
	}
	home := "/h"
	got := DefaultScratch(home, []string{"PATH=/bin"})
	want := []string{"/tmp", "/h/.cache", "/h/go/pkg/mod", "/h/.npm", "/h/.cargo/registry", "/h/.cargo/git"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("defaults:\n got %q\nwant %q", got, want)
	}
	got = DefaultScratch(home, []string{"TMPDIR=/var/t", "XDG_CACHE_HOME=/c", "GOCACHE=/gc", "GOPATH=/gp1:/gp2", "PIP_CACHE_DIR=/pip"})
	want = []string{"/tmp", "/var/t", "/c", "/gc", "/gp1/pkg/mod", "/pip", "/h/.npm", "/h/.cargo/registry", "/h/.cargo/git"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("from the environment:\n got %q\nwant %q", got, want)
	}
	got = DefaultScratch(home, []string{"GOMODCACHE=/m", "GOCACHE=relative", "TMPDIR=/tmp/"})
	want = []string{"/tmp", "/h/.cache", "/m", "/h/.npm", "/h/.cargo/registry", "/h/.cargo/git"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("GOMODCACHE, and relative values ignored:\n got %q\nwant %q", got, want)
	}
}

// A write under a scratch place is a plain write; secret and protected
// entries there keep their class, and any other place outside stays outside.
func TestScratchWritesArePlainWrites(t *testing.T) {
	l := newLayout(t)
	scratch := filepath.Join(l.tmp, "scratch")
	cache := filepath.Join(l.home, ".cache")
	for _, d := range []string{scratch + "/proj/.git", cache, filepath.Join(l.tmp, "elsewhere")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(scratch, filepath.Join(l.tmp, "via-link")); err != nil {
		t.Fatal(err)
	}
	p := NewPolicy(PolicyConfig{
		Roots:   []string{l.ws},
		Home:    l.home,
		Env:     []string{"PATH=/usr/bin"},
		Scratch: []string{filepath.Join(l.tmp, "via-link"), cache, "relative/ignored"},
		Secrets: []string{cache + "/creds"},
	})
	if got, want := p.Scratch(), []string{scratch, cache}; !reflect.DeepEqual(got, want) {
		t.Errorf("Scratch() = %q, want the real paths %q", got, want)
	}
	for path, want := range map[string]PathClass{
		scratch + "/build/out.o":             PathScratch,
		filepath.Join(l.tmp, "via-link/x"):   PathScratch,
		cache + "/go-build/ab":               PathScratch,
		cache + "/creds/token":               PathSecret,
		scratch + "/proj/.git/hooks/pre-new": PathProtected,
		filepath.Join(l.tmp, "elsewhere/x"):  PathOutside,
		l.home + "/notes.txt":                PathOutside,
		"src/a.go":                           PathInside,
	} {
		if got := p.Judge(path); got != want {
			t.Errorf("Judge(%q) = %v, want %v", path, got, want)
		}
	}
	g := NewGate("s", Of(Read, Write), p, Nobody)
	if _, err := g.Access(context.Background(), AccessWrite, l.ws, scratch+"/new.txt"); err != nil {
		t.Errorf("a scratch write with write in the auto set asked: %v", err)
	}
	if _, err := g.Access(context.Background(), AccessWrite, l.ws, l.tmp+"/elsewhere/new.txt"); err == nil {
		t.Error("an outside write ran with outside missing from the auto set")
	}
}
