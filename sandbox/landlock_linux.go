package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"github.com/tandemdev/tandem/approvals"
)

// landlockSupport returns what Landlock holds here. It is cheap to learn,
// and it is all that starting a sandbox needs.
var landlockSupport = sync.OnceValue(func() Support {
	abi, err := ll.LandlockGetABIVersion()
	switch {
	case err != nil || abi < 1:
		return Support{Unavailable: errors.New("the kernel has no Landlock (it needs Linux 5.13 or later with landlock in its lsm= list), so what a step's programs do is held only by the gate's questions")}
	}
	layer := fmt.Sprintf("Landlock ABI %d holds what each program reads and writes", abi)
	var limits []string
	if abi >= 4 {
		layer += ", the TCP connections it makes"
	} else {
		limits = append(limits, fmt.Sprintf("the kernel's Landlock (ABI %d) cannot restrict network connections; Linux 6.7 or later can", abi))
	}
	if abi >= 6 {
		layer += ", and signals it only to its own processes"
	} else {
		limits = append(limits, fmt.Sprintf("the kernel's Landlock (ABI %d) cannot keep a program from signalling the user's other processes (tandem, the editor); Linux 6.12 or later can", abi))
	}
	return Support{Net: abi >= 4, Layers: []string{layer}, Limits: strings.Join(limits, "; ")}
})

// namespaces reports whether a spawner or launcher can hold the guarded
// places here. Learning it means starting one (tens of milliseconds), so
// it is learnt only when a program needs them and no spawner proved them
// (see spawnFirst), or when asked.
var namespaces = sync.OnceValue(func() error {
	err := probeNamespaces()
	probedNone.Store(err != nil)
	return err
})

// probedNone is set when the probe found that namespaces cannot hold here.
var probedNone atomic.Bool

// spawnFirst reports whether a program a spawner can start goes to its
// spawner before namespaces are probed: a spawner that starts proves
// them, as the probe would (see spawner.launch). Once the probe found
// none, programs go to no spawner.
var spawnFirst = func() bool { return !probedNone.Load() }

// Supported returns what this kernel can hold.
func Supported() Support {
	s := landlockSupport()
	if s.Unavailable != nil {
		return s
	}
	if err := namespaces(); err != nil {
		limit := fmt.Sprintf("no user namespace can be made here (%v), so a program tandem cannot see into is kept from a root's .git config and hooks and .tandem by Landlock alone, which also takes from it making, renaming or removing names at a root's top and in .git; without net UDP stays open; and the modes of secrets and of files outside the writable places, and the agents' sockets, are not held; allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile granting userns to tandem) to hold them with mounts instead", err)
		if s.Limits != "" {
			s.Limits += "; "
		}
		s.Limits += limit
	} else {
		s.Guards = true
		s.Layers = append(slices.Clone(s.Layers), fmt.Sprintf("user and mount namespaces (tandem's user as their root to mount, each program as uid %d) give each program a view: git's config and hooks and .tandem read-only, secrets and agents' sockets hidden, the modes of what it may not write held, and no network without net", os.Getuid()))
	}
	return s
}

// kernelSupport returns what starting a sandbox needs to know.
func kernelSupport() Support { return landlockSupport() }

// Access rights by kind of place.
const (
	readRights   = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir)
	listRights   = landlock.AccessFSSet(ll.AccessFSReadDir)
	deviceRights = landlock.AccessFSSet(ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev | ll.AccessFSReadDir)
)

// handled is every filesystem right Landlock ABI 7 knows; what a rule does
// not grant is refused.
var handled = landlock.V7.HandledAccessFS

// ruleset is a built ruleset of one grant, and the listings it was split
// along: when one of those directories changes, the split is made again.
type ruleset struct {
	fd     int
	flags  uint32
	listed stamps
	// built names this build among all of tandem's: a spawner keeps a
	// thread restricted by it for as long as its programs are sent with it.
	built uint64
}

// builds counts the rulesets built.
var builds atomic.Uint64

func (r *ruleset) close() { unix.Close(r.fd) }

func (r *ruleset) fresh() bool { return r.listed.fresh() }

// stamps are directories and their modification times when something was
// made from them: a name made, removed or renamed in one changes its time.
type stamps map[string]time.Time

// stamp notes dir's time now, if it is there.
func (st stamps) stamp(dir string) {
	if fi, err := os.Stat(dir); err == nil {
		st[dir] = fi.ModTime()
	}
}

// fresh reports whether no stamped directory changed.
func (st stamps) fresh() bool {
	for dir, mtime := range st {
		fi, err := os.Stat(dir)
		if err != nil || !fi.ModTime().Equal(mtime) {
			return false
		}
	}
	return true
}

// spawnerKey names a spawner by the namespaces its programs share: a
// network of their own (without net), and which mounts their view holds
// (without protected, without secret). Programs of different grants never
// share a mount namespace, so one's mounts never open another's view.
type spawnerKey struct{ newNet, sealed, guarded, hidden bool }

// spawner returns the spawner of programs whose namespaces key names.
func (s *Sandbox) spawner(key spawnerKey) *spawner {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spawners[key] == nil {
		s.spawners[key] = &spawner{newNet: key.newNet}
	}
	return s.spawners[key]
}

