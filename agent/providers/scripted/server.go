package scripted

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server is a running scripted provider.
type Server struct {
	script Script
	ln     net.Listener
	srv    *http.Server

	mu       sync.Mutex
	requests []Request
	streamed int // the requests answered from the script so far
}

// Request is one request the server received.
type Request struct {
	Path   string
	Header http.Header
	Body   json.RawMessage
}

// Start serves the script on a free port of 127.0.0.1 until Close.
func Start(s Script) (*Server, error) {
	return Listen(s, "127.0.0.1:0")
}

// Listen serves the script at addr until Close: a fixed address stands in
// for a server found where it usually runs (Ollama's 127.0.0.1:11434).
func Listen(s Script, addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("scripted: %w", err)
	}
	return Serve(s, ln)
}

// Serve serves the script on ln until Close. A test of the clients' timing
// gives it an in-memory listener, so that server and client run in a
// synctest bubble, where a real socket would keep the fake clock still.
func Serve(s Script, ln net.Listener) (*Server, error) {
	if err := s.check(); err != nil {
		ln.Close()
		return nil, err
	}
	sv := &Server{script: s, ln: ln}
	sv.srv = &http.Server{Handler: http.HandlerFunc(sv.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = sv.srv.Serve(ln) }() // ends with ErrServerClosed at Close
	return sv, nil
}

// wire is how a format is served.
type wire struct {
	base   string // what URL appends to the host
	path   string // the end of the path a request must POST to
	events func(r Response, model string, n int) []event
	fail   func(status int, msg string) any // an HTTP error's body
	// lists are the GET paths listing the script's models, each with
	// its body; none where the format's clients list no models.
	lists map[string]func(ids []string) any
}

var wires = map[Format]wire{
	Anthropic: {path: "/v1/messages", events: anthropicEvents, fail: func(status int, msg string) any {
		return map[string]any{"type": "error", "error": map[string]string{"type": anthropicErrorType(status), "message": msg}}
	}, lists: map[string]func([]string) any{"/v1/models": anthropicModels}},
	// Chat Completions is also what Ollama serves: its own listing, which
	// editors probe to find it running, lets a script stand in for it.
	OpenAIChat:      {base: "/v1", path: "/chat/completions", events: openAIEvents, fail: openAIError, lists: map[string]func([]string) any{"/v1/models": openAIModels, "/api/tags": ollamaTags}},
	OpenAIResponses: {base: "/v1", path: "/responses", events: responsesEvents, fail: openAIError, lists: map[string]func([]string) any{"/v1/models": openAIModels}},
	Gemini: {path: ":streamGenerateContent", events: geminiEvents, fail: func(status int, msg string) any {
		return map[string]any{"error": map[string]any{"code": status, "message": msg, "status": geminiStatus(status)}}
	}},
}

// anthropicModels is Anthropic's GET /v1/models, all on one page.
func anthropicModels(ids []string) any {
	data := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		data = append(data, map[string]any{"type": "model", "id": id, "display_name": "Scripted " + id, "created_at": "2026-01-01T00:00:00Z"})
	}
	page := map[string]any{"data": data, "has_more": false, "first_id": nil, "last_id": nil}
	if len(ids) > 0 {
		page["first_id"], page["last_id"] = ids[0], ids[len(ids)-1]
	}
	return page
}

// openAIModels is OpenAI's GET /v1/models.
func openAIModels(ids []string) any {
	data := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "scripted"})
	}
	return map[string]any{"object": "list", "data": data}
}

// ollamaTags is Ollama's GET /api/tags: the models pulled on this machine.
func ollamaTags(ids []string) any {
	models := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		digest := sha256.Sum256([]byte(id))
		models = append(models, map[string]any{
			"name": id, "model": id, "modified_at": "2026-01-01T00:00:00Z", "size": 4683087332, "digest": hex.EncodeToString(digest[:]),
			"details": map[string]any{"parent_model": "", "format": "gguf", "family": "qwen2", "families": []string{"qwen2"},
				"parameter_size": "7.6B", "quantization_level": "Q4_K_M"},
		})
	}
	return map[string]any{"models": models}
}

func openAIError(_ int, msg string) any {
	return map[string]any{"error": map[string]any{"message": msg, "type": "server_error", "code": nil}}
}

