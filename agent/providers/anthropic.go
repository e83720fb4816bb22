package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// AnthropicOptions configures an Anthropic Messages client.
type AnthropicOptions struct {
	URL    string // base URL without /v1; "" is https://api.anthropic.com
	APIKey string
	// HTTPClient nil is one bounding the connection and TLS handshake.
	HTTPClient *http.Client
	// MaxRetries is how often a failed call is tried again: 0 is 4, a
	// negative number is never.
	MaxRetries int
	// IdleTimeout is how long a call may receive nothing (no connection,
	// no headers, no byte of the stream) before it counts as dropped: 0
	// is DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxTokens is the output limit when a Request names none: 0 is 8192.
	// The Messages API requires one.
	MaxTokens int
}

// anthropicVersion is the API version the wire below is written against.
const anthropicVersion = "2023-06-01"

// NewAnthropic returns a Provider speaking Anthropic Messages with
// streaming.
func NewAnthropic(o AnthropicOptions) Provider {
	url := strings.TrimRight(o.URL, "/")
	if url == "" {
		url = "https://api.anthropic.com"
	}
	maxTokens := o.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 8192
	}
	return &anthropic{url: url, key: o.APIKey, maxTokens: maxTokens, caller: newCaller(o.HTTPClient, o.MaxRetries, o.IdleTimeout)}
}

type anthropic struct {
	url, key  string
	maxTokens int
	caller
}

func (p *anthropic) Stream(ctx context.Context, req Request, emit func(Event)) (Response, error) {
	headers := map[string]string{"Anthropic-Version": anthropicVersion}
	if p.key != "" {
		headers["X-Api-Key"] = p.key
	}
	newReq, err := streamRequest(p.url+"/v1/messages", p.request(req), headers)
	if err != nil {
		return Response{}, err
	}
	return p.stream(ctx, newReq, decodeAnthropic, emit)
}

type antRequest struct {
	Model     string       `json:"model"`
	MaxTokens int          `json:"max_tokens"`
	System    []antBlock   `json:"system,omitempty"`
	Messages  []antMessage `json:"messages"`
	Tools     []antTool    `json:"tools,omitempty"`
	Thinking  *antThinking `json:"thinking,omitempty"`
	Stream    bool         `json:"stream"`
}

type antMessage struct {
	Role    Role       `json:"role"`
	Content []antBlock `json:"content"`
}

// antBlock is a content block both ways: in requests and in
// content_block_start events.
type antBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    string          `json:"signature,omitempty"`
	Data         string          `json:"data,omitempty"` // redacted_thinking
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      any             `json:"content,omitempty"` // tool_result: a string, or blocks when it holds images
	Source       *antSource      `json:"source,omitempty"`  // image
	IsError      bool            `json:"is_error,omitempty"`
	CacheControl *antCache       `json:"cache_control,omitempty"`
}

// antSource is an image block's picture, inline.
type antSource struct {
	Type      string `json:"type"` // "base64"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

func antImage(p Picture) antBlock {
	return antBlock{Type: "image", Source: &antSource{Type: "base64", MediaType: p.MediaType, Data: p.Data}}
}

type antTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *antCache       `json:"cache_control,omitempty"`
}

type antCache struct {
	Type string `json:"type"`
}

type antThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

// ephemeral marks a prompt-cache breakpoint: the provider caches the prefix
// up to and including the marked block.
var ephemeral = &antCache{Type: "ephemeral"}

// request maps a Request to the wire, with three cache breakpoints (of the
// four allowed): the tools, the system prompt, and the conversation so far.
// Tools and system never change within a chat, so their prefix is read from
// the cache on every call; the breakpoint on the last message lets the next
// call read this whole conversation back.
func (p *anthropic) request(req Request) antRequest {
	out := antRequest{Model: req.Model, MaxTokens: req.MaxTokens, Stream: true}
	if out.MaxTokens <= 0 {
		out.MaxTokens = p.maxTokens
	}
	if req.ThinkingBudget > 0 {
		out.Thinking = &antThinking{Type: "enabled", BudgetTokens: req.ThinkingBudget}
		// The budget counts against max_tokens and must stay below it.
		out.MaxTokens = max(out.MaxTokens, req.ThinkingBudget+p.maxTokens)
	}
	if req.System != "" {
		out.System = []antBlock{{Type: "text", Text: req.System, CacheControl: ephemeral}}
	}
	for _, t := range req.Tools {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		out.Tools = append(out.Tools, antTool{Name: t.Name, Description: t.Description, InputSchema: schema})
	}
	if n := len(out.Tools); n > 0 {
		out.Tools[n-1].CacheControl = ephemeral
	}
	for _, m := range req.Messages {
		am := antMessage{Role: m.Role}
		for _, b := range m.Blocks {
			if ab, ok := antBlockOf(b); ok {
				am.Content = append(am.Content, ab)
			}
		}
		out.Messages = append(out.Messages, am)
	}
	if n := len(out.Messages); n > 0 {
		c := out.Messages[n-1].Content
		// Thinking blocks cannot carry a breakpoint; the last other block can.
		for i := len(c) - 1; i >= 0; i-- {
			if c[i].Type != "thinking" && c[i].Type != "redacted_thinking" {
				c[i].CacheControl = ephemeral
				break
			}
		}
	}
	return out
}

