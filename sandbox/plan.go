package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tandemdev/tandem/approvals"
)

// Places are the paths a step's restrictions are made of, all real.
type Places struct {
	Roots, Scratch              []string
	Secrets, Sockets, Protected []approvals.Entry
	// Home is the home directory (as written and real), held back from a
	// step's reads except for the roots, the scratch places and Readable,
	// unless the step is granted outside or secret. If empty, nothing is
	// held back.
	Home, Readable []string
	// Unwritable are carved out of every write whatever the grant: the
	// guarded places, where no mount view can hold them (see Guarded).
	Unwritable []string
}

// PlacesOf takes the places from a session's path policy.
func PlacesOf(p *approvals.Policy) Places {
	return Places{Roots: p.Roots(), Scratch: p.Scratch(), Secrets: p.SecretEntries(), Sockets: p.SocketEntries(), Protected: p.ProtectedEntries(),
		Home: p.HomeEntries(), Readable: p.Readable()}
}

// Restricted are the effects the kernel holds back unless a step is granted
// them: what a program tandem cannot see into could otherwise do unasked.
const Restricted = approvals.Effects(approvals.Secret | approvals.Outside | approvals.Protected | approvals.Net)

// Plan is one step's restrictions as hierarchies of paths, the only thing
// Landlock knows: what is beneath a granted path is granted.
type Plan struct {
	Read  []string // read, list and run what is beneath
	List  []string // list the names in the directory (an ancestor of a place carved out), nothing more
	Write []string // read and change what is beneath
	// Devices are the device files and directories every program may read
	// and write (/dev/null, terminals).
	Devices []string
	Net     bool // TCP connections allowed
}

// Devices every program may read and write, whatever its grant.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm"}

// Dirent is one name in a directory, as a Lister sees it.
type Dirent struct {
	Name    string
	Symlink bool
}

// Lister lists a directory's names; ReadDir lists the real filesystem.
type Lister func(dir string) ([]Dirent, error)

// ReadDir lists dir on the filesystem.
func ReadDir(dir string) ([]Dirent, error) {
	ents, err := os.ReadDir(dir)
	out := make([]Dirent, len(ents))
	for i, e := range ents {
		out[i] = Dirent{Name: e.Name(), Symlink: e.Type()&os.ModeSymlink != 0}
	}
	return out, err
}

// NewPlan returns the restrictions of a step granted grant (the auto set
// and what the user approved for it):
//   - it reads everything except the secrets (unless secret is granted)
//     and the home directory (unless secret or outside is granted); in the
//     home it reads the roots, the scratch places and the readable places
//     (the toolchains, git's config), without the secrets;
//   - it writes the workspace roots and the scratch places (everywhere with
//     outside), the secrets with secret and the protected entries with
//     protected; secrets are carved out of every write unless granted, and
//     protected entries outside the roots unless protected is granted;
//   - it connects over TCP only with net.
//
// No process's directory under /proc is granted, its own included:
// Landlock's ptrace rules keep a sandboxed process out of other processes'
// memory but, for reads, not out of their environment
// (/proc/PID/environ: checked on Linux 6.18). The policy's entries under
// /proc are those directories, so they are left out of the entries.
func NewPlan(pl Places, grant approvals.Effects, list Lister) Plan {
	secrets := withoutProc(pl.Secrets)
	var s splitter
	s.list = list
	plan := Plan{Devices: devices, Net: grant.Has(approvals.Net)}
	switch {
	case grant.Has(approvals.Secret):
		plan.Read = s.split("/", nil)
	case grant.Has(approvals.Outside) || len(pl.Home) == 0:
		plan.Read = s.split("/", secrets)
	default:
		held := slices.Clone(secrets)
		for _, h := range pl.Home {
			held = append(held, approvals.Entry{Path: h})
		}
		plan.Read = s.split("/", held)
		// The roots and scratch places in the home are read through their
		// write rules.
		for _, r := range pl.Readable {
			if underAny(r, pl.Home) {
				plan.Read = append(plan.Read, s.split(r, secrets)...)
			}
		}
	}

	base := append(slices.Clone(pl.Roots), pl.Scratch...)
	if grant.Has(approvals.Outside) {
		base = []string{"/"}
	}
	var carves []approvals.Entry
	if grant.Has(approvals.Secret) {
		base = append(base, s.named(secrets)...)
	} else {
		carves = secrets
	}
	if grant.Has(approvals.Protected) {
		base = append(base, s.named(withoutProc(pl.Protected))...)
	} else {
		// A protected entry in a root (.git, .tandem) stays writable here:
		// Landlock cannot carve it out without taking from the root the right
		// to make new names at its top, which every build needs. The gate
		// asks about the writes a step's words show; what a program it cannot
		// see into could change is held by read-only mounts (Guarded).
		for _, e := range withoutProc(pl.Protected) {
			if !relatedToAny(e.Path, pl.Roots) {
				carves = append(carves, e)
			}
		}
	}
	for _, p := range pl.Unwritable {
		carves = append(carves, approvals.Entry{Path: p})
	}
	for _, b := range base {
		plan.Write = append(plan.Write, s.split(b, carves)...)
	}
	plan.List = s.listed
	return plan
}

