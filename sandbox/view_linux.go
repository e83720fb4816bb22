package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tandemdev/tandem/approvals"
)

// view is the mounts of a program's view for one grant, as they were
// built, and what they were found from: the directories the policy's
// entries are in (a secret made there is hidden from then on), and which
// file each place and each guarded name of the roots was. When one of
// those changes — a name made, or a place replaced, which detaches a mount
// made on it — the view is built again and its mounts made again. The
// roots and their git directories are not stamped: builds and git change
// them all the time.
type view struct {
	mounts
	found stamps
	was   map[string]fileID
}

// fileID is which file a path named, or none.
type fileID struct{ dev, ino uint64 }

func idOf(path string) fileID {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return fileID{}
	}
	return fileID{st.Dev, st.Ino}
}

func (v *view) fresh() bool {
	for p, id := range v.was {
		if idOf(p) != id {
			return false
		}
	}
	return v.found.fresh()
}

// viewFor returns the view of a program granted grant, built again when
// the places it was made from changed.
func (s *Sandbox) viewFor(grant approvals.Effects) *view {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.views[grant]; v != nil && v.fresh() {
		return v
	}
	// Found before the places are read: a change between the two makes
	// the view stale at its next use.
	v := &view{found: stamps{}, was: map[string]fileID{}}
	for _, group := range [][]approvals.Entry{s.places.Secrets, s.places.Sockets, s.places.Protected} {
		for _, e := range group {
			v.found.stamp(filepath.Dir(e.Path))
		}
	}
	for _, p := range guardedNames(s.places.Roots) {
		v.was[p] = idOf(p)
	}
	for _, r := range s.places.Roots {
		// A worktree or submodule added brings guarded names of its own.
		v.found.stamp(filepath.Join(r, ".git", "worktrees"))
		v.found.stamp(filepath.Join(r, ".git", "modules"))
	}
	v.mounts = s.places.mountsFor(grant)
	for _, group := range [][]string{v.Writable, v.Pinned, v.ReadOnly, v.Hidden} {
		for _, p := range group {
			v.was[p] = idOf(p)
		}
	}
	s.views[grant] = v
	return v
}

// guardedNames are the names GuardedIn looks for in the roots, whether
// they are there or not: a root's .git and .tandem, and the guarded names
// of its git directory.
func guardedNames(roots []string) []string {
	var out []string
	for _, r := range roots {
		git := filepath.Join(r, ".git")
		out = append(out, git, filepath.Join(r, ".tandem"))
		for _, name := range gitGuarded {
			out = append(out, filepath.Join(git, name))
		}
	}
	return out
}

// mountsFor returns the view of a program granted grant, as the places are
// now. Landlock holds the content of what a program may not write or read,
// but not a change of its mode, owner or times, nor a connection to a
// socket named by a path; the view holds those:
//   - without outside, everything is read-only but the roots, the scratch
//     places, the devices' writable places, and the secrets and protected
//     places the grant opens;
//   - without protected, the guarded places of the roots (Guarded) and the
//     protected places outside them are read-only;
//   - without secret, the secrets and the agents' sockets are hidden.
func (pl Places) mountsFor(grant approvals.Effects) mounts {
	var v mounts
	roots := pl.Roots
	if !grant.Has(approvals.Outside) {
		v.Sealed = true
		v.Writable = append(append(slices.Clone(roots), pl.Scratch...), writableDevices...)
		if grant.Has(approvals.Secret) {
			v.Writable = append(v.Writable, existing(withoutProc(pl.Secrets))...)
		}
		if grant.Has(approvals.Protected) {
			v.Writable = append(v.Writable, existing(withoutProc(pl.Protected))...)
		}
	}
	if !grant.Has(approvals.Protected) {
		g := GuardedIn(roots)
		v.Pinned, v.ReadOnly = g.Pinned, g.ReadOnly
		for _, p := range existing(withoutProc(pl.Protected)) {
			if !relatedToAny(p, roots) && !slices.Contains(v.ReadOnly, p) {
				v.ReadOnly = append(v.ReadOnly, p)
			}
		}
	}
	if !grant.Has(approvals.Secret) {
		for _, p := range existing(append(withoutProc(pl.Secrets), pl.Sockets...)) {
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

// existing returns the entries' paths that are there now and are not links
// (a link's target, if an entry, is one itself), a name prefix entry as the
// names that match it; each once, shallowest first.
func existing(es []approvals.Entry) []string {
	var out []string
	for _, p := range (&splitter{list: ReadDir}).named(es) {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink == 0 && !slices.Contains(out, p) {
			out = append(out, p)
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
