package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLaw_acp_outlives_bad_lines: `tandem acp` answers every line that is
// not one JSON-RPC message — not JSON, a batch, a scalar, a line over its
// limit — with the JSON-RPC error for it (id null when it cannot be read),
// keeps serving, and writes none of the line to its log.
func TestLaw_acp_outlives_bad_lines(t *testing.T) {
	xdg := t.TempDir()
	cmd := exec.Command(builtTandem(t), "acp")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(xdg, "state"), "XDG_CONFIG_HOME="+filepath.Join(xdg, "config"))
	in, out := startPiped(t, cmd)
	replies := bufio.NewScanner(out)
	replies.Buffer(nil, 1<<20)
	type reply struct {
		ID     any             `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	next := func() reply {
		t.Helper()
		if !replies.Scan() {
			t.Fatalf("tandem acp stopped answering: %v", replies.Err())
		}
		var r reply
		if err := json.Unmarshal(replies.Bytes(), &r); err != nil {
			t.Fatalf("a reply is not JSON: %q", replies.Bytes())
		}
		return r
	}
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(in, line+"\n"); err != nil {
			t.Fatalf("tandem acp no longer reads: %v", err)
		}
	}
	const marker = "PAYLOAD-MARKER-7f3a"
	huge := strings.Repeat(marker, (11<<20)/len(marker))
	for _, c := range []struct {
		line string
		code int
		id   any
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"` + marker, -32700, nil},
		{`[{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":1}}]`, -32600, nil},
		{`"` + marker + `"`, -32600, nil},
		{`{"id":3,"method":"initialize","params":{"protocolVersion":1}}`, -32600, 3.0},
		{`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"` + huge + `"}]}}`, -32600, 4.0},
	} {
		// A request after each line: a line left unanswered shows as
		// that request's reply coming first.
		send(c.line)
		send(`{"jsonrpc":"2.0","id":"after","method":"no/such/method"}`)
		r := next()
		if r.Error == nil || r.Error.Code != c.code || r.ID != c.id {
			t.Errorf("%.80s… was answered %+v; want error %d with id %v", c.line, r, c.code, c.id)
		}
		if r.Error != nil && strings.Contains(r.Error.Message, marker) {
			t.Errorf("the answer quotes the line: %.200s", r.Error.Message)
		}
		if r.ID != "after" {
			if r := next(); r.ID != "after" {
				t.Fatalf("the request after %.80s… was answered %+v", c.line, r)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":1}}`)
	if r := next(); r.ID != 6.0 || r.Error != nil || !strings.Contains(string(r.Result), `"protocolVersion":1`) {
		t.Fatalf("initialize after the bad lines: %+v %s", r, r.Result)
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("tandem acp ended with %v at the end of its input", err)
	}
	log, err := os.ReadFile(filepath.Join(xdg, "state", "tandem", "acp.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), marker) {
		t.Errorf("acp.log holds what the client sent:\n%.500s", log)
	}
}
