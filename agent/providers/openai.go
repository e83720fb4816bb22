package providers

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// OpenAIOptions configures an OpenAI-compatible Chat Completions client:
// OpenAI, OpenRouter, Ollama, llama.cpp, vLLM, LM Studio.
type OpenAIOptions struct {
	URL    string // base URL, up to and including /v1; "" is https://api.openai.com/v1
	APIKey string // "" sends no Authorization header (local servers)
	// HTTPClient nil is one bounding the connection and TLS handshake.
	HTTPClient *http.Client
	// MaxRetries is how often a failed call is tried again: 0 is 4, a
	// negative number is never.
	MaxRetries int
	// IdleTimeout is how long a call may receive nothing (no connection,
	// no headers, no byte of the stream) before it counts as dropped: 0
	// is DefaultIdleTimeout.
	IdleTimeout time.Duration
}

// NewOpenAIChat returns a Provider speaking Chat Completions with
// streaming.
//
// The wire has no place for two things the Request holds: thinking blocks
// are not sent back (the servers that stream reasoning_content do not take
// it as input), and a failed tool result is marked by an "Error: " prefix
// on its content.
func NewOpenAIChat(o OpenAIOptions) Provider {
	url := strings.TrimRight(o.URL, "/")
	if url == "" {
		url = "https://api.openai.com/v1"
	}
	return &openAIChat{url: url, key: o.APIKey, caller: newCaller(o.HTTPClient, o.MaxRetries, o.IdleTimeout)}
}

type openAIChat struct {
	url, key string
	caller
}

func (p *openAIChat) Stream(ctx context.Context, req Request, emit func(Event)) (Response, error) {
	headers := map[string]string{}
	if p.key != "" {
		headers["Authorization"] = "Bearer " + p.key
	}
	newReq, err := streamRequest(p.url+"/chat/completions", oaiRequestOf(req), headers)
	if err != nil {
		return Response{}, err
	}
	return p.stream(ctx, newReq, decodeOpenAI, emit)
}

type oaiRequest struct {
	Model         string       `json:"model"`
	Messages      []oaiMessage `json:"messages"`
	Tools         []oaiTool    `json:"tools,omitempty"`
	MaxTokens     int          `json:"max_tokens,omitempty"`
	Stream        bool         `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type oaiMessage struct {
	Role       string        `json:"role"`
	Content    any           `json:"content"` // *string, null in an assistant message of only tool calls; []oaiPart with images
	ToolCalls  []oaiToolCall `json:"tool_calls,omitempty"`
	ToolCallID string        `json:"tool_call_id,omitempty"`
}

// oaiPart is one part of a user message's content holding images.
type oaiPart struct {
	Type     string `json:"type"` // "text" or "image_url"
	Text     string `json:"text,omitempty"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url,omitempty"`
}

func oaiImage(p Picture) oaiPart {
	part := oaiPart{Type: "image_url", ImageURL: &struct {
		URL string `json:"url"`
	}{p.DataURL()}}
	return part
}

