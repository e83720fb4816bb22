package scripted

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

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

// responsesIncomplete maps the neutral stop words that end a Responses
// stream as incomplete to incomplete_details.reason; any other stop
// completes it.
var responsesIncomplete = map[string]string{
	string(providers.MaxTokens): "max_output_tokens",
	string(providers.Refusal):   "content_filter",
}

// responsesEvents is an OpenAI Responses stream: response.created, each
// output item from output_item.added through its deltas to
// output_item.done, then response.completed (or response.incomplete) with
// the whole output and the usage. Every event carries its type and a
// sequence number, and is sent under its type's event: line, as OpenAI's are.
func responsesEvents(r Response, model string, n int) []event {
	id := fmt.Sprintf("resp_scripted_%d", n+1)
	var events []event
	ev := func(name string, data map[string]any) {
		data["type"] = name
		events = append(events, event{name: name, data: data})
	}
	response := func(status string, output []any, usage any) map[string]any {
		return map[string]any{"id": id, "object": "response", "created_at": 0, "status": status, "model": model,
			"output": output, "usage": usage, "error": nil, "incomplete_details": nil}
	}
	ev("response.created", map[string]any{"response": response("in_progress", []any{}, nil)})
	var output []any
	var open map[string]any // the message or reasoning item being streamed
	var text strings.Builder
	closeItem := func() {
		if open == nil {
			return
		}
		at, itemID := len(output), open["id"]
		switch open["type"] {
		case "message":
			part := map[string]any{"type": "output_text", "text": text.String(), "annotations": []any{}}
			ev("response.output_text.done", map[string]any{"item_id": itemID, "output_index": at, "content_index": 0, "text": text.String(), "logprobs": []any{}})
			ev("response.content_part.done", map[string]any{"item_id": itemID, "output_index": at, "content_index": 0, "part": part})
			open["content"] = []any{part}
		case "reasoning":
			part := map[string]any{"type": "summary_text", "text": text.String()}
			ev("response.reasoning_summary_text.done", map[string]any{"item_id": itemID, "output_index": at, "summary_index": 0, "text": text.String()})
			ev("response.reasoning_summary_part.done", map[string]any{"item_id": itemID, "output_index": at, "summary_index": 0, "part": part})
			open["summary"] = []any{part}
		}
		open["status"] = "completed"
		ev("response.output_item.done", map[string]any{"output_index": at, "item": open})
		output = append(output, open)
		open = nil
		text.Reset()
	}
	start := func(item map[string]any) {
		closeItem()
		open = item
		added := maps.Clone(item)
		added["status"] = "in_progress"
		ev("response.output_item.added", map[string]any{"output_index": len(output), "item": added})
	}
	for _, p := range r.Parts {
		switch {
		case p.Text != "":
			if open == nil || open["type"] != "message" {
				start(map[string]any{"id": fmt.Sprintf("msg_scripted_%d_%d", n+1, len(output)+1), "type": "message", "role": "assistant", "content": []any{}})
				ev("response.content_part.added", map[string]any{"item_id": open["id"], "output_index": len(output), "content_index": 0,
					"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
			}
			text.WriteString(p.Text)
			ev("response.output_text.delta", map[string]any{"item_id": open["id"], "output_index": len(output), "content_index": 0, "delta": p.Text, "logprobs": []any{}})
		case p.Thinking != "" || p.Signature != "":
			if open == nil || open["type"] != "reasoning" {
				start(map[string]any{"id": fmt.Sprintf("rs_scripted_%d_%d", n+1, len(output)+1), "type": "reasoning", "summary": []any{}})
				ev("response.reasoning_summary_part.added", map[string]any{"item_id": open["id"], "output_index": len(output), "summary_index": 0,
					"part": map[string]any{"type": "summary_text", "text": ""}})
			}
			if p.Thinking != "" {
				text.WriteString(p.Thinking)
				ev("response.reasoning_summary_text.delta", map[string]any{"item_id": open["id"], "output_index": len(output), "summary_index": 0, "delta": p.Thinking})
			}
			if p.Signature != "" {
				open["encrypted_content"] = p.Signature
				closeItem()
			}
		case p.Tool != nil:
			callID := p.Tool.ID
			if callID == "" {
				callID = fmt.Sprintf("call_scripted_%d_%d", n+1, len(output)+1)
			}
			item := map[string]any{"id": fmt.Sprintf("fc_scripted_%d_%d", n+1, len(output)+1), "type": "function_call",
				"call_id": callID, "name": p.Tool.Name, "arguments": ""}
			if p.Tool.Namespace != "" {
				item["namespace"] = p.Tool.Namespace
			}
			start(item)
			args := p.Tool.input()
			for _, s := range pieces(args) {
				ev("response.function_call_arguments.delta", map[string]any{"item_id": item["id"], "output_index": len(output), "delta": s})
			}
			ev("response.function_call_arguments.done", map[string]any{"item_id": item["id"], "output_index": len(output), "arguments": args})
			item["arguments"] = args
			closeItem()
		case p.Ping:
			events = append(events, event{comment: "ping"})
		case p.Error != "":
			ev("error", map[string]any{"code": p.Error, "message": "scripted " + p.Error, "param": nil})
			return numbered(events)
		}
	}
	closeItem()
	u := r.Usage
	input := u.Input + u.CacheRead + u.CacheCreate
	done := response("completed", output, map[string]any{
		"input_tokens": input, "input_tokens_details": map[string]any{"cached_tokens": u.CacheRead},
		"output_tokens": u.Output, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
		"total_tokens": input + u.Output})
	end := "response.completed"
	if reason, ok := responsesIncomplete[r.stop()]; ok {
		end, done["status"], done["incomplete_details"] = "response.incomplete", "incomplete", map[string]any{"reason": reason}
	}
	ev(end, map[string]any{"response": done})
	return numbered(events)
}

// numbered gives each Responses event its sequence_number.
func numbered(events []event) []event {
	seq := 0
	for _, e := range events {
		if data, ok := e.data.(map[string]any); ok {
			data["sequence_number"] = seq
			seq++
		}
	}
	return events
}

// geminiFinish maps the neutral stop words to finishReason; Gemini ends a
// turn that calls tools with STOP, as any other.
var geminiFinish = map[string]string{
	string(providers.EndTurn):     "STOP",
	string(providers.StopToolUse): "STOP",
	string(providers.MaxTokens):   "MAX_TOKENS",
	string(providers.Refusal):     "SAFETY",
}

// geminiEvents is a Gemini streamGenerateContent stream (alt=sse): one
// GenerateContentResponse per chunk, each text or thought part in its own
// chunk, each function call whole in its own (Gemini does not stream
// arguments, and sends no call id unless the script names one), and a
// last chunk with the finishReason and the usage.
func geminiEvents(r Response, model string, n int) []event {
	id := fmt.Sprintf("scripted-%d", n+1)
	u := r.Usage
	prompt := u.Input + u.CacheRead + u.CacheCreate
	chunk := func(parts []any, finish string, usage map[string]any) event {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		if finish != "" {
			cand["finishReason"] = finish
		}
		return event{data: map[string]any{"candidates": []any{cand}, "usageMetadata": usage, "modelVersion": model, "responseId": id}}
	}
	opening := map[string]any{"promptTokenCount": prompt, "totalTokenCount": prompt}
	var events []event
	for _, p := range r.Parts {
		switch {
		case p.Text != "":
			events = append(events, chunk([]any{map[string]any{"text": p.Text}}, "", opening))
		case p.Thinking != "" || p.Signature != "":
			part := map[string]any{"text": p.Thinking, "thought": true}
			if p.Signature != "" {
				part["thoughtSignature"] = p.Signature
			}
			events = append(events, chunk([]any{part}, "", opening))
		case p.Tool != nil:
			args := p.Tool.input()
			call := map[string]any{"name": p.Tool.Name, "args": json.RawMessage(args)}
			if !json.Valid([]byte(args)) { // malformed arguments, scripted as a string
				call["args"] = args
			}
			if p.Tool.ID != "" {
				call["id"] = p.Tool.ID
			}
			events = append(events, chunk([]any{map[string]any{"functionCall": call}}, "", opening))
		case p.Ping:
			events = append(events, event{comment: "ping"})
		case p.Error != "":
			return append(events, event{data: map[string]any{"error": map[string]any{"code": 500, "message": "scripted " + p.Error, "status": p.Error}}})
		}
	}
	finish := r.stop()
	if f, ok := geminiFinish[finish]; ok {
		finish = f
	}
	usage := map[string]any{"promptTokenCount": prompt, "candidatesTokenCount": u.Output, "totalTokenCount": prompt + u.Output}
	if u.CacheRead > 0 {
		usage["cachedContentTokenCount"] = u.CacheRead
	}
	return append(events, chunk([]any{map[string]any{"text": ""}}, finish, usage))
}