// antBlockOf maps one block; empty text, which the API refuses, is left out.
func antBlockOf(b Block) (antBlock, bool) {
	switch b.Kind {
	case Text:
		return antBlock{Type: "text", Text: b.Text}, b.Text != ""
	case Thinking:
		t := b.Text
		return antBlock{Type: "thinking", Thinking: &t, Signature: b.Signature}, true
	case RedactedThinking:
		return antBlock{Type: "redacted_thinking", Data: b.Signature}, true
	case ToolUse:
		input := b.Input
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		return antBlock{Type: "tool_use", ID: b.ToolID, Name: b.ToolName, Input: input}, true
	case ToolResult:
		if len(b.Images) == 0 {
			return antBlock{Type: "tool_result", ToolUseID: b.ToolID, Content: b.Text, IsError: b.IsError}, true
		}
		// A tool result's content may hold image blocks beside its text.
		content := []antBlock{{Type: "text", Text: b.Text}}
		for _, p := range b.Images {
			content = append(content, antImage(p))
		}
		return antBlock{Type: "tool_result", ToolUseID: b.ToolID, Content: content, IsError: b.IsError}, true
	case Image:
		if b.Image == nil {
			return antBlock{}, false
		}
		return antImage(*b.Image), true
	}
	return antBlock{}, false
}

type antEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Usage antUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *antBlock `json:"content_block"`
	Delta        struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *antUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// antUsage has pointers because a count that is absent must not erase one
// given earlier.
type antUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheReadInputTokens     *int `json:"cache_read_input_tokens"`
	CacheCreationInputTokens *int `json:"cache_creation_input_tokens"`
}

// add takes the counts a usage object has: message_start gives the input
// side, message_delta the cumulative output (and, from newer servers, the
// input side again).
func (u antUsage) add(to *Usage) {
	for _, f := range []struct {
		from *int
		to   *int
	}{{u.InputTokens, &to.Input}, {u.OutputTokens, &to.Output}, {u.CacheReadInputTokens, &to.CacheRead}, {u.CacheCreationInputTokens, &to.CacheCreate}} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
}

var antStops = map[string]StopReason{
	"end_turn":                      EndTurn,
	"stop_sequence":                 EndTurn,
	"tool_use":                      StopToolUse,
	"max_tokens":                    MaxTokens,
	"refusal":                       Refusal,
	"model_context_window_exceeded": ContextWindow,
	"pause_turn":                    Paused,
}

// antRetryable are the error types of an error event worth another try.
var antRetryable = map[string]bool{"overloaded_error": true, "api_error": true, "rate_limit_error": true, "timeout_error": true}

// decodeAnthropic reads a Messages stream. Blocks arrive one at a time,
// each from content_block_start to content_block_stop; a tool call is
// emitted whole at its stop, once its input JSON is complete.
func decodeAnthropic(s *sseReader, a *assembly) error {
	var (
		tool    *Block       // the tool_use block being streamed
		partial bytes.Buffer // its partial_json so far
		stop    string
		// unreadable is a tool call whose input is not a JSON object, held
		// until it is known whether the output limit cut it (then it is
		// dropped, and Stop says why) or the model sent it so (then it
		// goes back to the model as a failed call).
		unreadable *Block
	)
	for {
		_, data, err := s.next()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		var ev antEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return &Error{Message: fmt.Sprintf("undecodable event %.200q: %v", data, err)}
		}
		switch ev.Type {
		case "message_start":
			if ev.Message != nil {
				ev.Message.Usage.add(&a.resp.Usage)
			}
		case "content_block_start":
			if unreadable != nil {
				a.call(*unreadable)
				unreadable = nil
			}
			b := ev.ContentBlock
			if b == nil {
				continue
			}
			switch b.Type {
			case "text":
				a.open(Block{Kind: Text})
				a.text(Text, b.Text)
			case "thinking":
				a.open(Block{Kind: Thinking, Signature: b.Signature})
				if b.Thinking != nil {
					a.text(Thinking, *b.Thinking)
				}
			case "redacted_thinking":
				a.open(Block{Kind: RedactedThinking, Signature: b.Data})
			case "tool_use":
				tool = &Block{Kind: ToolUse, ToolID: b.ID, ToolName: b.Name}
				partial.Reset()
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				a.text(Text, ev.Delta.Text)
			case "thinking_delta":
				a.text(Thinking, ev.Delta.Thinking)
			case "signature_delta":
				if l := a.last(); l != nil && l.Kind == Thinking {
					l.Signature += ev.Delta.Signature
				}
			case "input_json_delta":
				partial.WriteString(ev.Delta.PartialJSON)
			}
		case "content_block_stop":
			if tool == nil {
				continue
			}
			if tool.Input, tool.InputError = toolInput(partial.Bytes()); tool.InputError == "" {
				a.call(*tool)
			} else {
				unreadable = tool
			}
			tool = nil
		case "message_delta":
			if ev.Delta.StopReason != "" {
				stop = ev.Delta.StopReason
			}
			if ev.Usage != nil {
				ev.Usage.add(&a.resp.Usage)
			}
		case "message_stop":
			r, ok := antStops[stop]
			if !ok {
				r = EndTurn
			}
			if unreadable != nil && r != MaxTokens {
				a.call(*unreadable)
			}
			a.resp.Stop = r
			return nil
		case "error":
			if ev.Error == nil {
				return &Error{Message: "error event without an error", Retryable: true}
			}
			return &Error{Message: fmt.Sprintf("%s (%s)", ev.Error.Message, ev.Error.Type), Retryable: antRetryable[ev.Error.Type]}
		}
	}
}
