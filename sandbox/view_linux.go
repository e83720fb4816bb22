package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tandemdev/tandem/approvals"
)

// viewFor is the view of a program granted grant, as the places are now:
// without outside, everything read-only but the roots, the scratch places,
// the devices' writable places, and the secrets and protected places the
// grant opens — Landlock keeps what is outside them from a write already,
// the mounts keep their mode, owner and times too; without protected, the guarded places of the roots (Guarded) and the
// protected places outside them read-only — Landlock keeps their content
// from a write already, the mounts keep their mode, owner and times too;
// without secret, the secrets and the agents' sockets hidden — Landlock
// cannot hold a connection to a socket named by a path, nor a change of a
// secret's mode.
func (s *Sandbox) viewFor(grant approvals.Effects) mounts {
	var v mounts
	roots := s.places.Roots
	if !grant.Has(approvals.Outside) {
		v.Sealed = true
		v.Writable = append(append(slices.Clone(roots), s.places.Scratch...), writableDevices...)
		if grant.Has(approvals.Secret) {
			v.Writable = append(v.Writable, existing(withoutProc(s.places.Secrets))...)
		}
		if grant.Has(approvals.Protected) {
			v.Writable = append(v.Writable, existing(withoutProc(s.places.Protected))...)
		}
	}
	if !grant.Has(approvals.Protected) {
		g := GuardedIn(roots)
		v.Pinned, v.ReadOnly = g.Pinned, g.ReadOnly
		for _, p := range existing(withoutProc(s.places.Protected)) {
			if !relatedToAny(p, roots) && !slices.Contains(v.ReadOnly, p) {
				v.ReadOnly = append(v.ReadOnly, p)
			}
		}
	}
	if !grant.Has(approvals.Secret) {
		for _, p := range existing(append(withoutProc(s.places.Secrets), s.places.Sockets...)) {
			// A secret that holds a root stays: the workspace is in it.
			if !holdsAny(p, roots) && !underAny(p, v.Hidden) {
				v.Hidden = append(v.Hidden, p)
			}
		}
	}
	return v
}

// writableDevices are the places of devices a sealed view keeps writable:
// the device files themselves take writes on a read-only mount, shared
// memory and terminals' places do not.
var writableDevices = []string{"/dev/shm", "/dev/pts"}

// existing are the entries' paths that are there now and are no links (a
// link's target, if an entry, is one itself), a name prefix as the names
// that match it; each once, shallowest first.
func existing(es []approvals.Entry) []string {
	var out []string
	add := func(p string) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink == 0 && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, e := range es {
		if !e.NamePrefix {
			add(e.Path)
			continue
		}
		dir, prefix := filepath.Split(e.Path)
		ents, _ := os.ReadDir(dir)
		for _, d := range ents {
			if strings.HasPrefix(d.Name(), prefix) {
				add(filepath.Join(dir, d.Name()))
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
	return out
}

// holdsAny reports whether path is a root or above one.
func holdsAny(path string, roots []string) bool {
	for _, r := range roots {
		if approvals.Under(r, path) {
			return true
		}
	}
	return false
}
