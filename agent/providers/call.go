package providers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Both wires are decoded by hand rather than through the providers' Go
// SDKs: the wires are small, one retry loop and one SSE reader then serve
// both, the OpenAI-compatible quirks (a missing or always-zero tool call
// index) need our own merging anyway, and the Anthropic SDK alone would add
// 7.5 MB to the binary by being imported, 8.5 MB once it streams.

const (
	defaultMaxRetries = 4
	// firstBackoff doubles with each retry up to maxBackoff when the
	// provider gives no retry-after.
	firstBackoff = 500 * time.Millisecond
	maxBackoff   = 16 * time.Second
	// maxRetryAfter is the longest retry-after honoured: a provider asking
	// for longer is out of quota for a while, and the user is better told
	// than kept waiting on a status line.
	maxRetryAfter = 2 * time.Minute
	// maxErrorBody bounds what is read of an error response.
	maxErrorBody = 64 << 10
	// DefaultIdleTimeout is how long a call waits for the next byte — of
	// the connection, the headers, or the stream — before it counts as
	// dropped. Anthropic's stream carries pings and OpenRouter sends
	// comments while a model thinks, but a reasoning model behind plain
	// Chat Completions, or a local server loading a model, is silent until
	// its first token: Claude Code's watchdog waits 90 s, Codex's 300 s.
	DefaultIdleTimeout = 120 * time.Second
	// MaxEventBytes bounds one server-sent event (its lines together): a
	// server or proxy streaming a line without end would otherwise grow
	// tandem's memory until it ran out.
	MaxEventBytes = 16 << 20
	// connectTimeout bounds the TCP connection; TLS has its own bound.
	connectTimeout      = 30 * time.Second
	tlsHandshakeTimeout = 10 * time.Second
)

// defaultHTTP is the client of every provider not given one: connecting
// and the TLS handshake are bounded here, and each call's silence by its
// idle timeout (the headers included), never the whole call, since a
// stream may rightly last many minutes.
var defaultHTTP = func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = tlsHandshakeTimeout
	return &http.Client{Transport: t}
}()

// caller is what both clients share: the HTTP client and the retry policy.
// Its errors do not name the provider: the caller knows which endpoint it
// called and says so once.
type caller struct {
	http       *http.Client
	maxRetries int
	idle       time.Duration
}

func newCaller(c *http.Client, maxRetries int, idle time.Duration) caller {
	if c == nil {
		c = defaultHTTP
	}
	switch {
	case maxRetries == 0:
		maxRetries = defaultMaxRetries
	case maxRetries < 0:
		maxRetries = 0
	}
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	return caller{http: c, maxRetries: maxRetries, idle: idle}
}

// decodeFunc reads one successful response's stream into a, returning nil
// only once the wire's end marker arrived.
type decodeFunc func(s *sseReader, a *assembly) error

// stream makes the call, retrying while nothing has been emitted yet, and
// after that only a stall: a provider silent for the idle timeout mid-answer
// would otherwise end the turn over a hiccup the next attempt likely does
// not have. Such a retry is marked Restart, so the caller voids what the
// cut attempt emitted. newReq builds a fresh request for each attempt.
func (c caller) stream(ctx context.Context, newReq func(context.Context) (*http.Request, error), decode decodeFunc, emit func(Event)) (Response, error) {
	for attempt := 1; ; attempt++ {
		a := &assembly{emit: emit}
		after, err := c.attempt(ctx, newReq, decode, a)
		if err == nil {
			return a.finish(), nil
		}
		if ctx.Err() != nil {
			return a.finish(), ctx.Err()
		}
		restart := a.emitted && errors.Is(err, ErrStalled)
		retry := err.Retryable && (!a.emitted || restart)
		switch {
		case !retry:
		case after > maxRetryAfter:
			err.Message += fmt.Sprintf(" (it asks to wait %v before trying again)", after.Round(time.Second))
			retry = false
		case attempt > c.maxRetries:
			if c.maxRetries > 0 {
				err.Message += fmt.Sprintf(" (gave up after %d retries)", c.maxRetries)
			}
			retry = false
		}
		if !retry {
			return a.finish(), err
		}
		wait := after
		if wait <= 0 {
			wait = backoff(attempt)
		}
		emit(Event{Kind: Retrying, Retry: &RetryInfo{Attempt: attempt, Wait: wait, Reason: err.Message, Restart: restart}})
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return Response{}, ctx.Err()
		}
	}
}

