package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/tandemdev/tandem/approvals"
)

// fakeFS is a tree of directories by path; a name ending in "@" is a symlink.
type fakeFS map[string][]string

func (f fakeFS) list(dir string) ([]Dirent, error) {
	names, ok := f[dir]
	if !ok {
		return nil, os.ErrNotExist
	}
	var out []Dirent
	for _, n := range names {
		out = append(out, Dirent{Name: strings.TrimSuffix(n, "@"), Symlink: strings.HasSuffix(n, "@")})
	}
	return out, nil
}

var home = fakeFS{
	"/":                 {"bin@", "usr", "h", "proc", "tmp"},
	"/proc":             {"1", "42", "self@", "cpuinfo", "sys"},
	"/usr":              {"bin"},
	"/h":                {"u", "other"},
	"/h/u":              {".ssh", "src", ".cargo", "keys@", "ws", ".local"},
	"/h/u/.cargo":       {"credentials.toml", "credentials", "registry"},
	"/h/u/ws":           {".git", "main.go", "secret-in-ws"},
	"/h/u/.local":       {"state"},
	"/h/u/.local/state": {"tandem", "other"},
}

var places = Places{
	Roots:     []string{"/h/u/ws"},
	Scratch:   []string{"/tmp"},
	Secrets:   []approvals.Entry{{Path: "/h/u/.ssh"}, {Path: "/h/u/.cargo/credentials", NamePrefix: true}, {Path: "/proc/1"}, {Path: "/h/u/ws/secret-in-ws"}},
	Protected: []approvals.Entry{{Path: "/h/u/ws/.git"}, {Path: "/h/u/.local/state/tandem"}, {Path: "/usr/bin"}},
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

func TestPlanSplitsAroundSecrets(t *testing.T) {
	p := NewPlan(places, 0, home.list)
	wantRead := []string{"/h/other", "/h/u/.cargo/registry", "/h/u/.local", "/h/u/src", "/h/u/ws/.git", "/h/u/ws/main.go", "/proc/cpuinfo", "/proc/sys", "/tmp", "/usr"}
	if got := sorted(p.Read); !slices.Equal(got, wantRead) {
		t.Errorf("Read:\n got %q\nwant %q", got, wantRead)
	}
	// The root holds a secret, so it is split too; .git in the root stays
	// writable (see NewPlan).
	wantWrite := []string{"/h/u/ws/.git", "/h/u/ws/main.go", "/tmp"}
	if got := sorted(p.Write); !slices.Equal(got, wantWrite) {
		t.Errorf("Write:\n got %q\nwant %q", got, wantWrite)
	}
	wantList := []string{"/", "/h", "/h/u", "/h/u/.cargo", "/h/u/ws", "/proc"}
	if got := sorted(p.List); !slices.Equal(got, wantList) {
		t.Errorf("List:\n got %q\nwant %q", got, wantList)
	}
	if p.Net {
		t.Error("net granted without net")
	}
}

func TestPlanGrants(t *testing.T) {
	out := NewPlan(places, approvals.Of(approvals.Outside, approvals.Net), home.list)
	if !out.Net {
		t.Error("net not granted with net")
	}
	for _, w := range []string{"/h/other", "/h/u/src", "/h/u/.local/state/other", "/h/u/ws/main.go", "/tmp", "/h/u/.cargo/registry"} {
		if !covered(w, out.Write) {
			t.Errorf("with outside, %s is not writable: %q", w, out.Write)
		}
	}
	for _, w := range []string{"/h/u/.ssh/id", "/h/u/.local/state/tandem/log", "/usr/bin/ls", "/h/u/.cargo/credentials.toml", "/h/u/ws/secret-in-ws", "/h/u/new"} {
		if covered(w, out.Write) {
			t.Errorf("with outside only, %s is writable: %q", w, out.Write)
		}
	}
	sec := NewPlan(places, approvals.Of(approvals.Secret), home.list)
	for _, r := range []string{"/h/u/.ssh/id", "/h/u/.cargo/credentials.toml", "/proc/cpuinfo"} {
		if !covered(r, sec.Read) {
			t.Errorf("with secret, %s is not readable: %q", r, sec.Read)
		}
	}
	// No process's directory, whatever the grant: its environment holds
	// what the steps' environment lacks.
	all := NewPlan(places, Restricted, home.list)
	for _, p := range []string{"/proc/1/environ", "/proc/42/mem"} {
		if covered(p, all.Read) || covered(p, all.Write) {
			t.Errorf("with every grant, %s is open: %q %q", p, all.Read, all.Write)
		}
	}
	for _, w := range []string{"/h/u/.ssh/authorized_keys", "/h/u/.cargo/credentials.toml", "/h/u/.cargo/credentials"} {
		if !covered(w, sec.Write) {
			t.Errorf("with secret, %s is not writable: %q", w, sec.Write)
		}
	}
	if covered("/h/u/src/x", sec.Write) {
		t.Error("secret granted outside writes")
	}
	prot := NewPlan(places, approvals.Of(approvals.Protected), home.list)
	if !covered("/h/u/.local/state/tandem/log", prot.Write) || !covered("/usr/bin/ls", prot.Write) {
		t.Errorf("with protected, its entries are not writable: %q", prot.Write)
	}
}

func covered(path string, hierarchies []string) bool {
	for _, h := range hierarchies {
		if approvals.Under(path, h) {
			return true
		}
	}
	return false
}

// The law of the split: nothing granted is, holds or lies under a carved
// entry, and every other name the walk could reach is granted (symlinks
// are reached at their targets).
func TestLaw_split_grants_all_but_carved(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := []string{"a", "b", "c", "cred", "credx"}
		fs := fakeFS{}
		var all []string
		var walk func(dir string, depth int)
		walk = func(dir string, depth int) {
			for _, n := range names {
				if !rapid.Bool().Draw(t, "exists") {
					continue
				}
				p := filepath.Join(dir, n)
				if rapid.IntRange(0, 5).Draw(t, "kind") == 0 {
					fs[dir] = append(fs[dir], n+"@")
					continue
				}
				fs[dir] = append(fs[dir], n)
				all = append(all, p)
				if depth < 3 {
					fs[p] = nil
					walk(p, depth+1)
				}
			}
		}
		fs["/r"] = nil
		walk("/r", 0)
		var carves []approvals.Entry
		for range rapid.IntRange(0, 3).Draw(t, "carves") {
			depth := rapid.IntRange(1, 3).Draw(t, "depth")
			p := "/r"
			for range depth {
				p = filepath.Join(p, rapid.SampledFrom(names).Draw(t, "name"))
			}
			carves = append(carves, approvals.Entry{Path: p, NamePrefix: rapid.Bool().Draw(t, "prefix")})
		}
		s := splitter{list: fs.list}
		granted := s.split("/r", carves)
		for _, g := range granted {
			if carved(g, carves) || holds(g, carves) {
				t.Fatalf("granted %s, carved or holding a carved entry (%v)", g, carves)
			}
		}
		for _, p := range all {
			if carved(p, carves) || holds(p, carves) {
				if covered(p, granted) {
					t.Fatalf("%s is carved or holds a carved entry but is granted by %q", p, granted)
				}
				continue
			}
			if !covered(p, granted) {
				t.Fatalf("%s is not carved but not granted: %q (carves %v)", p, granted, carves)
			}
		}
	})
}

