package sandbox

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

// An access a profile is asked about, as Seatbelt sees it.
type access struct {
	op   string // file-read-data, file-write-mode, network-outbound, signal, …
	path string // the file, or the UNIX socket connected to
	dir  bool   // the path is a directory
	// socket: the access is a connection to a UNIX socket at path; other:
	// the target process is outside the sandbox.
	socket, other bool
}

// sexp is one parsed S-expression: an atom or a list.
type sexp struct {
	atom  string
	list  []sexp
	isStr bool // a string or a #"regex"
}

// parseProfile reads the rules of a profile, failing on anything it cannot
// read: the evaluator below judges only what it understood.
func parseProfile(t *testing.T, text string) []sexp {
	t.Helper()
	var stack [][]sexp
	var top []sexp
	push := func(e sexp) {
		if len(stack) == 0 {
			top = append(top, e)
		} else {
			stack[len(stack)-1] = append(stack[len(stack)-1], e)
		}
	}
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == ' ' || c == '\n' || c == '\t':
			i++
		case c == '(':
			stack = append(stack, nil)
			i++
		case c == ')':
			if len(stack) == 0 {
				t.Fatalf("unbalanced ) at %d:\n%s", i, text)
			}
			l := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			push(sexp{list: l})
			i++
		case strings.HasPrefix(text[i:], `#"`):
			end := strings.IndexByte(text[i+2:], '"')
			if end < 0 {
				t.Fatalf("unclosed regex at %d", i)
			}
			push(sexp{atom: text[i+2 : i+2+end], isStr: true})
			i += end + 3
		case c == '"':
			j := i + 1
			for ; j < len(text) && text[j] != '"'; j++ {
				if text[j] == '\\' {
					j++
				}
			}
			s, err := strconv.Unquote(text[i : j+1])
			if err != nil {
				t.Fatalf("bad string %s: %v", text[i:j+1], err)
			}
			push(sexp{atom: s, isStr: true})
			i = j + 1
		default:
			j := i
			for j < len(text) && !strings.ContainsRune(" \n\t()", rune(text[j])) {
				j++
			}
			push(sexp{atom: text[i:j]})
			i = j
		}
	}
	if len(stack) != 0 {
		t.Fatalf("unbalanced ( in:\n%s", text)
	}
	return top
}

// decide is what a profile decides for a: the last rule whose operation
// and filters match it, deny when none does (the profile denies by
// default). A rule's filters match when any one does.
func decide(t *testing.T, rules []sexp, a access) string {
	t.Helper()
	verdict := "deny"
	for _, r := range rules {
		if len(r.list) == 0 || r.list[0].atom != "allow" && r.list[0].atom != "deny" {
			continue
		}
		var ops, filters []sexp
		for _, e := range r.list[1:] {
			if e.list != nil {
				filters = append(filters, e)
			} else {
				ops = append(ops, e)
			}
		}
		if !opMatches(ops, a.op) {
			continue
		}
		if len(filters) == 0 || anyFilter(t, filters, a) {
			verdict = r.list[0].atom
		}
	}
	return verdict
}

func opMatches(ops []sexp, op string) bool {
	for _, o := range ops {
		if o.atom == op || o.atom == "default" || strings.HasSuffix(o.atom, "*") && strings.HasPrefix(op, strings.TrimSuffix(o.atom, "*")) {
			return true
		}
	}
	return false
}

func anyFilter(t *testing.T, filters []sexp, a access) bool {
	for _, f := range filters {
		if filterMatches(t, f, a) {
			return true
		}
	}
	return false
}

func filterMatches(t *testing.T, f sexp, a access) bool {
	t.Helper()
	arg := func() string {
		if len(f.list) != 2 || !f.list[1].isStr {
			t.Fatalf("filter %v takes one string", f)
		}
		return f.list[1].atom
	}
	switch f.list[0].atom {
	case "subpath":
		return !a.socket && approvals.Under(a.path, arg())
	case "literal":
		return !a.socket && a.path == arg()
	case "regex":
		return !a.socket && regexp.MustCompile(arg()).MatchString(a.path)
	case "vnode-type":
		return a.dir && f.list[1].atom == "DIRECTORY"
	case "target":
		return !a.other && f.list[1].atom == "same-sandbox"
	case "socket-domain":
		return f.list[1].atom == "AF_UNIX"
	case "remote":
		if f.list[1].atom != "unix-socket" || !a.socket {
			return false
		}
		if len(f.list) == 2 {
			return true
		}
		path := a
		path.socket = false
		return anyFilter(t, f.list[2:], path)
	}
	t.Fatalf("unknown filter %v", f)
	return false
}

func TestProfileEvaluator(t *testing.T) {
	rules := parseProfile(t, `(version 1)
(deny default)
(allow file-read*)
(deny file-read* (subpath "/a") (regex #"^/b/c"))
(allow file-read-metadata (vnode-type DIRECTORY))
(allow network-outbound (remote unix-socket (subpath "/s")))
(allow signal (target same-sandbox))`)
	for _, c := range []struct {
		a    access
		want string
	}{
		{access{op: "file-read-data", path: "/x"}, "allow"},
		{access{op: "file-read-data", path: "/a/x"}, "deny"},
		{access{op: "file-read-data", path: "/b/cd"}, "deny"},
		{access{op: "file-read-metadata", path: "/a/d", dir: true}, "allow"},
		{access{op: "file-write-data", path: "/x"}, "deny"},
		{access{op: "network-outbound", path: "/s/sock", socket: true}, "allow"},
		{access{op: "network-outbound", path: "/t/sock", socket: true}, "deny"},
		{access{op: "signal"}, "allow"},
		{access{op: "signal", other: true}, "deny"},
	} {
		if got := decide(t, rules, c.a); got != c.want {
			t.Errorf("%+v: %s, want %s", c.a, got, c.want)
		}
	}
}
