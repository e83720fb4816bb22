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
	Protected: []approvals.Entry{{Path: "/Users/u/ws/.git"}, {Path: "/usr/local/bin"}, {Path: "/Users/u/.zshrc"}},
	Home:      []string{"/Users/u"},
	Readable:  []string{"/Users/u/.cargo", "/Users/u/.gitconfig", "/opt/homebrew/bin"},
	Sockets:   []approvals.Entry{{Path: "/private/tmp/com.apple.launchd.x/Listeners"}, {Path: "/Users/u/.docker/run"}},
}

// profileDecides checks what the profile of grant decides for each access.
func profileDecides(t *testing.T, grant approvals.Effects, g Guarded, want map[access]string) {
	t.Helper()
	text := SeatbeltProfile(macPlaces, grant, g)
	rules := parseProfile(t, text)
	for a, w := range want {
		if got := decide(t, rules, a); got != w {
			t.Errorf("with %s, %+v: %s, want %s:\n%s", grant, a, got, w, text)
		}
	}
}

func read(p string) access  { return access{op: "file-read-data", path: p} }
func write(p string) access { return access{op: "file-write-data", path: p} }

// Without outside or secret the home is read only in the roots, the
// scratch places and the readable places; its directories can be stat'ed
// on the way. Secrets stay unreadable there too.
func TestSeatbeltHoldsTheHomeBack(t *testing.T) {
	profileDecides(t, approvals.DefaultAuto, Guarded{}, map[access]string{
		read("/Users/u/.config/unnamed/token"):                         "deny",
		read("/Users/u/notes.txt"):                                     "deny",
		read("/Users/u/ws/main.go"):                                    "allow",
		read("/Users/u/Library/Caches/go-build/x"):                     "allow",
		read("/Users/u/.cargo/bin/cargo"):                              "allow",
		read("/Users/u/.gitconfig"):                                    "allow",
		read("/Users/u/.cargo/credentials.toml"):                       "deny",
		read("/Users/u/.ssh/id_ed25519"):                               "deny",
		read("/usr/lib/libc.dylib"):                                    "allow",
		read("/opt/homebrew/bin/go"):                                   "allow",
		{op: "file-read-metadata", path: "/Users/u", dir: true}:        "allow",
		{op: "file-read-metadata", path: "/Users/u/notes.txt"}:         "deny",
		{op: "file-read-data", path: "/Users/u", dir: true}:            "deny", // its names
		{op: "file-read-data", path: "/Users/u/.cargo/bin", dir: true}: "allow",
	})
	for _, grant := range []approvals.Effect{approvals.Outside, approvals.Secret} {
		profileDecides(t, approvals.DefaultAuto|approvals.Of(grant), Guarded{}, map[access]string{
			read("/Users/u/.config/unnamed/token"): "allow",
			read("/Users/u/notes.txt"):             "allow",
		})
	}
	profileDecides(t, approvals.DefaultAuto|approvals.Of(approvals.Outside), Guarded{}, map[access]string{
		read("/Users/u/.ssh/id_ed25519"): "deny",
	})
}