// withoutProc drops the entries under /proc.
func withoutProc(es []approvals.Entry) []approvals.Entry {
	var out []approvals.Entry
	for _, e := range es {
		if !approvals.Under(e.Path, "/proc") {
			out = append(out, e)
		}
	}
	return out
}

// underAny reports whether path is one of places or under one.
func underAny(path string, places []string) bool {
	return slices.ContainsFunc(places, func(p string) bool { return approvals.Under(path, p) })
}

// relatedToAny reports whether path is a root, under one or above one.
func relatedToAny(path string, roots []string) bool {
	for _, r := range roots {
		if approvals.Under(path, r) || approvals.Under(r, path) {
			return true
		}
	}
	return false
}

type splitter struct {
	list   Lister
	listed []string // every directory split, once
}

// split grants root less the carved entries. Landlock grants whole
// hierarchies and cannot carve a denied place out of an allowed one, so a
// root that holds a carved entry is not granted itself: each name in it is,
// recursively, down to the carved entry, which never is. The directories
// split on the way only have their names listed.
func (s *splitter) split(root string, carves []approvals.Entry) []string {
	switch {
	case carved(root, carves) || isProcessDir(root):
		return nil
	case !holds(root, carves) && !approvals.Under("/proc", root):
		return []string{root}
	}
	if !slices.Contains(s.listed, root) {
		s.listed = append(s.listed, root)
	}
	ents, err := s.list(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		// A symlink is never granted: a rule on it would grant its target,
		// which may be a carved entry. Its target is reached, and judged,
		// where it really is.
		if !e.Symlink {
			out = append(out, s.split(filepath.Join(root, e.Name), carves)...)
		}
	}
	return out
}

// named returns the paths of entries; for a name prefix entry, the names
// that match it now.
func (s *splitter) named(es []approvals.Entry) []string {
	var out []string
	for _, e := range es {
		if !e.NamePrefix {
			out = append(out, e.Path)
			continue
		}
		ents, _ := s.list(filepath.Dir(e.Path))
		for _, d := range ents {
			if strings.HasPrefix(d.Name, filepath.Base(e.Path)) {
				out = append(out, filepath.Join(filepath.Dir(e.Path), d.Name))
			}
		}
	}
	return out
}

// isProcessDir reports whether path is a process's directory, /proc/PID.
func isProcessDir(path string) bool {
	dir, name := filepath.Split(path)
	if dir != "/proc/" || name == "" {
		return false
	}
	for _, c := range name {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// carved reports whether path is, or is under, a carved entry.
func carved(path string, carves []approvals.Entry) bool {
	for _, c := range carves {
		if !c.NamePrefix {
			if approvals.Under(path, c.Path) {
				return true
			}
			continue
		}
		dir, name := filepath.Dir(c.Path), filepath.Base(c.Path)
		for a := path; approvals.Under(a, dir) && a != dir; a = filepath.Dir(a) {
			if filepath.Dir(a) == dir && strings.HasPrefix(filepath.Base(a), name) {
				return true
			}
		}
	}
	return false
}

// holds reports whether a carved entry lies strictly beneath path.
func holds(path string, carves []approvals.Entry) bool {
	for _, c := range carves {
		p := c.Path
		if c.NamePrefix {
			p = filepath.Dir(p) + "/"
		}
		if p != path && approvals.Under(p, path) {
			return true
		}
	}
	return false
}