// URL is the base URL a client is given: the host for Anthropic (which
// appends /v1/messages) and Gemini (/v1beta/models/…), the host and /v1 for
// OpenAI's (which append /chat/completions or /responses).
func (s *Server) URL() string {
	return "http://" + s.ln.Addr().String() + wires[s.script.Format].base
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Close stops the server and drops open connections.
func (s *Server) Close() error {
	return s.srv.Close()
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	wire := wires[s.script.Format]
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	list := wire.lists[r.URL.Path]
	listing := r.Method == http.MethodGet && list != nil
	refused := s.script.Key != "" && !carriesKey(r.Header, s.script.Key)
	n := s.streamed
	if !listing && !refused {
		s.streamed++
	}
	s.mu.Unlock()
	if refused {
		s.fail(w, http.StatusUnauthorized, "scripted: invalid API key")
		return
	}
	if listing { // a listing takes no response of the script
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(list(s.script.Models))
		return
	}
	want := wire.path
	switch {
	case r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, want):
		s.fail(w, http.StatusNotFound, fmt.Sprintf("this server answers POST …%s", want))
		return
	case n >= len(s.script.Responses):
		s.fail(w, http.StatusBadRequest, fmt.Sprintf("the script has no response for request %d", n+1))
		return
	}
	resp := s.script.Responses[n]
	if resp.Status != 0 && resp.Status != http.StatusOK {
		if resp.RetryAfter != "" {
			w.Header().Set("Retry-After", resp.RetryAfter)
		}
		if resp.RetryAfterMs > 0 {
			w.Header().Set("Retry-After-Ms", strconv.Itoa(resp.RetryAfterMs))
		}
		s.fail(w, resp.Status, "scripted "+http.StatusText(resp.Status))
		return
	}
	if resp.StallHeaders {
		<-r.Context().Done()
		return
	}
	var req struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &req)
	if s.script.Format == Gemini { // the model is in the path: …/models/MODEL:streamGenerateContent
		req.Model = strings.TrimSuffix(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], want)
	}
	play(w, r, wire.events(resp, req.Model, n), resp.Faults)
}

// carriesKey is whether h carries key as one of the wires' clients send it.
func carriesKey(h http.Header, key string) bool {
	return h.Get("X-Api-Key") == key || h.Get("X-Goog-Api-Key") == key || h.Get("Authorization") == "Bearer "+key
}

// fail answers with an error body in the wire's shape.
func (s *Server) fail(w http.ResponseWriter, status int, msg string) {
	body := wires[s.script.Format].fail(status, msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func anthropicErrorType(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

// geminiStatus is Google's status word for an HTTP status.
func geminiStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "INVALID_ARGUMENT"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	}
	return "INTERNAL"
}

// event is one SSE event: a named event, a data line, or a comment.
type event struct {
	name    string // the event: line (Anthropic's and Responses' events have one); "" for none
	data    any    // marshalled as the data: line; a string is sent as it is
	comment string // a ": comment" line instead of data
}

// play streams the events with the faults applied. A cut aborts the
// connection without the chunked stream's end, as a dropped connection
// looks to a client.
func play(w http.ResponseWriter, r *http.Request, events []event, f Faults) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	if fl != nil {
		fl.Flush() // the headers go now, as a provider sends them before its first event
	}
	if f.LongLine > 0 && !longLine(w, f.LongLine) {
		return
	}
	for i, e := range events {
		if f.StallAfter != nil && i == *f.StallAfter {
			<-r.Context().Done()
			return
		}
		if i > 0 && f.DelayMs > 0 {
			select {
			case <-time.After(time.Duration(f.DelayMs) * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
		if f.CutAfter > 0 && i == f.CutAfter {
			panic(http.ErrAbortHandler)
		}
		var b strings.Builder
		switch {
		case e.comment != "":
			b.WriteString(": " + e.comment + "\n\n")
		default:
			if e.name != "" {
				b.WriteString("event: " + e.name + "\n")
			}
			data, ok := e.data.(string)
			if !ok {
				j, _ := json.Marshal(e.data)
				data = string(j)
			}
			b.WriteString("data: " + data + "\n\n")
		}
		if _, err := io.WriteString(w, b.String()); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
	}
	if f.StallAfter != nil && *f.StallAfter >= len(events) {
		<-r.Context().Done()
	}
}

// longLine writes a data line of n bytes and its end, and reports whether
// the client took it all.
func longLine(w http.ResponseWriter, n int) bool {
	chunk := []byte("data: " + strings.Repeat("x", 64<<10))
	for n > 0 {
		c := chunk[:min(n, len(chunk))]
		if _, err := w.Write(c); err != nil {
			return false
		}
		n -= len(c)
	}
	_, err := io.WriteString(w, "\n\n")
	return err == nil
}
