package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/refusal"
)

// The tests reach no address but loopback, even with a bug planted that
// follows a redirect or ignores a denial: the dialer of every fetch in
// this test binary refuses any other address before connecting.
func init() {
	dial := fetchNet.dial
	fetchNet.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if a, perr := netip.ParseAddr(host); err != nil || perr != nil || !a.Unmap().IsLoopback() {
			return nil, fmt.Errorf("the tests connect to loopback only, not to %s", addr)
		}
		return dial(ctx, network, addr)
	}
}

// pageServer is a local web server that keeps every request it got.
type pageServer struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func servePages(t *testing.T, h http.HandlerFunc) *pageServer {
	t.Helper()
	ps := &pageServer{}
	ps.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ps.mu.Lock()
		ps.reqs = append(ps.reqs, r.Clone(context.Background()))
		ps.mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(ps.Close)
	return ps
}

func (ps *pageServer) requests() []*http.Request {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return slices.Clone(ps.reqs)
}

// port is the server's port, for URLs naming it by another host.
func (ps *pageServer) port() string {
	_, port, _ := net.SplitHostPort(ps.Listener.Addr().String())
	return port
}

// asPublic makes 127.0.0.1 count as a public address, and the names given
// resolve to the addresses given, for the rest of the test: the test
// server is on loopback, and the tests must not reach any other address.
func asPublic(t *testing.T, names map[string]string) {
	t.Helper()
	saved := fetchNet
	t.Cleanup(func() { fetchNet = saved })
	publicLoopback(names)
}

// publicLoopback is asPublic for the process.
func publicLoopback(names map[string]string) {
	fetchNet.class = func(addrs []netip.Addr) approvals.HostClass {
		if len(addrs) == 1 && addrs[0] == netip.MustParseAddr("127.0.0.1") {
			return approvals.HostPublic
		}
		return approvals.ClassifyAddrs(addrs)
	}
	fetchNet.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		if a, ok := names[host]; ok {
			return []netip.Addr{netip.MustParseAddr(a)}, nil
		}
		return nil, fmt.Errorf("no such host %s in this test", host)
	}
}

// fetchSession opens a session whose user settings give the auto set, and
// whose questions ask answers; it returns the questions asked.
func fetchSession(t *testing.T, auto string, answer approvals.Answer) (*Session, func() []approvals.Question) {
	t.Helper()
	var mu sync.Mutex
	var asked []approvals.Question
	s := fetchSessionAsking(t, auto, approvals.AskerFunc(func(_ context.Context, q approvals.Question) approvals.Answer {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, q)
		return answer
	}))
	return s, func() []approvals.Question {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(asked)
	}
}

// fetchSessionAsking opens a session whose user settings give the auto
// set, and whose questions go to asker.
func fetchSessionAsking(t *testing.T, auto string, asker approvals.Asker) *Session {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	st := config.New()
	if auto != "" {
		if err := st.SetInitializationOptions(json.RawMessage(`{"user": {"shell": {"autoEffects": ` + auto + `}}}`)); err != nil {
			t.Fatal(err)
		}
	}
	s := Open(Options{Roots: []string{t.TempDir()}, Settings: st, Asker: asker})
	t.Cleanup(s.Close)
	return s
}

func fetch(s *Session, args string) Result {
	return Call(context.Background(), s, "fetch", json.RawMessage(args))
}