// backoff is the wait before retry n (from 1) when the provider named none:
// doubling, capped, with jitter so that many clients do not retry in step.
func backoff(n int) time.Duration {
	d := min(firstBackoff<<(n-1), maxBackoff)
	return d - time.Duration(rand.Int64N(int64(d)/4))
}

// attempt is one HTTP exchange. It returns the provider's retry-after (0
// when it named none) and the failure, if any.
//
// A watchdog cuts the exchange once the provider sent nothing for the idle
// timeout: from the request on to the headers, and during each read of the
// body. It is reported as a dropped connection, retried on the same terms.
func (c caller) attempt(ctx context.Context, newReq func(context.Context) (*http.Request, error), decode decodeFunc, a *assembly) (time.Duration, *Error) {
	ctx, cut := context.WithCancelCause(ctx)
	defer cut(nil)
	watchdog := time.AfterFunc(c.idle, func() { cut(ErrStalled) })
	defer watchdog.Stop()
	stalled := func() *Error {
		return &Error{Message: fmt.Sprintf("the provider sent nothing for %v", c.idle), Retryable: true, Cause: ErrStalled}
	}
	req, err := newReq(ctx)
	if err != nil {
		return 0, &Error{Message: err.Error()}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if context.Cause(ctx) == ErrStalled {
			return 0, stalled()
		}
		// Nothing arrived, so the request can be sent again as it was.
		return 0, &Error{Message: fmt.Sprintf("cannot reach %s: %v", req.URL.Host, unwrapURLError(err)), Retryable: true}
	}
	defer resp.Body.Close()
	watchdog.Stop()
	resp.Body = &fed{ReadCloser: resp.Body, watchdog: watchdog, idle: c.idle}
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return retryAfter(resp.Header, time.Now()), &Error{
			Status:    resp.StatusCode,
			Message:   fmt.Sprintf("%d %s: %s", resp.StatusCode, http.StatusText(resp.StatusCode), errorMessage(body)),
			Retryable: retryableStatus(resp.StatusCode),
		}
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		// A server (or a proxy before it) that ignored stream: true, or
		// put an error behind a 200: the same body would come again.
		body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return 0, &Error{Message: "a JSON answer instead of a stream: " + errorMessage(body)}
	}
	err = decode(&sseReader{ctx: ctx, r: bufio.NewReader(resp.Body)}, a)
	switch e, ok := errors.AsType[*Error](err); {
	case err == nil:
		return 0, nil
	case ok:
		return 0, e
	case context.Cause(ctx) == ErrStalled:
		return 0, stalled()
	}
	return 0, &Error{Message: fmt.Sprintf("the stream was cut before the response ended: %v", err), Retryable: true}
}

// fed is a response body whose watchdog runs only while a read waits for
// the provider: the time tandem takes between reads (a client slow to take
// what is shown) is not the provider's silence.
type fed struct {
	io.ReadCloser
	watchdog *time.Timer
	idle     time.Duration
}

func (f *fed) Read(p []byte) (int, error) {
	f.watchdog.Reset(f.idle)
	defer f.watchdog.Stop()
	return f.ReadCloser.Read(p)
}

// unwrapURLError drops net/http's "Post URL:" prefix, which repeats what
// the message already says.
func unwrapURLError(err error) error {
	if u, ok := errors.AsType[*url.Error](err); ok {
		return u.Err
	}
	return err
}

func retryableStatus(s int) bool {
	return s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooManyRequests || s >= 500
}

