package lspserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

type nopCloser struct{}

func (nopCloser) Close() error { return nil }

// FuzzStreamReadsEverything feeds arbitrary bytes to the framing and then
// one good request: every answer the stream writes is a well-framed JSON-RPC
// error, the stream never fails before the input ends, and the good request
// after the garbage still arrives, unless the garbage claimed more than the
// limit with a Content-Length of its own (that many bytes are skipped).
func FuzzStreamReadsEverything(f *testing.F) {
	for _, seed := range []string{
		"", "garbage\r\n\r\n", "Content-Length: x\r\n\r\n", "Content-Length: 3\r\n\r\n{}}",
		"Content-Length: 2\r\n\r\n[]", "Content-Type: a\r\n\r\n{\"jsonrpc\":\"2.0\"}", "\r\n\r\n\r\n",
		"Content-Length: 14\r\n\r\n{\"jsonrpc\":1}", "xxContent-Length: 5\r\n\r\nhello",
		"Content-Length: 99999999999999999999\r\n\r\n",
	} {
		f.Add([]byte(seed))
	}
	good := frame([]byte(`{"jsonrpc":"2.0","id":"last","method":"m"}`))
	f.Fuzz(func(t *testing.T, garbage []byte) {
		if bytes.Contains(garbage, []byte("Content-Length")) && bytes.Contains(garbage, []byte(`"last"`)) {
			t.Skip() // the garbage could contain the good request itself
		}
		var out bytes.Buffer
		// The good request is repeated past the 1 KiB limit, so that a
		// Content-Length in the garbage can swallow only some copies.
		in := io.MultiReader(bytes.NewReader(garbage), strings.NewReader("\r\n"), bytes.NewReader(bytes.Repeat(good, 2+(1<<10)/len(good))))
		tooLarge := false
		s := newStream(in, &out, nopCloser{}, 1<<10, func(kind, _ string) { tooLarge = tooLarge || kind == KindTooLarge })
		seen := false
		for {
			msg, _, err := s.Read(context.Background())
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("the stream failed on input: %v", err)
				}
				break
			}
			if c, ok := msg.(interface{ Method() string }); ok && c.Method() == "m" {
				seen = true
			}
		}
		if !seen && !tooLarge {
			t.Fatalf("the request after %q never arrived", garbage)
		}
		r := bufio.NewReader(&out)
		for {
			body, err := readFrame(r)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("an answer is not framed: %v", err)
			}
			var m msg
			if err := json.Unmarshal(body, &m); err != nil || m.Error == nil || m.Error.Data.Code == "" {
				t.Fatalf("an answer is not a typed JSON-RPC error: %s", body)
			}
		}
	})
}
