package lspserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// MaxMessage is the default cap on one incoming message's body. A larger
// message is skipped whole (so the stream stays in step) and answered with
// CodeMessageTooLarge.
const MaxMessage = 64 << 20

const contentLength = "Content-Length"

// overlong is what line returns for a header line too long to buffer. No
// real line can equal it, since line trims every line's ending.
const overlong = "\n"

// stream is the LSP framing (Content-Length headers) for jsonrpc2.Conn,
// tolerant where jsonrpc2's own stream is not: jsonrpc2 stops the connection
// at the first bad frame. Here a malformed header block, a body that is not
// JSON, JSON that is not a request and a body over the limit are each
// answered with a typed error, and reading goes on with the next frame.
// Only an I/O error or the end of input ends the stream.
type stream struct {
	in       *bufio.Reader
	out      io.Writer
	closer   io.Closer
	max      int64
	report   func(kind, detail string) // told of every bad input, for the log
	gone     func(error)               // told once when a write fails: the editor is gone
	goneOnce sync.Once
	resync   bool // skipping input until the next Content-Length header (reader only)

	mu sync.Mutex // serialises writes

	// awaiting is the ids of tandem's own requests the editor has not
	// answered yet. A response is passed on only for one of them, and only
	// once: jsonrpc2's connection blocks its read loop for good on a second
	// response to one call, and the editor would never be heard again.
	awaitMu  sync.Mutex
	awaiting map[jsonrpc2.ID]bool
}

func newStream(r io.Reader, w io.Writer, c io.Closer, max int64, report func(kind, detail string)) *stream {
	return &stream{in: bufio.NewReaderSize(r, 64<<10), out: w, closer: c, max: max, report: report, awaiting: map[jsonrpc2.ID]bool{}}
}

// errAnswered is returned for a frame that was already answered and
// skipped.
var errAnswered = errors.New("answered")

// badInput is bad input that the stream has answered and skipped.
type badInput struct {
	code jsonrpc2.Code
	kind string
	id   *jsonrpc2.ID
	msg  string
}

func (b *badInput) Error() string { return b.msg }

// Read returns the next well-formed message, answering bad ones on the way.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, err := s.frame()
		if err == nil {
			var msg jsonrpc2.Message
			if msg, err = decodeMessage(body); err == nil {
				if r, ok := msg.(*jsonrpc2.Response); ok && !s.answered(r.ID()) {
					s.report("unexpected response", fmt.Sprintf("a response to %v, which no request of tandem's awaits, was dropped", r.ID()))
					continue
				}
				return msg, int64(len(body)), nil
			}
		}
		if errors.Is(err, errAnswered) {
			continue
		}
		var bad *badInput
		if !errors.As(err, &bad) {
			return nil, 0, err
		}
		if err := s.skipped(bad); err != nil {
			return nil, 0, err
		}
	}
}

// skipped reports bad input to the log and answers it.
func (s *stream) skipped(bad *badInput) error {
	s.report(bad.kind, bad.msg)
	return s.writeError(bad)
}

// frame reads one header block and its body.
func (s *stream) frame() ([]byte, error) {
	length, seen := int64(-1), false
	var bad *badInput
	for {
		line, err := s.line()
		if err != nil {
			return nil, err
		}
		if i := strings.Index(line, contentLength+":"); i > 0 || (i == 0 && s.resync) {
			if !s.resync && strings.TrimSpace(line[:i]) != "" {
				// Stray bytes before a good frame: answer them, keep the frame.
				if err := s.skipped(malformed("%d bytes that are not a header came before a Content-Length header", i)); err != nil {
					return nil, err
				}
			}
			line, s.resync, length, bad = line[i:], false, -1, nil
		} else if s.resync {
			continue
		}
		if line == "" {
			if seen {
				break
			}
			continue // blank lines between messages are harmless
		}
		seen = true
		name, value, ok := strings.Cut(line, ":")
		switch {
		case line == overlong:
			bad = malformed("a header line is longer than %d bytes", s.in.Size())
		case !ok:
			bad = malformed("the header line %q has no colon", clip(line))
		case strings.EqualFold(strings.TrimSpace(name), contentLength):
			n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				bad = malformed("the Content-Length %q is not a byte count", clip(value))
				continue
			}
			length = n
		}
	}
	switch {
	case bad != nil:
		if length < 0 || length > s.max {
			s.resync = true // a broken header block's length is no guide
			return nil, bad
		}
		if _, err := io.CopyN(io.Discard, s.in, length); err != nil {
			return nil, err
		}
		return nil, bad
	case length < 0:
		s.resync = true
		return nil, malformed("the header block has no Content-Length")
	case length > s.max:
		// Answered at once, before the body is skipped: the client may be
		// waiting for a reply rather than sending the rest.
		if err := s.skipped(&badInput{code: CodeMessageTooLarge, kind: KindTooLarge, msg: fmt.Sprintf(
			"The message of %d bytes is over the limit of %d bytes and was skipped. Send a smaller message; tandem reads files from disk by path.",
			length, s.max)}); err != nil {
			return nil, err
		}
		if _, err := io.CopyN(io.Discard, s.in, length); err != nil {
			return nil, err
		}
		return nil, errAnswered
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(s.in, body); err != nil {
		return nil, err
	}
	return body, nil
}