// rulesetFor returns a descriptor, which the caller closes, of the ruleset
// of grant, and the ruleset; with byRules, the guarded places are carved
// out of its writes.
func (s *Sandbox) rulesetFor(grant approvals.Effects, byRules bool) (int, *ruleset, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := rulesetKey{grant, byRules}
	r := s.cache[key]
	if r == nil || !r.fresh() {
		if r != nil {
			r.close()
			delete(s.cache, key)
		}
		pl := s.places
		if byRules {
			pl.Unwritable = GuardedIn(pl.Roots).ReadOnly
		}
		var err error
		if r, err = build(pl, grant); err != nil {
			return -1, nil, err
		}
		s.cache[key] = r
	}
	fd, err := unix.FcntlInt(uintptr(r.fd), unix.F_DUPFD_CLOEXEC, 0)
	return fd, r, err
}

func build(pl Places, grant approvals.Effects) (*ruleset, error) {
	// The listings are stamped before the split reads them: a change
	// between the two makes the ruleset stale at its first use.
	listed := stamps{}
	stamped := func(dir string) ([]Dirent, error) {
		listed.stamp(dir)
		return ReadDir(dir)
	}
	plan := NewPlan(pl, grant, stamped)
	// A program signals only processes of its own sandbox: not tandem, the
	// editor, or any other process of the user (Landlock ABI 6; the kernel
	// lacks it before Linux 6.12, which Supported says).
	cfg := landlock.Config{HandledAccessFS: handled, Scoped: landlock.ScopedSet(ll.ScopeSignal)}
	if !plan.Net {
		cfg.HandledAccessNet = landlock.AccessNetSet(ll.AccessNetConnectTCP)
		cfg.Scoped |= landlock.ScopedSet(ll.ScopeAbstractUnixSocket)
	}
	var rules []landlock.Rule
	for _, g := range []struct {
		rights landlock.AccessFSSet
		paths  []string
	}{{readRights, plan.Read}, {listRights, plan.List}, {handled, plan.Write}, {deviceRights, plan.Devices}} {
		rules = append(rules, pathRules(g.rights, g.paths)...)
	}
	fd, flags, err := cfg.BestEffort().NewRulesetFD(rules...)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return &ruleset{fd: fd, flags: flags, listed: listed, built: builds.Add(1)}, nil
}

// fileRights are the rights a rule on a file (not a directory) may hold.
const fileRights = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev)

// pathRules grants rights on paths, a file only the rights a file can hold
// (Landlock refuses a directory's rights on a file). A path tandem cannot
// reach (gone, or another user's mount) is left out: nothing under it is
// granted, and the other rules still hold.
func pathRules(rights landlock.AccessFSSet, paths []string) []landlock.Rule {
	var dirs, files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
		case fi.IsDir():
			dirs = append(dirs, p)
		default:
			files = append(files, p)
		}
	}
	rules := []landlock.Rule{landlock.PathAccess(rights, dirs...).IgnoreIfMissing()}
	if r := rights & fileRights; r != 0 {
		rules = append(rules, landlock.PathAccess(r, files...).IgnoreIfMissing())
	}
	return rules
}

// start starts cmd restricted to grant.
//
// Where namespaces can be made, every program starts in them, through the
// spawner of its grant's kind (or through a launcher of its own when its
// streams are not files). Its view holds the guarded places read-only, and
// the secrets and agents' sockets absent unless granted; without net it
// has no network at all.
//
// Elsewhere, a fresh OS thread is restricted and starts the program: the
// process inherits the restriction between fork and exec, and the thread,
// never unlocked, ends with its goroutine, so no other code of tandem ever
// runs restricted. There, a program tandem cannot see into fails closed on
// the guarded places: its ruleset carves them out of the roots. Since
// Landlock grants a directory's rights to all beneath it, that takes from
// the program the right to make, rename or remove names at a root's top
// and in .git, so a build that needs that fails with the sandbox's note
// instead of a hook being planted.
func (s *Sandbox) start(cmd *exec.Cmd, grant approvals.Effects, unseen bool, umask uint32) error {
	if spawnable(cmd) && spawnFirst() {
		if ok, err := s.spawn(cmd, grant, umask); ok {
			return err
		}
	}
	inNamespaces := namespaces() == nil
	byRules := unseen && !grant.Has(approvals.Protected) && !inNamespaces
	fd, r, err := s.rulesetFor(grant, byRules)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if inNamespaces {
		return launchIn(cmd, fd, r.flags, s.viewFor(grant).mounts, !grant.Has(approvals.Net), umask)
	}
	err = onOwnThread(umask, func() error {
		if err := restrictThread(fd, r.flags, !grant.Has(approvals.Net)); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		return cmd.Start()
	})
	if err != nil {
		return err
	}
	watchStep(cmd) // here, not on the restricted thread
	return nil
}

// spawn has the spawner of grant's kind start cmd in its view; ok is false
// when no spawner can serve it.
func (s *Sandbox) spawn(cmd *exec.Cmd, grant approvals.Effects, umask uint32) (ok bool, err error) {
	// Sealed as mountsFor seals: without outside.
	z := s.spawner(spawnerKey{newNet: !grant.Has(approvals.Net), sealed: !grant.Has(approvals.Outside),
		guarded: !grant.Has(approvals.Protected), hidden: !grant.Has(approvals.Secret)})
	z.warm()
	fd, r, err := s.rulesetFor(grant, false)
	if err != nil {
		return true, err
	}
	defer unix.Close(fd)
	return z.start(cmd, fd, r, s.viewFor(grant), umask)
}
