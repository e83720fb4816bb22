package lspserver

import (
	"bytes"
	"encoding/json"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// stringIDPrefix marks a string request id inside tandem. jsonrpc2.ID
// cannot tell the string "" from the number 0, so every string id the
// editor sends is held with this prefix, and written back without it: the
// editor gets its own id, exactly.
const stringIDPrefix = "s:"

// decodeID reads a request id: a 32-bit integer or any string.
func decodeID(raw json.RawMessage) (jsonrpc2.ID, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return jsonrpc2.NewStringID(stringIDPrefix + s), nil
	}
	var id jsonrpc2.ID
	err := json.Unmarshal(raw, &id)
	return id, err
}

// encodeID returns id as the editor sent it, without stringIDPrefix.
func encodeID(id jsonrpc2.ID) json.RawMessage {
	raw, _ := json.Marshal(&id)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw, _ = json.Marshal(strings.TrimPrefix(s, stringIDPrefix))
	}
	return raw
}

// withWireID takes data, a response as jsonrpc2 marshals it, and puts the
// response's id back as the editor sent it.
func withWireID(data []byte, id jsonrpc2.ID) ([]byte, error) {
	var reply map[string]json.RawMessage
	if err := json.Unmarshal(data, &reply); err != nil {
		return nil, err
	}
	reply["id"] = encodeID(id)
	return json.Marshal(reply)
}

// topLevelID finds the value of the top-level "id" key of a JSON object
// the decoder refused (nested too deep, or broken after the id), when that
// value is a plain string or number. It reads only what it must, keeping
// track of depth and strings, so no nesting can make it fail.
func topLevelID(body []byte) (json.RawMessage, bool) {
	if len(body) == 0 || body[0] != '{' {
		return nil, false
	}
	depth := 0
	for i := 0; i < len(body); i++ {
		switch c := body[i]; c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end := stringEnd(body, i)
			if end < 0 {
				return nil, false
			}
			key := body[i : end+1]
			i = end
			if depth != 1 {
				continue
			}
			j := skipSpace(body, end+1)
			if j >= len(body) || body[j] != ':' || string(key) != `"id"` {
				continue
			}
			v := skipSpace(body, j+1)
			if v < len(body) && body[v] == '"' {
				if e := stringEnd(body, v); e > 0 {
					return body[v : e+1], true
				}
				return nil, false
			}
			e := v
			for e < len(body) && bytes.IndexByte([]byte("-+.0123456789eE"), body[e]) >= 0 {
				e++
			}
			return body[v:e], e > v
		}
	}
	return nil, false
}

// stringEnd is the index of the quote closing the JSON string opening at i,
// or -1.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
