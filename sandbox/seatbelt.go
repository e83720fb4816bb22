package sandbox

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tandemdev/tandem/approvals"
)

// SeatbeltProfile returns the decision of NewPlan as a macOS Seatbelt
// profile (sandbox-exec -p): the same places and grants. Seatbelt, unlike
// Landlock, lets a later rule carve a place out of an earlier one (the
// last rule that matches decides), so no split is needed; and it holds
// the guarded places g (as For gives them to the program) without a
// namespace. What Linux holds with namespaces and seccomp beside
// Landlock, it holds with rules:
//   - signals and process information: the step's own processes only;
//   - UNIX sockets named by a path: without net, no connection to any (on
//     Linux a seccomp filter refuses making one); without secret, never
//     to an agent's or daemon's (ssh-agent, gpg-agent, docker);
//   - a file's mode, owner, times, flags and extended attributes: each is
//     a file-write* operation (file-write-mode, -owner, -times, -flags,
//     -xattr), allowed only where a write is.
func SeatbeltProfile(pl Places, grant approvals.Effects, g Guarded) string {
	var b strings.Builder
	b.WriteString(`(version 1)
(deny default)
(allow process-exec process-fork sysctl-read mach-lookup ipc-posix-shm ipc-posix-sem iokit-open file-ioctl pseudo-tty)
(allow process-info* (target same-sandbox))
(allow signal (target same-sandbox))
(allow system-socket (socket-domain AF_UNIX))
(allow network-bind network-inbound)
(allow file-read*)
`)
	writable := entriesOf(append(slices.Clone(pl.Roots), pl.Scratch...))
	if grant.Has(approvals.Net) {
		// Unix sockets named by a path too, as on Linux; an agent's only
		// with secret (macOS puts ssh-agent's under /private/tmp).
		b.WriteString("(allow network-outbound)\n")
		if !grant.Has(approvals.Secret) {
			rule(&b, "deny network-outbound (remote unix-socket", pl.Sockets)
		}
	}
	if !grant.Has(approvals.Secret) && !grant.Has(approvals.Outside) && len(pl.Home) > 0 {
		// Deny by default in the home: its roots, scratch places and
		// readable places are read, and the directories on the way are
		// stat'ed (realpath, a cwd below the home), not listed.
		rule(&b, "deny file-read*", entriesOf(pl.Home))
		var open []string
		for _, p := range append(append(slices.Clone(pl.Roots), pl.Scratch...), pl.Readable...) {
			if underAny(p, pl.Home) {
				open = append(open, p)
			}
		}
		rule(&b, "allow file-read*", entriesOf(open))
		b.WriteString("(allow file-read-metadata (vnode-type DIRECTORY))\n")
	}
	if !grant.Has(approvals.Secret) {
		rule(&b, "deny file-read*", pl.Secrets)
	}
	if grant.Has(approvals.Outside) {
		b.WriteString("(allow file-write*)\n")
	} else {
		rule(&b, "allow file-write*", writable)
	}
	b.WriteString(`(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (literal "/dev/dtracehelper") (regex #"^/dev/ttys[0-9]+$") (literal "/dev/ptmx"))
`)
	if grant.Has(approvals.Secret) {
		rule(&b, "allow file-write*", pl.Secrets)
	} else {
		rule(&b, "deny file-write*", pl.Secrets)
	}
	if grant.Has(approvals.Protected) {
		rule(&b, "allow file-write*", pl.Protected)
	} else {
		var outside []approvals.Entry
		for _, e := range pl.Protected {
			if !relatedToAny(e.Path, pl.Roots) {
				outside = append(outside, e)
			}
		}
		rule(&b, "deny file-write*", outside)
	}
	rule(&b, "deny file-write*", entriesOf(g.ReadOnly))
	if len(g.Pinned) > 0 {
		// literal: the directory itself cannot be renamed or removed; what
		// is beneath stays writable.
		b.WriteString("(deny file-write*")
		for _, p := range g.Pinned {
			b.WriteString(" (literal " + strconv.Quote(p) + ")")
		}
		b.WriteString(")\n")
	}
	return b.String()
}

// entriesOf makes trees of paths.
func entriesOf(paths []string) []approvals.Entry {
	out := make([]approvals.Entry, len(paths))
	for i, p := range paths {
		out[i] = approvals.Entry{Path: p}
	}
	return out
}

// rule writes one rule over entries: a tree as a subpath, a name prefix as
// a regex. When action opens a filter, as "deny network-outbound (remote
// unix-socket" does, the rule closes it. With no entries, it writes no
// rule.
func rule(b *strings.Builder, action string, es []approvals.Entry) {
	if len(es) == 0 {
		return
	}
	b.WriteString("(" + action)
	for _, e := range es {
		if e.NamePrefix {
			b.WriteString(` (regex #"^` + regexp.QuoteMeta(e.Path) + `")`)
		} else {
			b.WriteString(" (subpath " + strconv.Quote(e.Path) + ")")
		}
	}
	b.WriteString(strings.Repeat(")", 1+strings.Count(action, "(")) + "\n")
}
