package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

func init() { register(fetchTool) }

var fetchTool = spec[fetchArgs]{
	Tool: Tool{
		Name:        "fetch",
		DisplayName: "Fetch a web page",
		Description: `Fetch a web page (http/https) as text: HTML as markdown (its main content; "full" for all), text and JSON as they are. ` +
			`First line: [FINAL URL] after redirects. Rows "N:text"; "lines" pages as in read. GET only, no cookie or credential; the user may be asked first.`,
		Examples:   examples(`{"url":"https://go.dev/doc/effective_go"}`, `{"url":"https://pkg.go.dev/net/http","lines":"2001-4000"}`),
		ReadOnly:   true,
		Idempotent: true,
		OpenWorld:  true,
		Kind:       KindFetch,
		Aliases:    []string{"webfetch", "web_fetch", "fetch_url", "fetch_webpage", "url_fetch"},
	},
	run:   runFetch,
	title: func(a fetchArgs) string { return "Fetch " + a.URL },
}

// fetchArgs are fetch's arguments.
type fetchArgs struct {
	URL   string   `json:"url" jsonschema:"The http or https URL."`
	Lines selector `json:"lines,omitempty" jsonschema:"Rows to show: \"N-M\", \"N-\", comma-separated."`
	Full  bool     `json:"full,omitempty" jsonschema:"The whole HTML page, not only its main content."`
}

// The bounds of one fetch (docs/tools.md).
const (
	fetchMaxBytes     = 2 << 20 // of the body, as decompressed; converting 2 MiB of dense HTML takes about a second
	fetchTimeout      = 30 * time.Second
	fetchMaxRedirects = 10
	// fetchUserAgent names tandem, and nothing of the user or the machine.
	fetchUserAgent = "tandem-fetch/1 (+https://github.com/tandemdev/tandem)"
	fetchAccept    = "text/html, application/xhtml+xml, text/markdown, text/plain, application/json;q=0.9, */*;q=0.1"
)

// fetchNet is how a fetch reaches the network: the resolver, the classes
// of the addresses, the dialer, the time bound. Tests replace it, to call
// the loopback address of their server public, or to serve over pipes in
// a bubble whose clock is fake.
var fetchNet = struct {
	lookup  func(ctx context.Context, host string) ([]netip.Addr, error)
	class   func([]netip.Addr) approvals.HostClass
	dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	timeout time.Duration
}{
	lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
		return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	},
	class:   approvals.ClassifyAddrs,
	dial:    (&net.Dialer{}).DialContext,
	timeout: fetchTimeout,
}

// pagePager names a page's rows in the notices of its view.
var pagePager = documents.Pager{Unit: "page", Call: "fetch"}

// runFetch gets the page a.URL names through the gate and shows it as
// text, paged and cut as read shows a file. A call with lines pages the
// copy this session fetched, when it has a recent one.
func runFetch(ctx context.Context, s *Session, a fetchArgs) Result {
	asked, err := fetchURL(a.URL)
	if err != nil {
		return Refused(err)
	}
	var spans []documents.Span
	if a.Lines != "" {
		if spans, err = documents.ParseSelector(string(a.Lines)); err != nil {
			return Refused(err)
		}
	}
	key := fmt.Sprintf("%s full=%v", asked, a.Full)
	if a.Lines != "" {
		if c, age, ok := pageCopies.take(s, key); ok {
			return c.show(spans, true, fmt.Sprintf("(this session's copy of the page, fetched %s ago; fetch it without \"lines\" to get it anew)\n", age.Round(time.Second)))
		}
	}
	c, err := fetchPage(ctx, s, asked, a.Full)
	if err != nil {
		return Refused(err)
	}
	if !s.opts.OneCall {
		pageCopies.keep(s, key, c)
	}
	return c.show(spans, a.Lines != "", "")
}

// fetchedPage is a page as fetch shows it: the head (the final URL, its
// title, the notices), the text, the HTTP status.
type fetchedPage struct {
	head   string
	text   documents.Lines
	status int
}