type oaiToolCall struct {
	Index    *int   `json:"index,omitempty"` // in stream deltas only
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type oaiTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// oaiRequestOf maps a Request: the system prompt becomes the first message,
// a user message's tool results become "tool" messages (before its text, as
// the wire wants them right after the assistant's calls), an assistant
// message's tool calls become its tool_calls. Images make a user message's
// content a list of parts; a tool message can hold only text, so the
// pictures a tool result gave follow in the user message after it, each
// introduced by the call's id.
func oaiRequestOf(req Request) oaiRequest {
	out := oaiRequest{Model: req.Model, MaxTokens: req.MaxTokens, Stream: true}
	out.StreamOptions.IncludeUsage = true
	if req.System != "" {
		out.Messages = append(out.Messages, oaiMessage{Role: "system", Content: &req.System})
	}
	for _, t := range req.Tools {
		var ot oaiTool
		ot.Type = "function"
		ot.Function.Name, ot.Function.Description, ot.Function.Parameters = t.Name, t.Description, t.InputSchema
		if len(ot.Function.Parameters) == 0 {
			ot.Function.Parameters = json.RawMessage(`{"type":"object"}`)
		}
		out.Tools = append(out.Tools, ot)
	}
	for _, m := range req.Messages {
		var text strings.Builder
		var calls []oaiToolCall
		var images []oaiPart
		for _, b := range m.Blocks {
			switch b.Kind {
			case Text:
				text.WriteString(b.Text)
			case Image:
				if b.Image != nil {
					images = append(images, oaiImage(*b.Image))
				}
			case ToolUse:
				var c oaiToolCall
				c.ID, c.Type, c.Function.Name, c.Function.Arguments = b.ToolID, "function", b.ToolName, string(b.Input)
				if c.Function.Arguments == "" {
					c.Function.Arguments = "{}"
				}
				calls = append(calls, c)
			case ToolResult:
				content := b.Text
				if b.IsError {
					content = "Error: " + content
				}
				if len(b.Images) > 0 {
					content += fmt.Sprintf("\n(the image follows in the next user message, after \"Image from %s:\")", b.ToolID)
					images = append(images, oaiPart{Type: "text", Text: "Image from " + b.ToolID + ":"})
					for _, p := range b.Images {
						images = append(images, oaiImage(p))
					}
				}
				out.Messages = append(out.Messages, oaiMessage{Role: "tool", ToolCallID: b.ToolID, Content: &content})
			}
		}
		if text.Len() == 0 && calls == nil && images == nil {
			continue
		}
		om := oaiMessage{Role: string(m.Role), ToolCalls: calls}
		switch {
		case images != nil:
			parts := images
			if text.Len() > 0 {
				parts = append([]oaiPart{{Type: "text", Text: text.String()}}, images...)
			}
			om.Content = parts
		case text.Len() > 0 || m.Role == User:
			s := text.String()
			om.Content = &s
		}
		out.Messages = append(out.Messages, om)
	}
	return out
}

type oaiChunk struct {
	Choices []struct {
		Delta struct {
			Content          *string       `json:"content"`
			ReasoningContent *string       `json:"reasoning_content"` // DeepSeek, vLLM, llama.cpp
			Reasoning        *string       `json:"reasoning"`         // OpenRouter, Ollama
			ToolCalls        []oaiToolCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// oaiCall is a tool call being streamed.
type oaiCall struct {
	id, name string
	args     []byte
}

// oaiCalls merges tool call deltas into calls. Servers differ: OpenAI
// numbers each call by index and sends its id and name once, first;
// Ollama sends no index or always 0, and may send no id. So a delta with
// an id not seen yet, or with a name while the latest call already has a
// complete name and arguments, starts a new call whatever its index says.
type oaiCalls struct {
	calls   []*oaiCall
	byIndex map[int]*oaiCall
}

func (m *oaiCalls) add(d oaiToolCall) {
	c := m.find(d)
	if c == nil {
		c = &oaiCall{id: d.ID}
		if c.id == "" {
			c.id = "call_" + rand.Text()
		}
		m.calls = append(m.calls, c)
	}
	if d.Index != nil {
		if m.byIndex == nil {
			m.byIndex = map[int]*oaiCall{}
		}
		m.byIndex[*d.Index] = c
	}
	if c.name == "" {
		c.name = d.Function.Name
	}
	c.args = append(c.args, d.Function.Arguments...)
}

// find is the call a delta continues, nil for a new one.
func (m *oaiCalls) find(d oaiToolCall) *oaiCall {
	if d.ID != "" {
		for _, c := range m.calls {
			if c.id == d.ID {
				return c
			}
		}
		return nil
	}
	if len(m.calls) == 0 {
		return nil
	}
	last := m.calls[len(m.calls)-1]
	if d.Function.Name != "" && last.name != "" && (d.Function.Name != last.name || json.Valid(last.args)) {
		if d.Index == nil || m.byIndex[*d.Index] == last {
			return nil
		}
	}
	if d.Index != nil {
		return m.byIndex[*d.Index]
	}
	return last
}

var oaiStops = map[string]StopReason{
	"stop":           EndTurn,
	"tool_calls":     StopToolUse,
	"function_call":  StopToolUse,
	"length":         MaxTokens,
	"content_filter": Refusal,
}

// decodeOpenAI reads a Chat Completions stream up to "data: [DONE]".
// Tool calls are emitted once the stream ends, when their arguments are
// surely complete; the usage comes in a last chunk without choices.
func decodeOpenAI(s *sseReader, a *assembly) error {
	var calls oaiCalls
	finish := ""
	for {
		_, data, err := s.next()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		if string(data) == "[DONE]" {
			break
		}
		var ch oaiChunk
		if err := json.Unmarshal(data, &ch); err != nil {
			return &Error{Message: fmt.Sprintf("undecodable chunk %.200q: %v", data, err)}
		}
		if len(ch.Error) > 0 && string(ch.Error) != "null" {
			// Servers and routers (OpenRouter, vLLM) report an upstream
			// failure this way once the 200 is sent; it is retried like a
			// cut stream, so only while nothing was shown.
			return &Error{Message: errorMessage(data), Retryable: true}
		}
		for _, c := range ch.Choices {
			if r := c.Delta.ReasoningContent; r != nil {
				a.text(Thinking, *r)
			} else if r := c.Delta.Reasoning; r != nil {
				a.text(Thinking, *r)
			}
			if c.Delta.Content != nil {
				a.text(Text, *c.Delta.Content)
			}
			for _, d := range c.Delta.ToolCalls {
				calls.add(d)
			}
			if c.FinishReason != nil && *c.FinishReason != "" {
				finish = *c.FinishReason
			}
		}
		if u := ch.Usage; u != nil {
			cached := 0
			if u.PromptTokensDetails != nil {
				cached = u.PromptTokensDetails.CachedTokens
			}
			a.resp.Usage = Usage{Input: u.PromptTokens - cached, Output: u.CompletionTokens, CacheRead: cached}
		}
	}
	for _, c := range calls.calls {
		input, problem := toolInput(c.args)
		if problem != "" && finish == "length" {
			break // cut off by the output limit, which Stop says
		}
		a.call(Block{Kind: ToolUse, ToolID: c.id, ToolName: c.name, Input: input, InputError: problem})
	}
	stop, ok := oaiStops[finish]
	if !ok {
		stop = EndTurn
	}
	// Some servers (Ollama) finish a message of tool calls with "stop".
	if stop == EndTurn && len(calls.calls) > 0 {
		stop = StopToolUse
	}
	a.resp.Stop = stop
	return nil
}
