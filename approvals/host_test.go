package approvals

import (
	"context"
	"errors"
	"net/netip"
	"testing"

	"github.com/tandemdev/tandem/refusal"
)

// Each address is classed by where it leads; an IPv4 address written as
// IPv6 is judged as the IPv4 address it reaches.
func TestClassifyAddr(t *testing.T) {
	for addr, want := range map[string]HostClass{
		"93.184.215.14":    HostPublic,
		"2606:4700::1111":  HostPublic,
		"127.0.0.1":        HostLoopback,
		"127.255.0.9":      HostLoopback,
		"::1":              HostLoopback,
		"0.0.0.0":          HostLoopback, // connecting to it reaches this machine
		"::":               HostLoopback,
		"::ffff:127.0.0.1": HostLoopback,
		"10.0.0.1":         HostPrivate,
		"172.16.0.1":       HostPrivate,
		"172.31.255.254":   HostPrivate,
		"172.32.0.1":       HostPublic,
		"192.168.1.1":      HostPrivate,
		"::ffff:10.1.1.1":  HostPrivate,
		"100.64.0.1":       HostPrivate, // carrier-grade NAT, Tailscale
		"fc00::1":          HostPrivate,
		"fd12:3456::1":     HostPrivate,
		"224.0.0.251":      HostLinkLocal,
		"239.1.1.1":        HostPrivate,
		"169.254.169.254":  HostLinkLocal,
		"fe80::1":          HostLinkLocal,
	} {
		if got := ClassifyAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("%s is %s, want %s", addr, got, want)
		}
	}
	// A name is as public as the least public of its addresses.
	addrs := func(ss ...string) []netip.Addr {
		var out []netip.Addr
		for _, s := range ss {
			out = append(out, netip.MustParseAddr(s))
		}
		return out
	}
	for _, c := range []struct {
		addrs []netip.Addr
		want  HostClass
	}{
		{addrs("93.184.215.14", "2606:4700::1111"), HostPublic},
		{addrs("93.184.215.14", "10.0.0.1"), HostPrivate},
		{addrs("10.0.0.1", "127.0.0.1", "169.254.1.1"), HostLoopback},
		{addrs("169.254.1.1", "10.0.0.1"), HostLinkLocal},
	} {
		if got := ClassifyAddrs(c.addrs); got != c.want {
			t.Errorf("%v is %s, want %s", c.addrs, got, c.want)
		}
	}
}

// Plan mode's read-only gate still judges a fetch's net by the auto set
// (a fetch only reads a page), and refuses net to a shell step.
func TestReadOnlyGateJudgesAFetchAsUsual(t *testing.T) {
	asked := 0
	g := NewGate("s", Of(Read), nil, AskerFunc(func(context.Context, Question) Answer { asked++; return AllowOnce }))
	g.SetReadOnly(true)
	net := Step{Text: "fetch https://go.dev/", Effects: Of(Net)}
	if err := g.Check(context.Background(), KindFetch, net); err != nil || asked != 1 {
		t.Errorf("a fetch in plan mode: %v, asked %d", err, asked)
	}
	g.SetAuto(Of(Read, Net))
	if err := g.Check(context.Background(), KindFetch, net); err != nil || asked != 1 {
		t.Errorf("a fetch in plan mode with net in the auto set: %v, asked %d", err, asked)
	}
	var r *Refused
	if err := g.Check(context.Background(), KindShell, Step{Text: "curl https://go.dev/", Effects: Of(Net)}); !errors.As(err, &r) || r.Refusal.Code != refusal.PlanMode {
		t.Errorf("a shell step's net in plan mode: %v", err)
	}
}

// "Allow for this session" of a fetch holds for its host's class: the same
// URL asks again once its name leads to this machine.
func TestSessionAllowOfAFetchHoldsForItsHostsClass(t *testing.T) {
	asked := 0
	g := NewGate("s", Of(Read), nil, AskerFunc(func(context.Context, Question) Answer { asked++; return AllowSession }))
	step := func(class HostClass, addr string) Step {
		return Step{Text: "fetch http://docs.example/", Effects: Of(Net), Host: &StepHost{Name: "docs.example", Addrs: []string{addr}, Class: class}}
	}
	for i, s := range []Step{step(HostPublic, "93.184.215.14"), step(HostPublic, "93.184.215.15"), step(HostLoopback, "127.0.0.1"), step(HostLoopback, "127.0.0.1")} {
		if err := g.Check(context.Background(), KindFetch, s); err != nil {
			t.Fatal(err)
		}
		if want := []int{1, 1, 2, 2}[i]; asked != want {
			t.Errorf("after fetch %d (%s): asked %d times, want %d", i+1, s.Host.Class, asked, want)
		}
	}
}
