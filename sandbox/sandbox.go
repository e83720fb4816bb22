// Package sandbox makes the kernel hold what the gate decided: every process
// a bash step starts runs restricted to what the step was granted (the
// user's auto set and what the user approved for that step), for an
// ordinary user as for root.
//
// A step's processes cannot do the following unless the step was granted
// the effect that opens each item:
//
//   - secret: read or write a secret, or reach an agent's socket;
//   - outside: read the home beyond the readable places, or change
//     anything outside the writable places, a file's mode, owner and times
//     included;
//   - protected: change a protected place, or the guarded places in the
//     roots (git's config and hooks, and .tandem), through git as through
//     any other program;
//   - net: reach any network, or make a UNIX socket.
//
// Whatever the grant, they cannot read another process's environment or
// memory, nor signal a process outside their own sandbox.
//
// tandem itself keeps all its access. On Linux, each program starts in a
// view (user and mount namespaces) made by tandem started again (a
// spawner, or a launcher of its own), and is restricted by Landlock and
// seccomp on the thread that starts it. Where no namespace can be made,
// Landlock alone holds what it can, and fails closed on the guarded
// places. On macOS, the rules are a Seatbelt profile around the program.
package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/tandemdev/tandem/approvals"
)

// Sandbox enforces the steps of one session. A nil *Sandbox enforces
// nothing: the sandbox is off, or the kernel cannot hold it.
type Sandbox struct {
	places   Places
	mu       sync.Mutex
	cache    map[rulesetKey]*ruleset     // Linux only
	spawners map[spawnerKey]*spawner     // Linux only
	views    map[approvals.Effects]*view // by grant; Linux only
}

// New returns the sandbox of a session judged by policy, or nil and the
// reason when the kernel cannot enforce it here.
func New(policy *approvals.Policy) (*Sandbox, error) {
	if err := kernelSupport().Unavailable; err != nil {
		return nil, err
	}
	places := PlacesOf(policy)
	makeScratch(places.Scratch)
	return &Sandbox{places: places, cache: map[rulesetKey]*ruleset{}, spawners: map[spawnerKey]*spawner{}, views: map[approvals.Effects]*view{}}, nil
}

// makeScratch makes the scratch places that do not exist yet (a fresh
// user's ~/.cache/go-build or ~/go/pkg/mod), private as the tools make
// them: the kernel grants only what exists, and the home around them is
// not writable, so a first `go build` could not make its cache itself.
func makeScratch(places []string) {
	for _, p := range places {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			os.MkdirAll(p, 0o700)
		}
	}
}

// Start starts cmd restricted to grant. effects are the program's own, as
// judged: a program with exec may do what its words do not show, and where
// no namespace can be made it is held more closely (see start). A nil
// sandbox starts cmd unrestricted. Either way a step's program (one that
// leads its own process group) is killed with its group if tandem is
// killed before it ends (Linux and macOS), and starts with the file mode
// mask umask, the script's: tandem's own mask, shared by every goroutine,
// never changes for it.
func (s *Sandbox) Start(cmd *exec.Cmd, grant, effects approvals.Effects, umask uint32) error {
	if s == nil {
		return startWatched(cmd, umask)
	}
	return s.start(cmd, grant&Restricted, effects.Has(approvals.Exec), umask)
}

// Close releases what the sandbox keeps between starts (the built
// rulesets, the spawners). A closed sandbox still works: it makes them
// again.
func (s *Sandbox) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, r := range s.cache {
		r.close()
		delete(s.cache, key)
	}
	for key, z := range s.spawners {
		z.close()
		delete(s.spawners, key)
	}
}

// rulesetKey names a built ruleset: its grant, and whether the guarded
// places are carved out of its writes (where no mount can hold them).
type rulesetKey struct {
	grant   approvals.Effects
	byRules bool
}

// Held returns what a step granted grant is kept from: the restricted
// effects it was not granted and that the kernel can hold. It returns
// nothing when the sandbox is off.
func (s *Sandbox) Held(grant approvals.Effects) approvals.Effects {
	if s == nil {
		return 0
	}
	held := Restricted &^ grant
	if !kernelSupport().Net {
		held &^= approvals.Of(approvals.Net)
	}
	return held
}

// Support is what the kernel here can hold.
type Support struct {
	// Unavailable says, in one sentence, why nothing is enforced; nil when
	// the sandbox works.
	Unavailable error
	// Net reports whether TCP connections are held too; when they are
	// not, Limits says why.
	Net bool
	// Guards reports whether programs start in a view (see Guarded and
	// viewFor), which holds the guarded places, modes, sockets and the
	// whole network; when they do not, Limits says why.
	Guards bool
	// Limits says, in one sentence, what part is not enforced although the
	// sandbox works ("" when none).
	Limits string
	// Layers says, a sentence each, which of the kernel's layers hold here
	// and what each holds.
	Layers []string
}

// MayHaveRefused reports whether a step's output looks like the kernel
// refused it something: Landlock's and Seatbelt's denials surface as EACCES
// or EPERM, a guarded place's as EROFS (a write) or EBUSY (a rename), which
// programs print as these words, in any case (C's strerror capitalises,
// Go's errors do not: "mkdir /root/go: permission denied").
func MayHaveRefused(output string) bool {
	lower := strings.ToLower(output)
	for _, w := range []string{"permission denied", "operation not permitted", "eacces", "eperm", "read-only file system", "erofs", "device or resource busy", "ebusy"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
}
