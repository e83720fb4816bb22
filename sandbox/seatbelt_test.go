package sandbox

import (
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

var macPlaces = Places{
	Roots:     []string{"/Users/u/ws"},
	Scratch:   []string{"/private/tmp", `/Users/u/Library/Caches`},
	Secrets:   []approvals.Entry{{Path: "/Users/u/.ssh"}, {Path: "/Users/u/.cargo/credentials", NamePrefix: true}, {Path: `/Users/u/odd "name"`}},
	Protected: []approvals.Entry{{Path: "/Users/u/ws/.git"}, {Path: "/usr/local/bin"}},
}

func TestSeatbeltProfileWithoutGrants(t *testing.T) {
	p := SeatbeltProfile(macPlaces, 0, Guarded{})
	for _, want := range []string{
		"(deny default)",
		"(allow file-read*)\n",
		`(deny file-read* (subpath "/Users/u/.ssh") (regex #"^/Users/u/\.cargo/credentials") (subpath "/Users/u/odd \"name\""))`,
		`(allow file-write* (subpath "/Users/u/ws") (subpath "/private/tmp") (subpath "/Users/u/Library/Caches"))`,
		`(deny file-write* (subpath "/Users/u/.ssh")`,
		`(deny file-write* (subpath "/usr/local/bin"))`,
		"(allow process-info* (target same-sandbox))",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("profile lacks %s:\n%s", want, p)
		}
	}
	for _, not := range []string{"(allow network-outbound)\n", "(allow file-write*)\n", `"/Users/u/ws/.git"`} {
		if strings.Contains(p, not) {
			t.Errorf("profile holds %s without its grant:\n%s", not, p)
		}
	}
	// A later deny wins in Seatbelt: every secret deny comes after the
	// allow it carves from.
	if strings.Index(p, "(deny file-read*") < strings.Index(p, "(allow file-read*)") ||
		strings.Index(p, `(deny file-write* (subpath "/Users/u/.ssh")`) < strings.Index(p, "(allow file-write* (subpath") {
		t.Errorf("a deny comes before its allow:\n%s", p)
	}
}

func TestSeatbeltProfileGrants(t *testing.T) {
	p := SeatbeltProfile(macPlaces, approvals.Of(approvals.Secret, approvals.Outside, approvals.Protected, approvals.Net), Guarded{})
	for _, want := range []string{"(allow network-outbound)\n", "(allow file-write*)\n", `(allow file-write* (subpath "/Users/u/.ssh")`, `(allow file-write* (subpath "/Users/u/ws/.git") (subpath "/usr/local/bin"))`} {
		if !strings.Contains(p, want) {
			t.Errorf("profile lacks %s:\n%s", want, p)
		}
	}
	if strings.Contains(p, "(deny file-read*") || strings.Contains(p, "(deny file-write*") {
		t.Errorf("a granted class is still denied:\n%s", p)
	}
}

func TestSeatbeltProfileGuards(t *testing.T) {
	g := Guarded{Pinned: []string{"/Users/u/ws/.git"}, ReadOnly: []string{"/Users/u/ws/.git/hooks", "/Users/u/ws/.tandem", "/Users/u/ws/.git/config"}}
	p := SeatbeltProfile(macPlaces, approvals.Of(approvals.Net), g)
	want := `(deny file-write* (subpath "/Users/u/ws/.git/hooks") (subpath "/Users/u/ws/.tandem") (subpath "/Users/u/ws/.git/config"))
(deny file-write* (literal "/Users/u/ws/.git"))`
	if !strings.Contains(p, want) || strings.Index(p, want) < strings.Index(p, `(allow file-write* (subpath "/Users/u/ws")`) {
		t.Errorf("profile lacks, after the root's allow,\n%s:\n%s", want, p)
	}
}