var article = `<!doctype html><html><head><title>The Widget Guide</title></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop the widget store</a> <a href="/about">About widgets incorporated</a></nav>
<article><h1>The Widget Guide</h1>
<p>Widgets turn sprockets into gears. This guide shows how to <a href="setup.html">set one up</a> in a few minutes, and what to check when a widget jams.</p>
<h2>Installing a widget</h2>
<p>Place the widget on a flat surface. Connect its sprocket port to the gear train, and tighten the two screws by hand; a wrench strips the thread.</p>
<ul><li>two screws</li><li>one sprocket</li></ul>
<pre><code>widget --install --port 3</code></pre>
<table><tr><th>size</th><th>gears</th></tr><tr><td>small</td><td>12</td></tr></table>
<p>When a widget jams, turn it off, wait for the gears to stop, and clear the sprocket port with a soft brush before you turn it on again.</p>
` + strings.Repeat(`<p>A widget that still jams after cleaning may have a worn sprocket: compare its teeth with a new one, and replace it when they are rounded at the tips, since a rounded tooth slips under load and the gears then grind against each other.</p>
`, 12) + `</article>
<footer>Copyright widgets incorporated, all rights reserved; privacy policy and terms of use.
<ul>` + strings.Repeat(`<li><a href="/related">Related reading: the sprocket handbook, gear trains explained, and more</a></li>`, 12) + `</ul></footer>
</body></html>`

// An HTML page becomes markdown: its main content, with the final URL
// after redirects on the first line, links made absolute, and what the
// main content left out said, with the call that shows the whole page.
func TestFetchShowsHTMLAsMarkdownAtItsFinalURL(t *testing.T) {
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/guide/widget", http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, article)
	})
	s, _ := fetchSession(t, "", approvals.Unanswered)
	res := fetch(s, `{"url":"`+ps.URL+`/old#part"}`)
	if res.IsError {
		t.Fatal(res.Text)
	}
	final := ps.URL + "/guide/widget"
	for _, want := range []string{
		"[" + final + "] The Widget Guide\n(redirected from " + ps.URL + "/old)\n(text/html, ",
		":## Installing a widget\n",
		":- two screws\n",
		"[set one up](" + ps.URL + "/guide/setup.html)",
		":widget --install --port 3\n",
		":| small | 12 ",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("the page lacks %q:\n%s", want, res.Text)
		}
	}
	if strings.Contains(res.Text, "Shop the widget store") || !strings.Contains(res.Text, `{"url":"`+final+`","full":true} shows the whole page`) {
		t.Errorf("the main content should leave out the navigation and say so:\n%s", res.Text)
	}
	whole := fetch(s, `{"url":"`+final+`","full":true}`)
	if whole.IsError || !strings.Contains(whole.Text, "[Shop the widget store]("+ps.URL+"/shop)") || !strings.Contains(whole.Text, "privacy policy") {
		t.Errorf("full shows the whole page:\n%s", whole.Text)
	}
}

// A long page is paged and cut as read cuts a file: head and tail, the
// cut lines named with the call that shows them; lines selects rows.
func TestFetchPagesALongPageAsReadDoes(t *testing.T) {
	var body strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&body, "line %d of the log\n", i)
	}
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, body.String())
	})
	s, _ := fetchSession(t, "", approvals.Unanswered)
	res := fetch(s, `{"url":"`+ps.URL+`/log"}`)
	if res.IsError || !strings.Contains(res.Text, "\n1:line 1 of the log\n") || !strings.Contains(res.Text, "\n3000:line 3000 of the log\n") ||
		!strings.Contains(res.Text, `... 1000 lines cut here by the output bound (1001-2000): fetch them with lines "1001-2000"`) {
		t.Fatalf("a long page:\n%.600s", res.Text)
	}
	res = fetch(s, `{"url":"`+ps.URL+`/log","lines":"1001-1002,2999-3005"}`)
	want := "1001:line 1001 of the log\n1002:line 1002 of the log\n...\n2999:line 2999 of the log\n3000:line 3000 of the log\n(lines 3001-3005 are past the end: the page has 3000 lines)\n"
	if res.IsError || !strings.HasSuffix(res.Text, want) {
		t.Errorf("lines of a page:\n%s", res.Text)
	}
	long := strings.Repeat("word ", 1000) // one line of 5000 bytes
	ps2 := servePages(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, long) })
	res = fetch(s, `{"url":"`+ps2.URL+`"}`)
	if res.IsError || strings.Contains(res.Text, "line cut") || !strings.Contains(res.Text, "\n3:word") {
		t.Errorf("a long line is broken into rows shown whole:\n%.300s", res.Text)
	}
}