func TestReadDirMarksSymlinks(t *testing.T) {
	d := t.TempDir()
	if err := os.Mkdir(filepath.Join(d, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(d, "link")); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDir(d)
	if err != nil || len(got) != 2 || got[0] != (Dirent{Name: "link", Symlink: true}) || got[1] != (Dirent{Name: "sub"}) {
		t.Fatalf("ReadDir = %v, %v", got, err)
	}
	if _, err := ReadDir(filepath.Join(d, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadDir of a missing directory: %v", err)
	}
}

// Without outside or secret the home is held back: its roots, scratch
// places and readable places are read, nothing else there, and its names
// are not listed. Outside or secret opens it.
func TestPlanHoldsTheHomeBack(t *testing.T) {
	pl := places
	pl.Home = []string{"/h/u"}
	pl.Scratch = []string{"/tmp", "/h/u/.local/state/other"}
	pl.Readable = []string{"/h/u/.cargo", "/usr/bin"}
	p := NewPlan(pl, approvals.Of(approvals.Net), home.list)
	readable := append(slices.Clone(p.Read), p.Write...)
	for _, r := range []string{"/h/u/ws/main.go", "/h/u/.cargo/registry/x", "/h/u/.local/state/other/x", "/tmp/x", "/usr/bin/ls", "/h/other/x"} {
		if !covered(r, readable) {
			t.Errorf("%s is not readable: %q", r, readable)
		}
	}
	for _, r := range []string{"/h/u/src/x", "/h/u/.local/state/tandem/chat", "/h/u/.cargo/credentials.toml", "/h/u/.ssh/id", "/h/u/new"} {
		if covered(r, readable) {
			t.Errorf("%s is readable without outside: %q", r, readable)
		}
	}
	if slices.Contains(p.List, "/h/u") {
		t.Errorf("the home's names are listed: %q", p.List)
	}
	for _, grant := range []approvals.Effect{approvals.Outside, approvals.Secret} {
		open := NewPlan(pl, approvals.Of(grant), home.list)
		if !covered("/h/u/src/x", append(open.Read, open.Write...)) {
			t.Errorf("with %s, the home is not readable: %q", grant, open.Read)
		}
	}
}
