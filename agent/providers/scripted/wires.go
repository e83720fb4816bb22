package scripted

import (
	"fmt"

	"github.com/tandemdev/tandem/agent/providers"
)

// anthropicStops maps the neutral stop words the wire spells differently.
var anthropicStops = map[string]string{string(providers.ContextWindow): "model_context_window_exceeded"}

// anthropicEvents is a Messages stream as the API sends it: message_start,
// each block from content_block_start to content_block_stop, message_delta
// with the stop reason and output usage, message_stop.
func anthropicEvents(r Response, model string, n int) []event {
	ev := func(name string, data map[string]any) event {
		data["type"] = name
		return event{name: name, data: data}
	}
	u := r.Usage
	events := []event{ev("message_start", map[string]any{"message": map[string]any{
		"id": fmt.Sprintf("msg_scripted_%d", n+1), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.Input, "output_tokens": 0,
			"cache_read_input_tokens": u.CacheRead, "cache_creation_input_tokens": u.CacheCreate},
	}})}
	index, open := -1, "" // the block being streamed and its type
	closeBlock := func() {
		if open != "" {
			events = append(events, ev("content_block_stop", map[string]any{"index": index}))
			open = ""
		}
	}
	start := func(typ string, block map[string]any) {
		closeBlock()
		index++
		open = typ
		block["type"] = typ
		events = append(events, ev("content_block_start", map[string]any{"index": index, "content_block": block}))
	}
	delta := func(d map[string]any) {
		events = append(events, ev("content_block_delta", map[string]any{"index": index, "delta": d}))
	}
	for _, p := range r.Parts {
		switch {
		case p.Text != "":
			if open != "text" {
				start("text", map[string]any{"text": ""})
			}
			delta(map[string]any{"type": "text_delta", "text": p.Text})
		case p.Thinking != "" || p.Signature != "":
			if open != "thinking" {
				start("thinking", map[string]any{"thinking": "", "signature": ""})
			}
			if p.Thinking != "" {
				delta(map[string]any{"type": "thinking_delta", "thinking": p.Thinking})
			}
			if p.Signature != "" {
				delta(map[string]any{"type": "signature_delta", "signature": p.Signature})
				closeBlock()
			}
		case p.Tool != nil:
			id := p.Tool.ID
			if id == "" {
				id = fmt.Sprintf("toolu_scripted_%d_%d", n+1, index+1)
			}
			start("tool_use", map[string]any{"id": id, "name": p.Tool.Name, "input": map[string]any{}})
			delta(map[string]any{"type": "input_json_delta", "partial_json": ""})
			for _, s := range pieces(p.Tool.input()) {
				delta(map[string]any{"type": "input_json_delta", "partial_json": s})
			}
			closeBlock()
		case p.Redacted != "":
			start("redacted_thinking", map[string]any{"data": p.Redacted})
			closeBlock()
		case p.Ping:
			events = append(events, ev("ping", map[string]any{}))
		case p.Error != "":
			closeBlock()
			return append(events, ev("error", map[string]any{"error": map[string]any{"type": p.Error, "message": "scripted " + p.Error}}))
		}
	}
	closeBlock()
	stop := r.stop()
	if s, ok := anthropicStops[stop]; ok {
		stop = s
	}
	return append(events,
		ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": u.Output}}),
		ev("message_stop", map[string]any{}))
}

// openAIStops maps the neutral stop words to finish_reason.
var openAIStops = map[string]string{
	string(providers.EndTurn):     "stop",
	string(providers.StopToolUse): "tool_calls",
	string(providers.MaxTokens):   "length",
	string(providers.Refusal):     "content_filter",
}

// openAIEvents is a Chat Completions stream: a chunk per delta, a chunk
// with finish_reason, a last chunk with no choices and the usage, [DONE].
// Tool call deltas carry "content": null, as OpenAI's do.
func openAIEvents(r Response, model string, n int) []event {
	id := fmt.Sprintf("chatcmpl-scripted-%d", n+1)
	chunk := func(delta map[string]any, finish any) event {
		return event{data: map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}}
	}
	events := []event{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	calls := 0
	for _, p := range r.Parts {
		switch {
		case p.Text != "":
			events = append(events, chunk(map[string]any{"content": p.Text}, nil))
		case p.Thinking != "":
			events = append(events, chunk(map[string]any{"reasoning_content": p.Thinking}, nil))
		case p.Tool != nil:
			events = append(events, openAIToolDeltas(p.Tool, calls, r.Faults, n, chunk)...)
			calls++
		case p.Ping:
			events = append(events, event{comment: "ping"})
		case p.Error != "":
			return append(events, event{data: map[string]any{"error": map[string]any{"message": "scripted " + p.Error, "type": p.Error}}})
		}
	}
	stop := r.stop()
	if s, ok := openAIStops[stop]; ok {
		stop = s
	}
	u := r.Usage
	prompt := u.Input + u.CacheRead + u.CacheCreate
	return append(events,
		chunk(map[string]any{}, stop),
		event{data: map[string]any{"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": []any{},
			"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": u.Output, "total_tokens": prompt + u.Output,
				"prompt_tokens_details": map[string]any{"cached_tokens": u.CacheRead}}}},
		event{data: "[DONE]"})
}

// openAIToolDeltas streams call number i: its id, name and empty
// arguments first, then the arguments in pieces, unless faults say
// otherwise.
func openAIToolDeltas(c *ToolCall, i int, f Faults, n int, chunk func(map[string]any, any) event) []event {
	delta := func(first bool, args string) event {
		tc := map[string]any{}
		switch {
		case f.NoIndex:
		case f.ZeroIndex:
			tc["index"] = 0
		default:
			tc["index"] = i
		}
		fn := map[string]any{"arguments": args}
		if first {
			if !f.NoID {
				id := c.ID
				if id == "" {
					id = fmt.Sprintf("call_scripted_%d_%d", n+1, i+1)
				}
				tc["id"] = id
			}
			tc["type"] = "function"
			fn["name"] = c.Name
		}
		tc["function"] = fn
		return chunk(map[string]any{"content": nil, "tool_calls": []any{tc}}, nil)
	}
	if f.WholeArgs {
		return []event{delta(true, c.input())}
	}
	events := []event{delta(true, "")}
	for _, s := range pieces(c.input()) {
		events = append(events, delta(false, s))
	}
	return events
}
