package sandbox

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/tandemdev/tandem/approvals"
)

// SeatbeltProfile is the decision of NewPlan as a macOS Seatbelt profile
// (sandbox-exec -p): the same places and grants. Seatbelt, unlike
// Landlock, lets a later deny carve a place out of an earlier allow, so no
// split is needed; and it holds the guarded places g (as For gives them to
// the program) without a namespace.
func SeatbeltProfile(pl Places, grant approvals.Effects, g Guarded) string {
	var b strings.Builder
	b.WriteString(`(version 1)
(deny default)
(allow process-exec process-fork signal sysctl-read mach-lookup ipc-posix-shm ipc-posix-sem iokit-open file-ioctl pseudo-tty)
(allow process-info* (target same-sandbox))
(allow network-bind network-inbound)
(allow network-outbound (remote unix-socket))
(allow file-read*)
`)
	if grant.Has(approvals.Net) {
		b.WriteString("(allow network-outbound)\n")
	}
	if !grant.Has(approvals.Secret) {
		rule(&b, "deny file-read*", pl.Secrets)
	}
	if grant.Has(approvals.Outside) {
		b.WriteString("(allow file-write*)\n")
	} else {
		var places []approvals.Entry
		for _, p := range append(append([]string{}, pl.Roots...), pl.Scratch...) {
			places = append(places, approvals.Entry{Path: p})
		}
		rule(&b, "allow file-write*", places)
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
	var guarded []approvals.Entry
	for _, p := range g.ReadOnly {
		guarded = append(guarded, approvals.Entry{Path: p})
	}
	rule(&b, "deny file-write*", guarded)
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

// rule writes one rule over entries: a tree as a subpath, a name prefix as
// a regex. No entries, no rule.
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
	b.WriteString(")\n")
}