// line reads one header line without its ending. A line longer than the
// read buffer is malformed input, skipped to its end.
func (s *stream) line() (string, error) {
	b, err := s.in.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = s.in.ReadSlice('\n')
		}
		if err != nil {
			return "", err
		}
		return overlong, nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}

func malformed(format string, args ...any) *badInput {
	return &badInput{code: jsonrpc2.ParseError, kind: KindMalformedFrame, msg: fmt.Sprintf(
		"Malformed LSP frame: "+format+"; the input up to the next Content-Length header was skipped. Frame each message as \"Content-Length: N\\r\\n\\r\\n\" followed by N bytes of JSON.", args...)}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// decodeMessage decodes a JSON-RPC 2.0 message, telling apart a body that is
// not JSON from JSON that is not a message (whose id, if any, is kept so
// the error reaches the right caller). One decode of the envelope; params
// and results stay raw for their handlers.
func decodeMessage(body []byte) (jsonrpc2.Message, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' && json.Valid(trimmed) {
		return nil, &badInput{code: jsonrpc2.InvalidRequest, kind: KindInvalidRequest,
			msg: "Batches are not supported and were skipped. Send each JSON-RPC request in its own frame."}
	}
	var env struct {
		JSONRPC any             `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   *jsonrpc2.Error `json:"error"`
	}
	err := json.Unmarshal(trimmed, &env)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) || (err != nil && !json.Valid(trimmed)) {
		bad := &badInput{code: jsonrpc2.ParseError, kind: KindBadJSON, msg: fmt.Sprintf(
			"The message body is not valid JSON (%v) and was skipped. Send one JSON-RPC 2.0 object per frame.", err)}
		// A body too deep for the decoder may still name its id plainly:
		// answering that id lets the caller see which request failed.
		if raw, ok := topLevelID(trimmed); ok {
			if id, err := decodeID(raw); err == nil {
				bad.id = &id
			}
		}
		return nil, bad
	}
	var (
		id     jsonrpc2.ID
		hasID  = len(env.ID) > 0 && string(env.ID) != "null"
		idErr  error
		method string
	)
	if hasID {
		id, idErr = decodeID(env.ID)
	}
	methodErr := json.Unmarshal(env.Method, &method)
	switch {
	case err != nil:
		err = fmt.Errorf("it is not an object of the right shape: %v", err)
	case env.JSONRPC != "2.0":
		err = errors.New(`"jsonrpc" is not "2.0"`)
	case idErr != nil:
		err = errors.New(`"id" is neither a 32-bit integer nor a string`)
		hasID = false
	case env.Method != nil && (methodErr != nil || method == ""):
		err = errors.New(`"method" is not a non-empty string`)
	case env.Method == nil && (!hasID || (env.Result == nil && env.Error == nil)):
		err = errors.New(`it has no "method"`)
	case env.Method == nil && env.Error != nil:
		return jsonrpc2.NewResponse(id, nil, env.Error)
	case env.Method == nil:
		return jsonrpc2.NewResponse(id, env.Result, nil)
	case hasID:
		return jsonrpc2.NewCall(id, method, env.Params)
	default:
		return jsonrpc2.NewNotification(method, env.Params)
	}
	bad := &badInput{code: jsonrpc2.InvalidRequest, kind: KindInvalidRequest, msg: fmt.Sprintf(
		"The message is not a JSON-RPC 2.0 request or response (%v). Send an object with \"jsonrpc\": \"2.0\", a \"method\", and an integer or string \"id\" for a request.", err)}
	if hasID {
		bad.id = &id
	}
	return nil, bad
}

// answered takes id off the requests awaiting an answer; false when no
// request awaited it (an unknown id, or a second answer).
func (s *stream) answered(id jsonrpc2.ID) bool {
	s.awaitMu.Lock()
	defer s.awaitMu.Unlock()
	ok := s.awaiting[id]
	delete(s.awaiting, id)
	return ok
}

// forget stops awaiting an answer to id: its caller gave up on it.
func (s *stream) forget(id jsonrpc2.ID) {
	s.awaitMu.Lock()
	defer s.awaitMu.Unlock()
	delete(s.awaiting, id)
}

// Write sends one message.
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if call, ok := msg.(*jsonrpc2.Call); ok {
		s.awaitMu.Lock()
		s.awaiting[call.ID()] = true
		s.awaitMu.Unlock()
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, fmt.Errorf("marshaling message: %w", err)
	}
	if r, ok := msg.(*jsonrpc2.Response); ok {
		if data, err = withWireID(data, r.ID()); err != nil {
			return 0, err
		}
	}
	return s.send(data)
}

func (s *stream) writeError(bad *badInput) error {
	e := rpcError(bad.code, bad.kind, "%s", bad.msg)
	id := json.RawMessage("null")
	if bad.id != nil {
		id = encodeID(*bad.id)
	}
	reply := struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *jsonrpc2.Error `json:"error"`
	}{"2.0", id, e}
	data, err := json.Marshal(reply)
	if err != nil {
		return err
	}
	_, err = s.send(data)
	return err
}

func (s *stream) send(data []byte) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := fmt.Fprintf(s.out, "%s: %d\r\n\r\n", contentLength, len(data))
	m := 0
	if err == nil {
		m, err = s.out.Write(data)
	}
	if err != nil && s.gone != nil {
		s.goneOnce.Do(func() { s.gone(err) })
	}
	return int64(n + m), err
}

// Close closes the underlying connection.
func (s *stream) Close() error { return s.closer.Close() }