// Writes, and with them a file's mode, owner, times, flags and extended
// attributes (each a file-write* operation), reach only the writable
// places; never a secret or a protected place without their grant.
func TestSeatbeltHoldsWritesAndMetadata(t *testing.T) {
	ops := []string{"file-write-data", "file-write-create", "file-write-unlink", "file-write-mode", "file-write-owner", "file-write-times", "file-write-flags", "file-write-xattr"}
	cases := map[string]map[string]string{
		"/Users/u/ws/main.go":         {"": "allow", "outside": "allow"},
		"/private/tmp/x":              {"": "allow", "outside": "allow"},
		"/Users/u/.ssh/id_ed25519":    {"": "deny", "outside": "deny", "secret": "allow"},
		"/Users/u/.cargo/credentials": {"": "deny", "outside": "deny", "secret": "allow"},
		`/Users/u/odd "name"`:         {"": "deny", "outside": "deny", "secret": "allow"},
		"/Users/u/.zshrc":             {"": "deny", "outside": "deny", "protected": "allow"},
		"/usr/local/bin/tool":         {"": "deny", "outside": "deny", "protected": "allow"},
		"/Users/u/notes.txt":          {"": "deny", "outside": "allow"},
		"/etc/hosts":                  {"": "deny", "outside": "allow"},
		"/dev/null":                   {"": "allow"},
	}
	for path, byGrant := range cases {
		for grantName, w := range byGrant {
			grant := approvals.DefaultAuto
			if grantName != "" {
				e, _ := approvals.ParseEffect(grantName)
				grant |= approvals.Of(e)
			}
			want := map[access]string{}
			for _, op := range ops {
				want[access{op: op, path: path}] = w
			}
			profileDecides(t, grant, Guarded{}, want)
		}
	}
	// No operation of a file's metadata is allowed on its own, wider than
	// the writes.
	p := SeatbeltProfile(macPlaces, approvals.DefaultAuto, Guarded{})
	for _, op := range ops[3:] {
		if strings.Contains(p, op) {
			t.Errorf("the profile names %s apart from file-write*:\n%s", op, p)
		}
	}
}

// Signals and process information reach only the step's own processes.
func TestSeatbeltHoldsSignalsToTheStep(t *testing.T) {
	for _, grant := range []approvals.Effects{0, Restricted} {
		profileDecides(t, grant, Guarded{}, map[access]string{
			{op: "signal"}:                            "allow",
			{op: "signal", other: true}:               "deny",
			{op: "process-info-pidinfo", other: true}: "deny",
			{op: "process-info-pidinfo"}:              "allow",
		})
	}
}

// Without net a step connects to no UNIX socket named by a path, its own
// included (as on Linux); with net, to any but an agent's or a daemon's,
// which needs secret too.
func TestSeatbeltHoldsUnixSockets(t *testing.T) {
	sock := func(p string) access { return access{op: "network-outbound", path: p, socket: true} }
	agent := "/private/tmp/com.apple.launchd.x/Listeners"
	for _, grant := range []approvals.Effects{approvals.DefaultAuto &^ approvals.Of(approvals.Net), approvals.Of(approvals.Secret, approvals.Outside)} {
		profileDecides(t, grant, Guarded{}, map[access]string{
			sock("/Users/u/ws/.dev.sock"):            "deny",
			sock("/private/tmp/step.sock"):           "deny",
			sock("/var/run/mysqld/mysqld.sock"):      "deny",
			sock(agent):                              "deny",
			sock("/Users/u/.docker/run/docker.sock"): "deny",
			{op: "network-outbound", path: "/x"}:     "deny", // TCP
		})
	}
	profileDecides(t, approvals.DefaultAuto, Guarded{}, map[access]string{
		sock("/var/run/mysqld/mysqld.sock"):      "allow",
		sock("/private/tmp/step.sock"):           "allow",
		sock(agent):                              "deny",
		sock("/Users/u/.docker/run/docker.sock"): "deny",
		{op: "network-outbound", path: "/x"}:     "allow",
	})
	profileDecides(t, approvals.DefaultAuto|approvals.Of(approvals.Secret), Guarded{}, map[access]string{
		sock(agent): "allow",
	})
}

// The guarded places of the roots are read-only to a program tandem cannot
// see into, and the .git directory itself cannot be moved; what is beneath
// .git stays writable.
func TestSeatbeltProfileGuards(t *testing.T) {
	g := Guarded{Pinned: []string{"/Users/u/ws/.git"}, ReadOnly: []string{"/Users/u/ws/.git/hooks", "/Users/u/ws/.tandem", "/Users/u/ws/.git/config"}}
	profileDecides(t, approvals.DefaultAuto, g, map[access]string{
		write("/Users/u/ws/.git/hooks/pre-commit"):          "deny",
		write("/Users/u/ws/.git/config"):                    "deny",
		write("/Users/u/ws/.tandem/settings.json"):          "deny",
		{op: "file-write-unlink", path: "/Users/u/ws/.git"}: "deny",
		write("/Users/u/ws/.git/objects/ab/cd"):             "allow",
		write("/Users/u/ws/main.go"):                        "allow",
	})
}