// JSON is shown indented; a type that is not text is refused, naming it
// and what to do instead.
func TestFetchShowsJSONAndRefusesWhatIsNotText(t *testing.T) {
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"name":"widget","gears":[1,2]}`)
		case "/logo.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00"))
		}
	})
	s, _ := fetchSession(t, "", approvals.Unanswered)
	if res := fetch(s, `{"url":"`+ps.URL+`/api"}`); res.IsError || !strings.Contains(res.Text, "(application/json, 31 B, indented)\n1:{\n2:  \"name\": \"widget\",\n") {
		t.Errorf("JSON:\n%s", res.Text)
	}
	res := fetch(s, `{"url":"`+ps.URL+`/logo.png"}`)
	if res.Code != refusal.Encoding || !strings.Contains(res.Text, "is image/png, which fetch does not show") || !strings.HasSuffix(res.Text, "and look at it there.") {
		t.Errorf("an image: %+v", res)
	}
	for _, c := range []struct {
		url  string
		code refusal.Code
	}{
		{"file:///etc/passwd", refusal.Scheme},
		{"example.com/page", refusal.Invalid},
		{"http://user:pw@" + strings.TrimPrefix(ps.URL, "http://") + "/api", refusal.Invalid},
	} {
		if res := fetch(s, `{"url":"`+c.url+`"}`); res.Code != c.code {
			t.Errorf("%s: %+v", c.url, res)
		}
	}
	if n := len(ps.requests()); n != 2 {
		t.Errorf("the server got %d requests; the refused URLs should send none", n)
	}
}

// The body read is bounded, and what the bound left out is said.
func TestFetchReadsAtMostItsBound(t *testing.T) {
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		line := strings.Repeat("x", 99) + "\n"
		for range fetchMaxBytes/100 + 10 {
			fmt.Fprint(w, line)
		}
	})
	s, _ := fetchSession(t, "", approvals.Unanswered)
	lines := fetchMaxBytes/100 + 1 // the last one cut
	res := fetch(s, fmt.Sprintf(`{"url":"%s","lines":"%d"}`, ps.URL, lines))
	if res.IsError || !strings.Contains(res.Text, "(text/plain, 2.0 MiB)\n(only the first 2.0 MiB of the page were read, the bound of one fetch: what follows them is not shown)\n") ||
		!strings.HasSuffix(res.Text, fmt.Sprintf("\n%d:%s\n(the page has %d lines)\n", lines, strings.Repeat("x", fetchMaxBytes%100), lines)) {
		t.Errorf("a page over the bound:\n%s", res.Text)
	}
}

// pipeServer makes fetchNet dial pipes to serve, for the rest of the test:
// in a synctest bubble, a goroutine waiting on a pipe is durably blocked,
// so the fake clock moves, where one waiting on a socket is not. serve gets
// each request read from a connection and writes the answer, or keeps it.
func pipeServer(t *testing.T, serve func(r *http.Request, conn net.Conn)) {
	saved := fetchNet
	t.Cleanup(func() { fetchNet = saved })
	fetchNet.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		client, server := net.Pipe()
		go func() {
			defer server.Close()
			r, err := http.ReadRequest(bufio.NewReader(server))
			if err == nil {
				serve(r, server)
			}
		}()
		return client, nil
	}
}

// The network work of one fetch has 30 s in all, its redirects included;
// the time a question waits for the user does not count. (In a bubble:
// the clock is fake, and the bounds are exact.)
func TestFetchGivesUpAtItsTimeBound(t *testing.T) {
	never := func(r *http.Request, conn net.Conn) { io.Copy(io.Discard, conn) } // answers nothing
	later := func(r *http.Request, conn net.Conn) {
		if r.URL.Path == "/a" {
			time.Sleep(20 * time.Second)
			fmt.Fprint(conn, "HTTP/1.1 302 Found\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n")
			return
		}
		never(r, conn)
	}
	ok := func(r *http.Request, conn net.Conn) {
		fmt.Fprint(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok")
	}
	for _, c := range []struct {
		name    string
		serve   func(*http.Request, net.Conn)
		auto    string
		elapsed time.Duration
		want    string
	}{
		{"a server that never answers", never, "", 30 * time.Second, "http://127.0.0.1/a did not answer within 30s, the bound of one fetch (its redirects included); nothing is shown."},
		{"a redirect that took 20 s leaves 10 s", later, "", 30 * time.Second, "http://127.0.0.1/b did not answer within 30s"},
		{"a minute waiting for the user is not counted", ok, `["read"]`, time.Minute, "1:ok"},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pipeServer(t, c.serve)
				s := fetchSessionAsking(t, c.auto, approvals.AskerFunc(func(context.Context, approvals.Question) approvals.Answer {
					time.Sleep(time.Minute) // the user takes a minute
					return approvals.AllowOnce
				}))
				start := time.Now()
				res := fetch(s, `{"url":"http://127.0.0.1/a"}`)
				if !strings.Contains(res.Text, c.want) || time.Since(start) != c.elapsed {
					t.Errorf("after %s: %+v", time.Since(start), res)
				}
			})
		})
	}
}

// Outside the auto set, a fetch is asked about, as a fetch with the effect
// net; a denial sends nothing. Within it, nothing is asked.
func TestFetchIsAskedUnlessNetIsInTheAutoSet(t *testing.T) {
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hello") })
	for _, c := range []struct {
		auto     string
		answer   approvals.Answer
		asked    bool
		code     refusal.Code
		requests int
	}{
		{`["read"]`, approvals.Deny, true, refusal.Denied, 0},
		{`["read"]`, approvals.AllowOnce, true, "", 1},
		{`["read","net"]`, approvals.Deny, false, "", 1},
		{"", approvals.Deny, false, "", 1}, // the default auto set holds net
	} {
		before := len(ps.requests())
		s, asked := fetchSession(t, c.auto, c.answer)
		res := fetch(s, `{"url":"`+ps.URL+`/p"}`)
		if res.Code != c.code || (c.code == "" && !strings.HasSuffix(res.Text, "1:hello\n")) {
			t.Errorf("auto %s, answer %s: %+v", c.auto, c.answer, res)
		}
		q := asked()
		if (len(q) == 1) != c.asked || len(q) > 1 {
			t.Errorf("auto %s: asked %+v", c.auto, q)
		}
		if c.asked && (q[0].Kind != approvals.KindFetch || q[0].Steps[0].Text != "fetch "+ps.URL+"/p — 127.0.0.1 is a loopback address, a service on this machine" || q[0].Steps[0].Effects != approvals.Of(approvals.Net)) {
			t.Errorf("the question: %+v", q[0])
		}
		if got := len(ps.requests()) - before; got != c.requests {
			t.Errorf("auto %s, answer %s: the server got %d requests, want %d", c.auto, c.answer, got, c.requests)
		}
	}
}

// The question says when the address is loopback, private or link-local,
// for an address and for a name resolving to one. (Denied: nothing is sent
// to those addresses.)
func TestFetchQuestionSaysWhereAnAddressLeads(t *testing.T) {
	asPublic(t, map[string]string{"printer.lan": "10.0.0.7", "metadata.test": "169.254.169.254"})
	s, asked := fetchSession(t, `["read"]`, approvals.Deny)
	for url, want := range map[string]string{
		"http://127.0.0.5:8/":          "127.0.0.5 is a loopback address, a service on this machine",
		"http://[::1]:8/":              "::1 is a loopback address, a service on this machine",
		"http://printer.lan/status":    "printer.lan is a private address, a machine on the user's own network: 10.0.0.7",
		"http://192.168.1.1/":          "192.168.1.1 is a private address, a machine on the user's own network",
		"http://metadata.test/latest/": "metadata.test is a link-local address, on the local link (such as a cloud metadata service): 169.254.169.254",
		"http://[fd00::1]/":            "fd00::1 is a private address, a machine on the user's own network",
		"http://[::ffff:127.0.0.1]:8/": "::ffff:127.0.0.1 is a loopback address, a service on this machine: 127.0.0.1",
		"http://172.16.0.1/":           "172.16.0.1 is a private address, a machine on the user's own network",
		"http://[fe80::1]/":            "fe80::1 is a link-local address, on the local link (such as a cloud metadata service)",
	} {
		before := len(asked())
		if res := fetch(s, `{"url":"`+url+`"}`); res.Code != refusal.Denied {
			t.Errorf("%s: %+v", url, res)
		}
		q := asked()
		if len(q) != before+1 {
			t.Fatalf("%s was not asked", url)
		}
		// The step's text says it, so that every client's prompt shows it.
		if step := q[len(q)-1].Steps[0].Text; step != "fetch "+url+" — "+want {
			t.Errorf("%s: the step is %q", url, step)
		}
		if text := approvals.QuestionText(q[len(q)-1]); !strings.Contains(text, "asks to fetch:\n\nfetch "+url+" — "+want+"\n  effects: net\n") {
			t.Errorf("%s: the question:\n%s", url, text)
		}
	}
	// A public address says nothing more.
	asPublic(t, map[string]string{"docs.test": "127.0.0.1"})
	fetch(s, `{"url":"http://docs.test:8/"}`)
	if q := asked(); q[len(q)-1].Steps[0].Text != "fetch http://docs.test:8/" {
		t.Errorf("a public host's step: %q", q[len(q)-1].Steps[0].Text)
	}
}

// A redirect from a public address to one that is not is never followed,
// even with net in the auto set; a redirect to another host is judged
// again, and asked about outside the auto set.
func TestFetchJudgesEachRedirect(t *testing.T) {
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) {
		_, port, _ := net.SplitHostPort(r.Host) // the handler runs before ps is set
		switch r.URL.Path {
		case "/to-loopback":
			http.Redirect(w, r, "http://127.0.0.2:"+port+"/admin", http.StatusFound)
		case "/to-private":
			http.Redirect(w, r, "http://10.1.2.3/admin", http.StatusFound)
		case "/to-other-host":
			http.Redirect(w, r, "http://other.test:"+port+"/page", http.StatusFound)
		case "/to-same-host":
			http.Redirect(w, r, "/page", http.StatusFound)
		default:
			fmt.Fprint(w, "the page")
		}
	})
	asPublic(t, map[string]string{"public.test": "127.0.0.1", "other.test": "127.0.0.1"})
	base := "http://public.test:" + ps.port()
	s, _ := fetchSession(t, "", approvals.Deny)
	for path, where := range map[string]string{"/to-loopback": "127.0.0.2 is a loopback address, a service on this machine;", "/to-private": "10.1.2.3 is a private address, a machine on the user's own network;"} {
		res := fetch(s, `{"url":"`+base+path+`"}`)
		if res.Code != refusal.Denied || !strings.Contains(res.Text, where) || !strings.Contains(res.Text, "fetch does not follow a redirect from a public address") {
			t.Errorf("%s: %+v", path, res)
		}
	}
	for _, r := range ps.requests() {
		if r.URL.Path == "/admin" {
			t.Errorf("the redirect to a private address was followed")
		}
	}
	s, asked := fetchSession(t, `["read"]`, approvals.AllowOnce)
	if res := fetch(s, `{"url":"`+base+`/to-same-host"}`); res.IsError || len(asked()) != 1 {
		t.Errorf("a redirect on the same host: asked %d times: %+v", len(asked()), res)
	}
	res := fetch(s, `{"url":"`+base+`/to-other-host"}`)
	q := asked()
	if res.IsError || len(q) != 3 || q[2].Steps[0].Text != "fetch http://other.test:"+ps.port()+"/page (redirected from "+base+"/to-other-host)" ||
		!strings.HasPrefix(res.Text, "[http://other.test:"+ps.port()+"/page]\n(redirected from "+base+"/to-other-host)") {
		t.Errorf("a redirect to another host: asked %+v: %+v", q, res)
	}
}

// In plan mode fetch still runs (it changes nothing), under the gate's
// rules: asked outside the auto set.
func TestFetchRunsInPlanModeUnderTheGate(t *testing.T) {
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "plan notes") })
	s, asked := fetchSession(t, `["read"]`, approvals.AllowOnce)
	s.SetReadOnly(true)
	if res := fetch(s, `{"url":"`+ps.URL+`"}`); res.IsError || len(asked()) != 1 || !strings.Contains(res.Text, "1:plan notes") {
		t.Errorf("fetch in plan mode: asked %d: %+v", len(asked()), res)
	}
	if res := Call(context.Background(), s, "bash", json.RawMessage(`{"command":"curl -s `+ps.URL+`"}`)); res.Code != refusal.PlanMode {
		t.Errorf("bash's net in plan mode: %+v", res)
	}
}

// fetchLawEnv makes the test binary a process that fetches the URLs it
// names (separated by spaces) with the environment it was started with,
// as tandem runs: Go's HTTP client reads the proxy variables once per
// process, so only a process started with them shows what they do.
const fetchLawEnv = "TANDEM_TOOLS_FETCH_LAW"

// fetchInChild is the process of fetchLawEnv: the names public.test and
// other.test lead to the test's server on 127.0.0.1, as a public address.
func fetchInChild(urls string) int {
	publicLoopback(map[string]string{"public.test": "127.0.0.1", "other.test": "127.0.0.1"})
	s := Open(Options{Roots: []string{os.TempDir()}})
	defer s.Close()
	for _, u := range strings.Fields(urls) {
		res := fetch(s, `{"url":"`+u+`"}`)
		fmt.Println(res.Text)
		if res.IsError {
			return 1
		}
	}
	return 0
}

// The law: a fetch sends a GET with its own fixed headers and nothing else
// — no cookie a page set, no Referer, no Authorization, no proxy from the
// environment (whose URL holds a password), on every hop.
func TestLaw_fetch_sends_nothing_but_its_own_headers(t *testing.T) {
	proxied := make(chan string, 10)
	proxy := servePages(t, func(w http.ResponseWriter, r *http.Request) { proxied <- r.URL.String() })
	proxyURL, _ := url.Parse(proxy.URL)
	proxyURL.User = url.UserPassword("me", "proxy-secret")
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) {
		_, port, _ := net.SplitHostPort(r.Host) // the handler runs before ps is set
		switch r.URL.Path {
		case "/a":
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "cookie-secret", Path: "/"})
			w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
			http.Redirect(w, r, "/b", http.StatusFound)
		case "/b":
			http.SetCookie(w, &http.Cookie{Name: "other", Value: "cookie-secret-2", Path: "/"})
			http.Redirect(w, r, "http://other.test:"+port+"/c", http.StatusFound)
		default:
			fmt.Fprint(w, "the end")
		}
	})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir(), "NO_PROXY=", "no_proxy=",
		fetchLawEnv+"=http://public.test:"+ps.port()+"/a http://public.test:"+ps.port()+"/c")
	for _, v := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"} {
		cmd.Env = append(cmd.Env, v+"="+proxyURL.String())
	}
	out, err := cmd.CombinedOutput()
	select {
	case u := <-proxied:
		t.Fatalf("the proxy of the environment got %s", u)
	default:
	}
	if err != nil || !strings.Contains(string(out), "1:the end\n") {
		t.Fatalf("the fetches: %v\n%s", err, out)
	}
	reqs := ps.requests()
	if len(reqs) != 4 {
		t.Fatalf("the server got %d requests, want 4", len(reqs))
	}
	for _, r := range reqs {
		var names []string
		for k := range r.Header {
			names = append(names, k)
		}
		slices.Sort(names)
		if r.Method != http.MethodGet || !slices.Equal(names, []string{"Accept", "Accept-Encoding", "Connection", "User-Agent"}) ||
			r.Header.Get("User-Agent") != fetchUserAgent || r.Header.Get("Accept") != fetchAccept || r.Header.Get("Accept-Encoding") != "gzip" || r.Header.Get("Connection") != "close" {
			t.Errorf("%s %s carried %v", r.Method, r.URL, r.Header)
		}
	}
}

// A name is resolved once, and the fetch connects to the address judged:
// a resolver that answers otherwise a moment later (DNS rebinding) is not
// asked again, and the system's resolver, which knows no such name, never.
func TestFetchConnectsToTheAddressItJudged(t *testing.T) {
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "judged") })
	asPublic(t, nil)
	lookups := 0
	fetchNet.lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
		lookups++
		if lookups == 1 {
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.3")}, nil // nothing listens there
	}
	s, _ := fetchSession(t, "", approvals.Unanswered)
	if res := fetch(s, `{"url":"http://rebinding.test:`+ps.port()+`/"}`); res.IsError || !strings.HasSuffix(res.Text, "1:judged\n") || lookups != 1 {
		t.Errorf("looked up %d times: %+v", lookups, res)
	}
}

// An international name is resolved, asked about and sent in punycode.
func TestFetchSendsAnInternationalNameInPunycode(t *testing.T) {
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "books") })
	asPublic(t, map[string]string{"xn--bcher-kva.test": "127.0.0.1"})
	s, asked := fetchSession(t, `["read"]`, approvals.AllowOnce)
	res := fetch(s, `{"url":"http://bücher.test:`+ps.port()+`/"}`)
	want := "http://xn--bcher-kva.test:" + ps.port() + "/"
	if res.IsError || !strings.HasPrefix(res.Text, "["+want+"]") || len(asked()) != 1 || asked()[0].Steps[0].Text != "fetch "+want {
		t.Errorf("asked %+v: %+v", asked(), res)
	}
	if r := ps.requests(); len(r) != 1 || r[0].Host != "xn--bcher-kva.test:"+ps.port() {
		t.Errorf("the server got %+v", r)
	}
}

// Stopping the call while the server has not answered ends the fetch at
// once, as cancelled.
func TestFetchStopsWhenItsCallIsCancelled(t *testing.T) {
	arrived := make(chan struct{})
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
	})
	s, _ := fetchSession(t, "", approvals.Unanswered)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	res := Call(ctx, s, "fetch", json.RawMessage(`{"url":"`+ps.URL+`"}`))
	if res.Code != refusal.Cancelled || !strings.HasSuffix(res.Text, "Fetch it again if the user still wants it.") {
		t.Errorf("a cancelled fetch: %+v", res)
	}
}

// A redirect fetch cannot take is not followed, and the refusal says where
// it led: another scheme, a password, a loop past the bound.
func TestFetchStopsAtARedirectItCannotTake(t *testing.T) {
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-file":
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		case "/to-password":
			http.Redirect(w, r, "http://me:pw@"+r.Host+"/x", http.StatusFound)
		default:
			http.Redirect(w, r, "/loop", http.StatusFound)
		}
	})
	s, _ := fetchSession(t, "", approvals.Unanswered)
	for path, want := range map[string]string{
		"/to-file":     ps.URL + "/to-file redirected to file:///etc/passwd, which fetch does not follow: fetch gets http and https URLs, not file:.",
		"/to-password": ps.URL + "/to-password redirected to http://me:xxxxx@" + strings.TrimPrefix(ps.URL, "http://") + "/x, which fetch does not follow: The URL carries a user name or password",
		"/loop":        ps.URL + "/loop redirected more than 10 times; fetch stopped there.",
	} {
		if res := fetch(s, `{"url":"`+ps.URL+path+`"}`); res.Code != refusal.Failed || !strings.HasPrefix(res.Text, want) {
			t.Errorf("%s: %+v", path, res)
		}
	}
	for _, r := range ps.requests() {
		if r.URL.Path == "/x" || r.URL.User != nil {
			t.Errorf("the server got %s", r.URL)
		}
	}
}

// A page with more elements than the main-content search takes is
// converted whole, and the answer says why.
func TestFetchConvertsAHugePageWhole(t *testing.T) {
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>"+strings.Repeat("<p>item</p>", mainContentMaxElems)+"</body></html>")
	})
	s, _ := fetchSession(t, "", approvals.Unanswered)
	res := fetch(s, `{"url":"`+ps.URL+`","lines":"1-3"}`)
	if res.IsError || !strings.Contains(res.Text, "as markdown: the whole page, which has too many elements (over 50000) to look for its main content)\n1:item\n2:\n3:item\n") {
		t.Errorf("a huge page:\n%s", res.Text)
	}
}

// A small page is converted whole: the main-content search saves little
// there, and can take its one heading for clutter.
func TestFetchConvertsASmallPageWhole(t *testing.T) {
	ps := servePages(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Index of /</title></head><body><h1>Index of /</h1><ul><li><a href="a.txt">a.txt</a></li></ul></body></html>`)
	})
	s, _ := fetchSession(t, "", approvals.Unanswered)
	if res := fetch(s, `{"url":"`+ps.URL+`"}`); res.IsError || !strings.Contains(res.Text, "(text/html, 126 B, as markdown)\n1:# Index of /\n2:\n3:- [a.txt]("+ps.URL+"/a.txt)\n") {
		t.Errorf("a small page:\n%s", res.Text)
	}
}