// fetchPage gets u and makes it text.
func fetchPage(ctx context.Context, s *Session, asked *url.URL, full bool) (*fetchedPage, error) {
	clock := &netClock{left: fetchNet.timeout}
	resp, final, err := follow(ctx, s, asked, clock)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, fetchMaxBytes+1))
	resp.Body.Close()
	if err != nil {
		return nil, clock.failure(ctx, final, err)
	}
	clock.stop()
	cut := len(body) > fetchMaxBytes
	if cut {
		body = body[:fetchMaxBytes]
	}
	page, err := convertPage(ctx, body, resp.Header.Get("Content-Type"), final, full)
	if err != nil {
		return nil, err
	}
	var head strings.Builder
	head.WriteString("[" + final.String() + "]")
	if page.title != "" {
		head.WriteString(" " + page.title)
	}
	head.WriteString("\n")
	if final.String() != asked.String() {
		fmt.Fprintf(&head, "(redirected from %s)\n", asked)
	}
	if resp.StatusCode/100 != 2 {
		fmt.Fprintf(&head, "(HTTP %s)\n", resp.Status)
	}
	fmt.Fprintf(&head, "(%s, %s%s)\n", page.mediaType, documents.ShortSize(int64(len(body))), page.note)
	if cut {
		fmt.Fprintf(&head, "(only the first %s of the page were read, the bound of one fetch: what follows them is not shown)\n", documents.ShortSize(fetchMaxBytes))
	}
	return &fetchedPage{head: head.String(), text: documents.Scan([]byte(wrapLong(page.text))), status: resp.StatusCode}, nil
}

// show is the answer showing the rows spans select (all when nil), after
// the head and the notice given.
func (p *fetchedPage) show(spans []documents.Span, selected bool, notice string) Result {
	var out strings.Builder
	out.WriteString(p.head + notice)
	if p.text.Len() == 0 {
		out.WriteString("(empty page)\n")
	} else {
		documents.WriteRows(&out, p.text, spans, selected, pagePager)
	}
	res := Result{Text: out.String()}
	if p.status/100 != 2 {
		res.IsError, res.Code = true, refusal.Failed
		if p.status == http.StatusNotFound || p.status == http.StatusGone {
			res.Code = refusal.NotFound
		}
	}
	return res
}

