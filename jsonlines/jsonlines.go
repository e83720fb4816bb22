// Package jsonlines reads JSON-RPC 2.0 messages sent one per line, as the
// stdio transports of MCP and ACP carry them, and answers every line that
// is not one, then goes on reading: a parse error for what is not JSON, an
// invalid request for a batch, a scalar or an object that is not a JSON-RPC
// 2.0 message, and for a line over the limit an error naming the limit.
// The libraries tandem speaks those protocols with do otherwise — the
// go-sdk ends the session on such a line, losing every reply in flight;
// acp-go-sdk answers nothing (the client's request waits forever), logs
// the line whole and ends the connection on a line over 10 MiB — so
// tandem reads the lines itself and hands them only messages. No answer
// quotes the line: it may hold a file's contents.
package jsonlines

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// JSON-RPC 2.0's error codes for what is not a message.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
)

// Writer writes whole messages, one per Write, so that the answers a
// Reader writes and a library's own messages never interleave.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p, one message, whole.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// Answer writes an error response with id, or with the null id when id is
// nil: JSON-RPC 2.0 answers a message whose id cannot be known that way.
func (w *Writer) Answer(id json.RawMessage, code int, message string) {
	_, _ = w.Write(errorLine(id, code, message))
}

func errorLine(id json.RawMessage, code int, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, _ := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{Version: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, message}})
	return append(data, '\n')
}

// Reader reads messages from a stream of lines, answering through its
// Writer each line that is not one.
type Reader struct {
	br       *bufio.Reader
	out      *Writer
	max      int
	protocol string // named in the answers: "MCP", "ACP"
}

// NewReader reads r, answering on out; a line over max bytes is skipped.
func NewReader(r io.Reader, out *Writer, max int, protocol string) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), out: out, max: max, protocol: protocol}
}

// prefixKept is how much of a line over the limit is kept to find its id.
const prefixKept = 64 << 10

// Next returns the next line that holds one JSON-RPC 2.0 message, without
// its end. A line over the limit that answers a request of this side is
// returned as an error response to that request, so that the request fails
// at once rather than waiting for an answer that was dropped. At the end
// of the input Next returns the error that ended it (io.EOF).
func (r *Reader) Next() ([]byte, error) {
	for {
		line, tooLong, err := r.readLine()
		if tooLong {
			if answer := r.tooLong(line); answer != nil {
				return answer, nil
			}
		} else if line = bytes.TrimSpace(line); len(line) > 0 && r.judge(line) {
			return line, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// readLine reads one line without its end; of a line longer than max only
// the first prefixKept bytes are kept, and tooLong is set.
func (r *Reader) readLine() (line []byte, tooLong bool, err error) {
	for {
		part, err := r.br.ReadSlice('\n')
		switch {
		case !tooLong && len(line)+len(part) > r.max:
			tooLong = true
			line = append(line, part[:min(len(part), max(0, prefixKept-len(line)))]...)
		case !tooLong:
			line = append(line, part...)
		case len(line) < prefixKept:
			line = append(line, part[:min(len(part), prefixKept-len(line))]...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
		}
	}
}

// tooLong answers a line over the limit, of which prefix is the start:
// a request is answered to the client; a response (an answer to a request
// of this side) becomes an error response returned in its place.
func (r *Reader) tooLong(prefix []byte) []byte {
	id, isRequest, found := leadingID(prefix)
	message := fmt.Sprintf("the message is over %d MiB, tandem's limit for one %s message; it was skipped", r.max>>20, r.protocol)
	if found && !isRequest {
		return bytes.TrimSuffix(errorLine(id, CodeInvalidRequest, "The client's answer was not read: "+message+"."), []byte("\n"))
	}
	r.out.Answer(id, CodeInvalidRequest, "Invalid Request: "+message+". Send less in one message.")
	return nil
}

// leadingID finds the top-level "id" of a JSON object from the part of it
// at hand, and whether a "method" came first or its value is a request's;
// found is false when no usable id is in the prefix.
func leadingID(prefix []byte) (id json.RawMessage, isRequest, found bool) {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		switch key {
		case "method":
			isRequest = true
		case "id":
			if usableID(v) {
				id, found = v, true
			}
		}
	}
	return id, isRequest, found
}

// message is what judge looks at in a line.
type message struct {
	Version *string         `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// judge reports whether line is a JSON-RPC 2.0 message: a request or a
// notification (a method), or a response (an id and a result or an
// error). Anything else is answered.
func (r *Reader) judge(line []byte) bool {
	if !json.Valid(line) {
		r.out.Answer(nil, CodeParseError, fmt.Sprintf("Parse error: the line is not JSON; send one %s message per line", r.protocol))
		return false
	}
	switch line[0] {
	case '[':
		r.out.Answer(nil, CodeInvalidRequest, fmt.Sprintf("Invalid Request: %s takes no JSON-RPC batches; send each message on its own line", r.protocol))
		return false
	case '{':
	default:
		r.out.Answer(nil, CodeInvalidRequest, "Invalid Request: the line is JSON but not a JSON-RPC message object; send one object per line")
		return false
	}
	var m message
	_ = json.Unmarshal(line, &m) // valid JSON; fields of the wrong type stay nil
	id := m.ID
	if !usableID(id) {
		id = nil
	}
	switch {
	case m.Version == nil || *m.Version != "2.0":
		r.out.Answer(id, CodeInvalidRequest, `Invalid Request: the message lacks "jsonrpc": "2.0"; send JSON-RPC 2.0 messages`)
	case m.Method != nil && (m.ID == nil || id != nil):
		return true
	case m.Method == nil && id != nil && (m.Result != nil || m.Error != nil):
		return true
	case m.ID != nil && id == nil:
		r.out.Answer(nil, CodeInvalidRequest, "Invalid Request: the message's id is not a string or a number; send one of those")
	default:
		r.out.Answer(id, CodeInvalidRequest, "Invalid Request: the message has neither a method nor an id with a result or an error; send a request, a notification or a response")
	}
	return false
}

// usableID reports whether v is an id JSON-RPC allows: a string or a number.
func usableID(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))
}

// Stream is the messages of a Reader as a stream of lines, for a library
// that reads its input itself.
type Stream struct {
	r    *Reader
	rest []byte
}

func NewStream(r *Reader) *Stream { return &Stream{r: r} }

func (s *Stream) Read(p []byte) (int, error) {
	if len(s.rest) == 0 {
		line, err := s.r.Next()
		if err != nil {
			return 0, err
		}
		s.rest = append(line, '\n')
	}
	n := copy(p, s.rest)
	s.rest = s.rest[n:]
	return n, nil
}
