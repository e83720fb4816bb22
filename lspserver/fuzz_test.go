package lspserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// claimedLength finds the Content-Length values in a fuzz input.
var claimedLength = regexp.MustCompile(`(?i)content-length\s*:\s*(\d+)`)

// FuzzServerKeepsServing sends an initialized server one request or
// notification of any method with any params, then any bytes, then a valid
// request: whatever came before, that request is answered. Only `exit`
// (which ends the connection, as it must) is left out.
func FuzzServerKeepsServing(f *testing.F) {
	for _, seed := range []struct {
		method string
		params string
		id     string
		raw    string
	}{
		{"textDocument/didChange", `{"textDocument":{"uri":"file:///a","version":"4"},"contentChanges":[{"text":"x"}]}`, "", ""},
		{"textDocument/didOpen", `{"textDocument":{"uri":"file:///tmp/a","version":1,"text":"abc"}}`, "", `{"jsonrpc":"2.0","id":1,"result":[{}]}`},
		{"initialized", `{}`, "7", ""},
		{"$/cancelRequest", `{"id":""}`, `""`, ""},
		{"tandem/callTool", `{"session":5,"name":"read"}`, `"x"`, "Content-Length: 3\r\n\r\n{}}"},
		{"tandem/openSession", `{"roots":["relative"]}`, "1", "garbage\r\n\r\n"},
		{"workspace/didChangeConfiguration", `{"settings":{"tandem":{"shell":{"autoEffects":["secret"]}}}}`, "", ""},
		{"shutdown", `null`, "9", ""},
		{"tandem/answerApproval", `{"id":"q","answer":"allow_once"}`, "3", `{"jsonrpc":"2.0","id":424242,"result":null}`},
	} {
		f.Add(seed.method, []byte(seed.params), seed.id, []byte(seed.raw))
	}
	f.Fuzz(func(t *testing.T, method string, params []byte, id string, raw []byte) {
		if method == "exit" || bytes.Contains(raw, []byte("exit")) {
			t.Skip() // exit ends the connection: nothing is answered after it, by design
		}
		for _, m := range claimedLength.FindAllSubmatch(raw, -1) {
			if n, err := strconv.Atoi(string(m[1])); err != nil || n > 512 {
				t.Skip() // a frame that long swallows the probes; the framing's own fuzz covers it
			}
		}
		toServer, serverIn := io.Pipe()
		serverOut, fromServer := io.Pipe()
		done := make(chan int, 1)
		go func() {
			done <- Serve(context.Background(), toServer, fromServer, Options{Cwd: t.TempDir(), MaxMessage: 1 << 16})
			_ = fromServer.Close()
		}()
		answers := make(chan []byte, 64)
		go func() {
			defer close(answers)
			r := bufio.NewReader(serverOut)
			for {
				body, err := readFrame(r)
				if err != nil {
					return
				}
				answers <- body
			}
		}()
		write := func(b []byte) {
			if _, err := serverIn.Write(b); err != nil {
				t.Fatalf("the server stopped reading: %v", err)
			}
		}
		write(frame([]byte(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"capabilities":{}}}`)))
		write(frame([]byte(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)))
		msg := map[string]any{"jsonrpc": "2.0", "method": method}
		if json.Valid(params) {
			msg["params"] = json.RawMessage(params)
		}
		if json.Valid([]byte(id)) {
			msg["id"] = json.RawMessage(id)
		}
		if body, err := json.Marshal(msg); err == nil {
			write(frame(body))
		}
		write(raw)
		write([]byte("\r\n"))
		// Repeated past any length the garbage may claim, so some copy is
		// read as a frame of its own.
		write(bytes.Repeat(frame([]byte(`{"jsonrpc":"2.0","id":"probe","method":"tandem/listTools","params":{}}`)), 8))
		deadline := time.After(20 * time.Second)
		for answered := false; !answered; {
			select {
			case body, ok := <-answers:
				if !ok {
					t.Fatalf("the server closed the connection before answering")
				}
				var m struct{ ID json.RawMessage }
				answered = json.Unmarshal(body, &m) == nil && string(m.ID) == `"probe"`
			case <-deadline:
				t.Fatalf("no answer to a valid request after method %q, params %q, id %q and %q", method, params, id, raw)
			}
		}
		_ = serverIn.Close()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("the server did not stop when its input ended")
		}
	})
}