// Paging a page the session fetched in the last 15 minutes shows its copy:
// nothing is fetched and nothing asked. Without lines, or later, or in
// another session, the page is fetched again. (In a bubble: the clock is
// fake.)
func TestFetchPagesTheSessionsCopy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		served := 0
		pipeServer(t, func(r *http.Request, conn net.Conn) {
			mu.Lock()
			served++
			n := served
			mu.Unlock()
			body := fmt.Sprintf("version %d\nsecond line\n", n)
			fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		})
		s, asked := fetchSession(t, `["read"]`, approvals.AllowOnce)
		page := func(args string) string {
			t.Helper()
			res := fetch(s, args)
			if res.IsError {
				t.Fatal(res.Text)
			}
			return res.Text
		}
		if got := page(`{"url":"http://127.0.0.1/doc"}`); !strings.HasSuffix(got, "1:version 1\n2:second line\n") {
			t.Errorf("the first fetch:\n%s", got)
		}
		time.Sleep(14 * time.Minute)
		if got := page(`{"url":"http://127.0.0.1/doc","lines":"1"}`); !strings.Contains(got, "(this session's copy of the page, fetched 14m0s ago; fetch it without \"lines\" to get it anew)\n1:version 1\n") {
			t.Errorf("paging the copy:\n%s", got)
		}
		if served != 1 || len(asked()) != 1 {
			t.Errorf("paging the copy fetched (%d requests) or asked (%d questions)", served, len(asked()))
		}
		time.Sleep(2 * time.Minute)
		if got := page(`{"url":"http://127.0.0.1/doc","lines":"1"}`); !strings.HasSuffix(got, "1:version 2\n(the page has 2 lines)\n") || strings.Contains(got, "copy") {
			t.Errorf("a copy 16 minutes old:\n%s", got)
		}
		if got := page(`{"url":"http://127.0.0.1/doc"}`); !strings.HasSuffix(got, "1:version 3\n2:second line\n") {
			t.Errorf("without lines:\n%s", got)
		}
		other, _ := fetchSession(t, "", approvals.Unanswered)
		if res := fetch(other, `{"url":"http://127.0.0.1/doc","lines":"1"}`); !strings.HasSuffix(res.Text, "1:version 4\n(the page has 2 lines)\n") {
			t.Errorf("another session:\n%s", res.Text)
		}
		// A session's copies go with it; a session of one call keeps none.
		one := Open(Options{Roots: []string{t.TempDir()}, OneCall: true})
		defer one.Close()
		fetch(one, `{"url":"http://127.0.0.1/doc"}`)
		s.Close()
		pageCopies.mu.Lock()
		_, kept := pageCopies.bySession[s]
		_, keptOne := pageCopies.bySession[one]
		pageCopies.mu.Unlock()
		if kept || keptOne {
			t.Errorf("copies kept: of a closed session %v, of a session of one call %v", kept, keptOne)
		}
	})
}
