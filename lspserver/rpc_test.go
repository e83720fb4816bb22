package lspserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// rpc is a hand-framed JSON-RPC client, as an editor speaks it: it writes
// frames, reads every message the server sends, routes responses to their
// callers, answers the server's own requests and keeps its notifications.
type rpc struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader

	mu       sync.Mutex
	pending  map[string]chan msg // by id JSON
	notes    []msg
	asked    []msg // the server's own requests, answered or not
	orphans  []msg // responses with id null
	changed  chan struct{}
	answer   func(method string, params json.RawMessage) any // answers server→client requests
	readDone chan struct{}
	nextID   int
}

type msg struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcErr         `json:"error,omitempty"`
}

type rpcErr struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Code string `json:"code"`
	} `json:"data"`
}

// noReply, returned by an answer function, leaves the server's request
// unanswered, as an editor's prompt the user has not answered yet.
type noReply struct{}

func newRPC(t *testing.T, toServer io.WriteCloser, fromServer io.Reader) *rpc {
	c := &rpc{t: t, in: toServer, out: bufio.NewReader(fromServer), pending: map[string]chan msg{},
		changed: make(chan struct{}, 1), readDone: make(chan struct{}), nextID: 100}
	go c.read()
	return c
}

func (c *rpc) read() {
	defer close(c.readDone)
	for {
		body, err := readFrame(c.out)
		if err != nil {
			return
		}
		var m msg
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("server sent invalid JSON %q: %v", body, err)
			return
		}
		switch {
		case m.Method != "" && m.ID != nil:
			var result any
			c.mu.Lock()
			answer := c.answer
			c.asked = append(c.asked, m)
			c.mu.Unlock()
			if answer != nil {
				result = answer(m.Method, m.Params)
			}
			if _, open := result.(noReply); !open {
				c.send(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
			}
		case m.Method != "":
			c.mu.Lock()
			c.notes = append(c.notes, m)
			c.mu.Unlock()
		default:
			c.mu.Lock()
			ch := c.pending[string(m.ID)]
			delete(c.pending, string(m.ID))
			if ch == nil {
				c.orphans = append(c.orphans, m)
			}
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
		select {
		case c.changed <- struct{}{}:
		default:
		}
	}
}

func readFrame(r *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
			if n, err = strconv.Atoi(v); err != nil {
				return nil, err
			}
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("frame without Content-Length")
	}
	body := make([]byte, n)
	_, err := io.ReadFull(r, body)
	return body, err
}

func frame(body []byte) []byte {
	return append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...)
}

func (c *rpc) raw(b []byte) {
	c.t.Helper()
	if _, err := c.in.Write(b); err != nil {
		c.t.Fatalf("writing to the server: %v", err)
	}
}

func (c *rpc) send(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.raw(frame(b))
}

func (c *rpc) notify(method string, params any) {
	c.t.Helper()
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// start sends a request with the given id (a number or a string) and
// returns the channel its response arrives on.
func (c *rpc) start(id any, method string, params any) chan msg {
	c.t.Helper()
	idJSON, _ := json.Marshal(id)
	ch := make(chan msg, 1)
	c.mu.Lock()
	c.pending[string(idJSON)] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	return ch
}

func (c *rpc) wait(ch chan msg, what string) msg {
	c.t.Helper()
	select {
	case m := <-ch:
		return m
	case <-time.After(30 * time.Second):
		c.t.Fatalf("no response to %s within 30s", what)
	}
	return msg{}
}

// call sends a request with a fresh numeric id and waits for its response.
func (c *rpc) call(method string, params any) msg {
	c.t.Helper()
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	return c.wait(c.start(id, method, params), method)
}

// ok calls and fails the test on an error response; result goes into out.
func (c *rpc) ok(method string, params any, out any) {
	c.t.Helper()
	m := c.call(method, params)
	if m.Error != nil {
		c.t.Fatalf("%s: error %d %s: %s", method, m.Error.Code, m.Error.Data.Code, m.Error.Message)
	}
	if out != nil {
		if err := json.Unmarshal(m.Result, out); err != nil {
			c.t.Fatalf("%s: result %s: %v", method, m.Result, err)
		}
	}
}

// waitFor waits until a server notification or orphan response satisfies f.
func (c *rpc) waitFor(what string, f func(notes, orphans []msg) bool) {
	c.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		c.mu.Lock()
		done := f(c.notes, c.orphans)
		c.mu.Unlock()
		if done {
			return
		}
		select {
		case <-c.changed:
		case <-deadline:
			c.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// takeOrphans returns and forgets the id-less error responses so far.
func (c *rpc) takeOrphans() []msg {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.orphans
	c.orphans = nil
	return o
}

func (c *rpc) onRequest(f func(method string, params json.RawMessage) any) {
	c.mu.Lock()
	c.answer = f
	c.mu.Unlock()
}

// toolText calls a tool and returns what the model would see.
func (c *rpc) tool(session, name string, args any) (string, bool) {
	c.t.Helper()
	var res struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	c.ok("tandem/callTool", map[string]any{"session": session, "name": name, "arguments": args}, &res)
	if len(res.Content) != 1 || res.Content[0].Type != "text" {
		c.t.Fatalf("callTool %s: content %+v is not one text item", name, res.Content)
	}
	return res.Content[0].Text, res.IsError
}