// retryAfter reads retry-after-ms (milliseconds), then retry-after (seconds
// or an HTTP date), as of now.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// errorMessage finds the human part of an error body in the shapes servers
// use: {"error":{"message":…}} (Anthropic, OpenAI), {"error":"…"} (Ollama),
// {"message":…}; else the body itself, trimmed.
func errorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) == nil {
		var inner struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(v.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(v.Error, &s) == nil && s != "":
			return s
		case v.Message != "":
			return v.Message
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	if s == "" {
		s = "no message"
	}
	return s
}

// sseReader reads server-sent events: "event:" and "data:" lines up to a
// blank line. Comments (": ping") and other fields are skipped.
type sseReader struct {
	// ctx stops the reading even where events are already buffered, so
	// nothing is emitted after a cancel.
	ctx context.Context
	r   *bufio.Reader
	buf []byte // the line being read
}

// next returns the next event's type and data. A stream that ends inside an
// event, or before any, returns io.ErrUnexpectedEOF or io.EOF; an event
// over MaxEventBytes is an *Error (ErrEventTooLong), read no further.
func (s *sseReader) next() (event string, data []byte, err error) {
	if err := s.ctx.Err(); err != nil {
		return "", nil, err
	}
	var dataLines int
	for {
		line, err := s.line(MaxEventBytes - len(data))
		if err != nil {
			if err == io.EOF && (len(line) > 0 || dataLines > 0) {
				err = io.ErrUnexpectedEOF
			}
			return "", nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if dataLines == 0 && event == "" {
				continue
			}
			return event, data, nil
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			event = string(value)
		case "data":
			if dataLines++; dataLines > 1 {
				data = append(data, '\n')
			}
			data = append(data, value...)
		}
	}
}

// line reads one line, its end included, of at most budget bytes; the
// slice is reused by the next call.
func (s *sseReader) line(budget int) ([]byte, error) {
	s.buf = s.buf[:0]
	for {
		frag, err := s.r.ReadSlice('\n')
		if len(s.buf)+len(frag) > budget {
			return nil, &Error{Message: fmt.Sprintf("the provider sent a stream event over %d MiB; tandem reads no further", MaxEventBytes>>20), Cause: ErrEventTooLong}
		}
		if need := len(s.buf) + len(frag); need > cap(s.buf) {
			// Doubling, up to the budget: append's gentler growth of large
			// slices would allocate five times a long line on the way.
			grown := make([]byte, len(s.buf), min(max(2*cap(s.buf), need), budget))
			copy(grown, s.buf)
			s.buf = grown
		}
		s.buf = append(s.buf, frag...)
		if err != bufio.ErrBufferFull {
			return s.buf, err
		}
	}
}

// assembly builds the Response as the stream goes and emits its events.
type assembly struct {
	emit    func(Event)
	emitted bool
	resp    Response
	texts   [][]byte // each block's text, kept apart so appends stay cheap
}

func (a *assembly) send(e Event) {
	a.emitted = true
	a.emit(e)
}

// open starts a new block.
func (a *assembly) open(b Block) {
	a.resp.Message.Blocks = append(a.resp.Message.Blocks, b)
	a.texts = append(a.texts, []byte(b.Text))
}

// last is the block being streamed, nil before the first.
func (a *assembly) last() *Block {
	if n := len(a.resp.Message.Blocks); n > 0 {
		return &a.resp.Message.Blocks[n-1]
	}
	return nil
}

// text adds streamed text or thinking to the last block when it is of that
// kind, else to a new one, and emits it.
func (a *assembly) text(kind BlockKind, s string) {
	if s == "" {
		return
	}
	if l := a.last(); l == nil || l.Kind != kind {
		a.open(Block{Kind: kind})
	}
	n := len(a.texts) - 1
	a.texts[n] = append(a.texts[n], s...)
	ev := TextDelta
	if kind == Thinking {
		ev = ThinkingDelta
	}
	a.send(Event{Kind: ev, Text: s})
}

// call adds a complete tool call and emits it.
func (a *assembly) call(b Block) {
	a.open(b)
	c := b
	a.send(Event{Kind: ToolCall, Call: &c})
}

func (a *assembly) finish() Response {
	a.resp.Message.Role = Assistant
	for i, t := range a.texts {
		a.resp.Message.Blocks[i].Text = string(t)
	}
	return a.resp
}

// toolInput is a tool call's arguments as streamed: "{}" for none.
// Arguments that are not one JSON object give "{}" and why, so the call
// goes back to the model as failed instead of ending the response.
func toolInput(raw []byte) (input json.RawMessage, problem string) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return json.RawMessage("{}"), ""
	case json.Valid(raw) && raw[0] == '{':
		return json.RawMessage(bytes.Clone(raw)), ""
	}
	var v json.RawMessage
	problem = "they are JSON but not an object"
	if err := json.Unmarshal(raw, &v); err != nil {
		problem = err.Error()
	}
	excerpt := raw
	if len(excerpt) > 120 {
		cut := 120
		for cut > 0 && !utf8.RuneStart(raw[cut]) {
			cut--
		}
		excerpt = append(bytes.Clone(raw[:cut]), "…"...)
	}
	return json.RawMessage("{}"), fmt.Sprintf("%s; they began: %s", problem, excerpt)
}

// streamRequest makes the POST of a streaming call: body as JSON, asking
// for server-sent events, with a wire's own headers. Each attempt of a call
// gets a fresh request over the same bytes.
func streamRequest(url string, body any, headers map[string]string) (func(context.Context) (*http.Request, error), error) {
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (*http.Request, error) {
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "text/event-stream")
		for k, v := range headers {
			r.Header.Set(k, v)
		}
		return r, nil
	}, nil
}
