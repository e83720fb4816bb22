package jsonlines

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

type answer struct {
	ID    any `json:"id"`
	Error struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func answers(t *testing.T, out *bytes.Buffer) []answer {
	t.Helper()
	var as []answer
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if line == "" {
			continue
		}
		var a answer
		if err := json.Unmarshal([]byte(line), &a); err != nil {
			t.Fatalf("an answer is not JSON: %q", line)
		}
		as = append(as, a)
	}
	return as
}

// Every line that is not one JSON-RPC 2.0 message is answered with the
// error for it — its id when it has a usable one, else null — and never
// quoted; the messages around it come through in order.
func TestEveryLineThatIsNotAMessageIsAnsweredAndReadingGoesOn(t *testing.T) {
	secret := "SECRET-LINE-TEXT"
	for _, c := range []struct {
		line string
		code int
		id   any
	}{
		{`{"jsonrpc":"2.0","id":3,"method":"x"` + secret, CodeParseError, nil},
		{`not json ` + secret, CodeParseError, nil},
		{`[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, CodeInvalidRequest, nil},
		{`"` + secret + `"`, CodeInvalidRequest, nil},
		{`42`, CodeInvalidRequest, nil},
		{`{"id":6,"method":"ping"}`, CodeInvalidRequest, 6.0},
		{`{"jsonrpc":"1.0","id":"a","method":"ping"}`, CodeInvalidRequest, "a"},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, CodeInvalidRequest, nil},
		{`{"jsonrpc":"2.0","id":7}`, CodeInvalidRequest, 7.0},
		{`{"jsonrpc":"2.0","params":{"text":"` + secret + `"}}`, CodeInvalidRequest, nil},
	} {
		var out bytes.Buffer
		in := `{"jsonrpc":"2.0","id":1,"method":"before"}` + "\n" + c.line + "\n\n" + `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
		r := NewReader(strings.NewReader(in), NewWriter(&out), 1<<20, "ACP")
		var got []string
		for {
			line, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(line))
		}
		if len(got) != 2 || !strings.Contains(got[0], "before") || !strings.Contains(got[1], `"result"`) {
			t.Errorf("%s: the messages around it came through as %q", c.line, got)
		}
		as := answers(t, &out)
		if len(as) != 1 || as[0].Error.Code != c.code || as[0].ID != c.id {
			t.Errorf("%s was answered %+v; want one error %d with id %v", c.line, as, c.code, c.id)
		}
		if strings.Contains(out.String(), secret) {
			t.Errorf("%s: the answer quotes the line: %s", c.line, out.String())
		}
	}
}

// A line over the limit is skipped without being held whole: a request is
// answered with its id when the id comes before the cut (else with null,
// as JSON-RPC answers a message whose id is unknown), and an answer to
// one of this side's requests fails that request at once, so nothing waits
// for a reply that was dropped.
func TestALineOverTheLimitIsSkippedAndItsRequestAnswered(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	in := `{"jsonrpc":"2.0","id":"req-1","method":"session/prompt","params":{"text":"` + big + `"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"n","params":{"text":"` + big + `"},"id":9}` + "\n" +
		`{"jsonrpc":"2.0","id":12,"result":{"content":"` + big + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":13,"method":"after"}` + "\n"
	var out bytes.Buffer
	r := NewReader(strings.NewReader(in), NewWriter(&out), 1<<20, "ACP")
	var got []string
	for {
		line, err := r.Next()
		if err != nil {
			break
		}
		got = append(got, string(line))
	}
	if len(got) != 2 || !strings.Contains(got[1], `"after"`) {
		t.Fatalf("got %d lines: %.200q", len(got), got)
	}
	var failed answer
	if err := json.Unmarshal([]byte(got[0]), &failed); err != nil || failed.ID != 12.0 || failed.Error.Code != CodeInvalidRequest || !strings.Contains(failed.Error.Message, "1 MiB") {
		t.Errorf("the too-large answer did not become an error for request 12: %.300s", got[0])
	}
	as := answers(t, &out)
	if len(as) != 2 || as[0].ID != "req-1" || as[1].ID != nil || !strings.Contains(as[0].Error.Message, "over 1 MiB") {
		t.Errorf("the too-large requests were answered %+v; want req-1, then null, with the limit named", as)
	}
	if strings.Contains(out.String(), "xxxx") {
		t.Error("an answer quotes the line")
	}
}

// A Stream hands a library the messages alone, one per line, in order.
func TestStreamCarriesOnlyMessages(t *testing.T) {
	var out bytes.Buffer
	in := "garbage\n" + `{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n[]\n" + `{"jsonrpc":"2.0","method":"b"}` + "\n"
	b, err := io.ReadAll(NewStream(NewReader(strings.NewReader(in), NewWriter(&out), 1<<20, "MCP")))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + `{"jsonrpc":"2.0","method":"b"}` + "\n"; string(b) != want {
		t.Errorf("the stream holds %q; want %q", b, want)
	}
	if n := len(answers(t, &out)); n != 2 {
		t.Errorf("%d answers; want 2", n)
	}
}