// fetchURL reads the URL a call names: http or https, with a host, and no
// user name or password, which fetch would never send.
func fetchURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf("%q is not a URL (%v). Call fetch again with an http or https URL.", raw, errors.Unwrap(err)))
	case u.Scheme == "":
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf("%q has no scheme. Call fetch again with https://%s.", raw, raw))
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, refusal.New(refusal.Scheme, fmt.Sprintf("fetch gets http and https URLs, not %s:. Read a file with read; call fetch with an http or https URL.", u.Scheme))
	case u.Host == "":
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf("%q names no host. Call fetch again with a URL such as https://example.com/page.", raw))
	case u.User != nil:
		return nil, refusal.New(refusal.Invalid, "The URL carries a user name or password; fetch sends no credentials. Call fetch again with the URL without them, or ask the user to get the page.")
	}
	if host := u.Hostname(); strings.ContainsFunc(host, func(r rune) bool { return r > unicode.MaxASCII }) {
		// An international name is resolved, asked about and sent as DNS
		// knows it: in punycode.
		ascii, err := idna.Lookup.ToASCII(host)
		if err != nil {
			return nil, refusal.New(refusal.Invalid, fmt.Sprintf("The host %q is not a valid name (%v). Call fetch again with the URL's host corrected.", host, err))
		}
		if port := u.Port(); port != "" {
			ascii = net.JoinHostPort(ascii, port)
		}
		u.Host = ascii
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// follow gets u, following redirects, and returns the last response and
// its URL; the response's body is read on clock's time, which the caller
// stops. Each hop's host is resolved once, judged by the addresses it
// resolved to, and connected to at those addresses only, so a name that
// resolves elsewhere a moment later (DNS rebinding) reaches nothing new. A
// hop to a host this call has not yet passed through the gate is asked
// about unless net is in the auto set; a redirect from a public address to
// one that is not is never followed.
func follow(ctx context.Context, s *Session, u *url.URL, clock *netClock) (*http.Response, *url.URL, error) {
	passed := map[string]bool{}
	var first approvals.HostClass
	var from *url.URL // the hop before
	for hop := 0; ; hop++ {
		host, err := judgeHost(clock.start(ctx), u.Hostname())
		if err != nil {
			return nil, nil, clock.failure(ctx, u, err)
		}
		clock.stop()
		if hop == 0 {
			first = host.Class
		} else if first == approvals.HostPublic && host.Class != approvals.HostPublic {
			return nil, nil, refusal.New(refusal.Denied, fmt.Sprintf(
				"The page redirected to %s, and %s; fetch does not follow a redirect from a public address to one that is not (a page could use it to reach the user's own services). If the user wants that page, fetch %s itself.", u, host.Where(), u))
		}
		if !passed[host.Name] {
			step := approvals.Step{Text: "fetch " + u.String(), Effects: approvals.Of(approvals.Net), Host: &host.StepHost}
			if from != nil {
				step.Text += " (redirected from " + from.String() + ")"
			}
			if host.Class != approvals.HostPublic {
				step.Text += " — " + host.Where()
			}
			if err := s.Gate().Check(ctx, approvals.KindFetch, step); err != nil {
				if ctx.Err() != nil {
					return nil, nil, refusal.New(refusal.Cancelled, fmt.Sprintf("The call was cancelled while the fetch of %s awaited the user's approval; it did not run. Call again if the user still wants it.", u))
				}
				return nil, nil, err
			}
			passed[host.Name] = true
		}
		resp, err := get(clock.start(ctx), u, host.addrs)
		if err != nil {
			return nil, nil, clock.failure(ctx, u, err)
		}
		loc := resp.Header.Get("Location")
		if resp.StatusCode/100 != 3 || loc == "" {
			return resp, u, nil
		}
		resp.Body.Close()
		clock.stop()
		if hop == fetchMaxRedirects {
			return nil, nil, refusal.New(refusal.Failed, fmt.Sprintf("%s redirected more than %d times; fetch stopped there. Fetch the last address (%s) itself, or another page.", u, fetchMaxRedirects, loc))
		}
		next, err := u.Parse(loc)
		if err != nil {
			return nil, nil, refusal.New(refusal.Failed, fmt.Sprintf("%s redirected to %q, which is not a URL. Fetch another page.", u, loc))
		}
		from = u
		if u, err = fetchURL(next.String()); err != nil {
			return nil, nil, refusal.New(refusal.Failed, fmt.Sprintf("%s redirected to %s, which fetch does not follow: %s", from, next.Redacted(), err.(*refusal.Error).Text))
		}
	}
}

// judgedHost is a host as a hop judged it: the addresses it connects to.
type judgedHost struct {
	approvals.StepHost
	addrs []netip.Addr
}

// judgeHost resolves name once: an address is itself.
func judgeHost(ctx context.Context, name string) (judgedHost, error) {
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(name); err == nil {
		addrs = []netip.Addr{a}
	} else if addrs, err = fetchNet.lookup(ctx, name); err != nil || len(addrs) == 0 {
		return judgedHost{}, refusal.New(refusal.Failed, fmt.Sprintf("The host %s could not be resolved (%v). Check the URL, or fetch another page.", name, err))
	}
	h := judgedHost{StepHost: approvals.StepHost{Name: name, Class: fetchNet.class(addrs)}, addrs: addrs}
	for _, a := range addrs {
		h.Addrs = append(h.Addrs, a.Unmap().String())
	}
	return h, nil
}

// get sends one GET of u to the addresses judged for its host, and to no
// other: no proxy, no cookie, no credential, no header but its own.
func get(ctx context.Context, u *url.URL, addrs []netip.Addr) (*http.Response, error) {
	pinned := func(ctx context.Context, network, addr string) (net.Conn, error) {
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		for _, a := range addrs {
			var c net.Conn
			if c, err = fetchNet.dial(ctx, network, net.JoinHostPort(a.Unmap().String(), port)); err == nil {
				return c, nil
			}
		}
		return nil, err
	}
	client := &http.Client{
		// A zero Transport's Proxy is nil: HTTP_PROXY and its kin are not
		// read, so the connection goes to the judged address, and a proxy
		// URL's credentials go nowhere.
		Transport: &http.Transport{DialContext: pinned, ForceAttemptHTTP2: true, DisableKeepAlives: true},
		// Redirects are followed by follow, hop by hop, each judged.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header = http.Header{"User-Agent": {fetchUserAgent}, "Accept": {fetchAccept}}
	return client.Do(req)
}

// convertPage is pageText run apart from the call, so that stopping the
// call ends it at once: converting a hostile page takes seconds, and the
// main-content search cannot be stopped midway (it then finishes alone,
// changing nothing).
func convertPage(ctx context.Context, body []byte, contentType string, at *url.URL, full bool) (page, error) {
	type converted struct {
		p   page
		err error
	}
	done := make(chan converted, 1)
	go func() {
		p, err := pageText(ctx, body, contentType, at, full)
		done <- converted{p, err}
	}()
	select {
	case c := <-done:
		return c.p, c.err
	case <-ctx.Done():
		return page{}, fetchCancelled(at)
	}
}

// fetchCancelled is the refusal of a fetch of u whose call was cancelled.
func fetchCancelled(u *url.URL) error {
	return refusal.New(refusal.Cancelled, fmt.Sprintf("The fetch of %s was cancelled; nothing is shown. Fetch it again if the user still wants it.", u))
}

// netClock bounds the time a fetch spends on the network, its redirects
// included; the time a question waits for the user is not counted.
type netClock struct {
	left    time.Duration
	started time.Time
	ctx     context.Context
	cancel  context.CancelFunc
}

// errFetchTimeout is why a fetch's network context ended at its bound.
var errFetchTimeout = errors.New("the fetch's time bound")

// start runs the clock, and returns the context of the network work that
// follows, which ends when the time left runs out.
func (c *netClock) start(ctx context.Context) context.Context {
	c.started = time.Now()
	c.ctx, c.cancel = context.WithTimeoutCause(ctx, c.left, errFetchTimeout)
	return c.ctx
}

// stop stops the clock and ends the network work's context.
func (c *netClock) stop() {
	c.left -= time.Since(c.started)
	c.cancel()
}

// failure is the refusal of network work on u that failed with err (ctx is
// the call's): cancelled, out of time, or err's own.
func (c *netClock) failure(ctx context.Context, u *url.URL, err error) error {
	defer c.cancel()
	switch {
	case ctx.Err() != nil:
		return fetchCancelled(u)
	case context.Cause(c.ctx) == errFetchTimeout:
		return refusal.New(refusal.Failed, fmt.Sprintf("%s did not answer within %s, the bound of one fetch (its redirects included); nothing is shown. Fetch it again later, or another page.", u, fetchNet.timeout))
	}
	var r *refusal.Error
	if errors.As(err, &r) {
		return r
	}
	return refusal.New(refusal.Failed, fmt.Sprintf("The fetch of %s failed: %v. Check the URL, or fetch another page.", u, err))
}

// wrapLong breaks each line longer than wrapBytes at a space before that
// width (or at the width, between characters), so that every row of a page
// shows whole: a page is a rendering, and its lines carry no meaning a
// break would change but in a long code line.
func wrapLong(text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		for len(line) > wrapBytes {
			cut := strings.LastIndexByte(line[:wrapBytes], ' ')
			if cut < wrapBytes/2 {
				cut = wrapBytes
				for cut > 0 && !utf8.RuneStart(line[cut]) {
					cut--
				}
			}
			b.WriteString(line[:cut] + "\n")
			line = strings.TrimPrefix(line[cut:], " ")
		}
		b.WriteString(line)
	}
	return b.String()
}

// wrapBytes is the widest line a page's view shows, below the width of a
// row that read shows whole.
const wrapBytes = 2000
