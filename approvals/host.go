package approvals

import (
	"net/netip"
	"strings"
)

// HostClass is where a network address leads, as a fetch's question says
// it: the user decides differently about a public site and a service on
// this machine or their own network.
type HostClass string

// The classes of an address.
const (
	HostPublic    HostClass = "public"
	HostPrivate   HostClass = "private"    // 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, multicast
	HostLoopback  HostClass = "loopback"   // 127/8, ::1, and the unspecified address, which reaches this machine
	HostLinkLocal HostClass = "link-local" // 169.254/16 (cloud metadata services), fe80::/10
)

// cgnat is the shared address space (RFC 6598) of carrier-grade NAT and of
// overlay networks such as Tailscale's: not public.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// ClassifyAddr returns the class of an address. An IPv4 address written as
// IPv6 (::ffff:127.0.0.1) is judged as the IPv4 address it reaches.
func ClassifyAddr(a netip.Addr) HostClass {
	a = a.Unmap()
	switch {
	case a.IsLoopback() || a.IsUnspecified():
		return HostLoopback
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return HostLinkLocal
	case a.IsPrivate() || cgnat.Contains(a) || !a.IsGlobalUnicast():
		return HostPrivate
	}
	return HostPublic
}

// ClassifyAddrs returns the class of a name that resolved to addrs: the
// least public of theirs, since a connection may reach any of them.
func ClassifyAddrs(addrs []netip.Addr) HostClass {
	class := HostPublic
	for _, a := range addrs {
		if c := ClassifyAddr(a); c != HostPublic && (class == HostPublic || c == HostLoopback) {
			class = c
		}
	}
	return class
}

// StepHost is the host a fetch connects to: its name as the URL gives it,
// the addresses the name resolved to (the only ones the fetch connects
// to), and their class. A step's text says where a host that is not
// public leads (Where), so that every client's prompt shows it.
type StepHost struct {
	Name  string    `json:"name"`
	Addrs []string  `json:"addrs"`
	Class HostClass `json:"class"`
}

// Where says, in a question or a refusal, what a host that is not public
// is: "printer.lan is a private address, a machine on the user's own
// network: 10.0.0.7".
func (h StepHost) Where() string {
	what := map[HostClass]string{
		HostLoopback:  "a loopback address, a service on this machine",
		HostPrivate:   "a private address, a machine on the user's own network",
		HostLinkLocal: "a link-local address, on the local link (such as a cloud metadata service)",
	}[h.Class]
	where := h.Name + " is " + what
	if len(h.Addrs) != 1 || h.Addrs[0] != h.Name {
		where += ": " + strings.Join(h.Addrs, ", ")
	}
	return where
}
