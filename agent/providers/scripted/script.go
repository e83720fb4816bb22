// Package scripted is a model provider that replays a script: a real HTTP
// server on 127.0.0.1 answering each request with the next scripted
// response, streamed in the Anthropic Messages or the OpenAI Chat
// Completions wire format. Tests drive the agent with it, and `tandem demo`
// ships it, so that both run without a model or a key. It can also play
// the faults real servers show (rate limits, overload, cut streams, the
// quirks of OpenAI-compatible servers), so the clients are tested against
// them.
//
// It also serves the formats other agents' CLIs speak, so that tests drive
// them offline through tandem's MCP tools: the OpenAI Responses API
// ("openai-responses", POST …/v1/responses, Codex's only wire for a custom
// provider) and the Gemini API ("gemini", POST
// …/v1beta/models/MODEL:streamGenerateContent?alt=sse, Gemini CLI's through
// GOOGLE_GEMINI_BASE_URL). tandem's own agent speaks neither.
//
// A script in JSON, as the demo embeds one:
//
//	{
//	  "format": "anthropic",                 // or "openai-chat", "openai-responses", "gemini"
//	  "models": ["m-1", "m-2"],              // what GET …/models lists (not for gemini)
//	  "key": "sk-1",                         // the key requests must carry, else 401
//	  "responses": [                         // one per request, in order
//	    {"status": 429, "retryAfter": "1"},  // an HTTP error instead of a stream
//	    {
//	      "parts": [
//	        {"thinking": "Let me look.", "signature": "sig"},
//	        {"redacted": "opaque data"},
//	        {"text": "I'll read "}, {"text": "the file."},
//	        {"ping": true},
//	        {"tool": {"name": "read", "input": {"path": "a.go"}}},
//	        {"tool": {"id": "toolu_2", "name": "grep", "input": {"pattern": "x"}}},
//	        {"tool": {"name": "read", "namespace": "mcp__tandem", "input": {"path": "b.go"}}}
//	      ],
//	      "stop": "tool_use",
//	      "usage": {"input": 10, "output": 20, "cacheRead": 5, "cacheCreate": 2},
//	      "delayMs": 10, "cutAfter": 0, "stallHeaders": false, "stallAfter": 2, "longLine": 0,
//	      "noIndex": false, "zeroIndex": false, "noId": false, "wholeArgs": false
//	    }
//	  ]
//	}
//
// Consecutive text parts stream as one text block, one chunk each;
// consecutive thinking parts as one thinking block, which a part with a
// signature ends. Each tool part is one tool call, its input streamed in a
// few pieces; tool parts in one response are parallel calls. "stop" is
// end_turn, tool_use, max_tokens, refusal, context_window or pause_turn,
// mapped to the wire's word (any other word is sent as it is); it defaults
// to tool_use when there are tool parts, else end_turn.
//
// In the Responses stream, text is a message item and thinking a reasoning
// item's summary (its signature the item's encrypted_content); each tool
// part is a function_call item, its arguments streamed in pieces, in the
// namespace tool the part names (Codex puts an MCP server's tools in one,
// mcp__SERVER, and refuses a call to them without it); max_tokens and
// refusal end the response as incomplete (max_output_tokens,
// content_filter). In the Gemini stream each part is a chunk of its own:
// thinking a thought part (its signature thoughtSignature), a tool part a
// whole functionCall with no id unless the script names one; the last
// chunk carries finishReason (STOP, MAX_TOKENS, SAFETY) and the usage.
// Both count cache writes as plain input (they have no count of their own)
// and leave redacted thinking out; a ping is an SSE comment.
package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/tandemdev/tandem/agent/providers"
)

// Format is a wire format.
type Format string

const (
	Anthropic  Format = "anthropic"   // Anthropic Messages, POST /v1/messages
	OpenAIChat Format = "openai-chat" // Chat Completions, POST /v1/chat/completions
	// The formats other agents' CLIs speak, served so that tests can drive
	// them offline; tandem's own agent speaks the two above.
	OpenAIResponses Format = "openai-responses" // OpenAI Responses, POST /v1/responses (Codex)
	Gemini          Format = "gemini"           // Gemini, POST /v1beta/models/MODEL:streamGenerateContent (Gemini CLI)
)

// Script is what a server answers: Responses[i] to the i-th request.
type Script struct {
	Format    Format     `json:"format"`
	Responses []Response `json:"responses"`
	// Models are the ids GET …/models lists (Anthropic and OpenAI
	// formats; Chat Completions also as Ollama's GET /api/tags), answered
	// at any time without taking a response.
	Models []string `json:"models,omitempty"`
	// Key, when set, is the key every request must carry (x-api-key,
	// x-goog-api-key or Authorization: Bearer); a request with another or
	// none is answered 401 in the wire's error shape, as a provider
	// refuses a wrong key, without taking a response.
	Key string `json:"key,omitempty"`
}

// Response is the answer to one request: an HTTP error when Status is set
// (other than 200), else a stream of Parts.
type Response struct {
	Status       int    `json:"status,omitempty"`
	RetryAfter   string `json:"retryAfter,omitempty"`   // the retry-after header, as sent: seconds or an HTTP date
	RetryAfterMs int    `json:"retryAfterMs,omitempty"` // the retry-after-ms header

	Parts []Part          `json:"parts,omitempty"`
	Stop  string          `json:"stop,omitempty"`
	Usage providers.Usage `json:"usage"`

	Faults
}

// Part is one piece of a streamed response; exactly one field is set (a
// Signature goes with Thinking).
type Part struct {
	Text      string    `json:"text,omitempty"`
	Thinking  string    `json:"thinking,omitempty"`
	Signature string    `json:"signature,omitempty"`
	Tool      *ToolCall `json:"tool,omitempty"`
	// Redacted is an encrypted thinking block's data (Anthropic only; the
	// other formats, which have none, leave it out).
	Redacted string `json:"redacted,omitempty"`
	// Ping is a keep-alive: Anthropic's ping event, an SSE comment in
	// Chat Completions.
	Ping bool `json:"ping,omitempty"`
	// Error is an error event of this type (e.g. "overloaded_error"); the
	// stream ends after it.
	Error string `json:"error,omitempty"`
}

// ToolCall is a call the scripted model makes. An empty ID is made up. An
// Input that is a JSON string is sent as the arguments' text as it is, to
// script malformed or truncated arguments.
type ToolCall struct {
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
	// Namespace is the namespace tool the function is in (OpenAI
	// Responses only), as Codex groups an MCP server's tools.
	Namespace string `json:"namespace,omitempty"`
}

// Faults are what real servers do to a stream that a client must survive.
type Faults struct {
	// CutAfter drops the connection after that many events, before the
	// stream's end.
	CutAfter int `json:"cutAfter,omitempty"`
	// DelayMs waits between events.
	DelayMs int `json:"delayMs,omitempty"`
	// StallHeaders sends nothing, not even the headers, and holds the
	// connection open until the client leaves: a provider that stalls.
	StallHeaders bool `json:"stallHeaders,omitempty"`
	// StallAfter, when set, sends the headers and that many events, then
	// nothing more, holding the connection open until the client leaves.
	StallAfter *int `json:"stallAfter,omitempty"`
	// LongLine sends, first, one data line of that many bytes: a server
	// or proxy streaming a line without end. The server stops writing
	// when the client stops reading.
	LongLine int `json:"longLine,omitempty"`
	// The quirks of OpenAI-compatible servers (Chat Completions only): tool
	// call deltas without an index, or all with index 0 (Ollama), without
	// an id, or with the whole arguments in the first delta.
	NoIndex   bool `json:"noIndex,omitempty"`
	ZeroIndex bool `json:"zeroIndex,omitempty"`
	NoID      bool `json:"noId,omitempty"`
	WholeArgs bool `json:"wholeArgs,omitempty"`
}

// Parse reads a script from JSON, refusing unknown fields so that a typo
// in a fault does not silently test nothing.
func Parse(data []byte) (Script, error) {
	var s Script
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return Script{}, fmt.Errorf("scripted: %w", err)
	}
	return s, s.check()
}

func (s Script) check() error {
	if _, ok := wires[s.Format]; !ok {
		return fmt.Errorf("scripted: format %q is none of %q, %q, %q, %q", s.Format, Anthropic, OpenAIChat, OpenAIResponses, Gemini)
	}
	for i, r := range s.Responses {
		for j, p := range r.Parts {
			n := 0
			for _, set := range []bool{p.Text != "", p.Thinking != "" || p.Signature != "", p.Tool != nil, p.Redacted != "", p.Ping, p.Error != ""} {
				if set {
					n++
				}
			}
			if n != 1 {
				return fmt.Errorf("scripted: response %d part %d must set exactly one of text, thinking, tool, redacted, ping, error", i, j)
			}
			if p.Tool != nil && len(p.Tool.Input) > 0 && !json.Valid(p.Tool.Input) {
				return fmt.Errorf("scripted: response %d part %d: the tool input is not JSON", i, j)
			}
			if p.Tool != nil && p.Tool.Namespace != "" && s.Format != OpenAIResponses {
				return fmt.Errorf("scripted: response %d part %d: a namespace is sent only in format %q", i, j, OpenAIResponses)
			}
		}
	}
	return nil
}

// stop is the response's stop reason in the neutral words.
func (r Response) stop() string {
	if r.Stop != "" {
		return r.Stop
	}
	for _, p := range r.Parts {
		if p.Tool != nil {
			return string(providers.StopToolUse)
		}
	}
	return string(providers.EndTurn)
}

// input is a tool call's arguments as streamed, compact: the pieces
// streamed are cut from it.
func (c ToolCall) input() string {
	if len(c.Input) == 0 {
		return "{}"
	}
	var raw string
	if json.Unmarshal(c.Input, &raw) == nil {
		return raw
	}
	var b bytes.Buffer
	if json.Compact(&b, c.Input) != nil {
		return string(c.Input)
	}
	return b.String()
}

// pieces cuts s into up to three chunks on character boundaries, as
// providers stream arguments.
func pieces(s string) []string {
	r := []rune(s)
	if len(r) < 3 {
		return []string{s}
	}
	a, b := len(r)/3, 2*len(r)/3
	return []string{string(r[:a]), string(r[a:b]), string(r[b:])}
}
