// Package acptest is a model for tests of tandem's agent front doors, run
// in process or inside a tandem binary built for a test: a puppet whose
// every move the prompt spells out, so a test drives tool calls from the
// client side alone.
package acptest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tandemdev/tandem/agent/providers"
)

// Puppet answers a prompt by its text:
//
//   - "call TOOL JSON" lines: one tool call per line, in order, with the
//     ids "call-N-1", "call-N-2"… (N counts the chat's messages, so ids
//     never repeat in a chat);
//   - "wait": streams "waiting" and then waits for the call's context;
//   - anything else: "you said: TEXT".
//
// After tool results it answers "results:" and each result as
// "\n[ID] TEXT", and ends the turn.
type Puppet struct{}

func (Puppet) Stream(ctx context.Context, req providers.Request, emit func(providers.Event)) (providers.Response, error) {
	last := req.Messages[len(req.Messages)-1]
	var text strings.Builder
	var calls []providers.Block
	for _, b := range last.Blocks {
		if b.Kind == providers.ToolResult {
			if text.Len() == 0 {
				text.WriteString("results:")
			}
			fmt.Fprintf(&text, "\n[%s] %s", b.ToolID, b.Text)
		}
	}
	if text.Len() == 0 {
		prompt := strings.TrimSpace(last.Blocks[0].Text)
		switch {
		case prompt == "wait":
			emit(providers.Event{Kind: providers.TextDelta, Text: "waiting"})
			<-ctx.Done()
			return providers.Response{}, ctx.Err()
		case strings.HasPrefix(prompt, "call "):
			for i, line := range strings.Split(prompt, "\n") {
				name, args, _ := strings.Cut(strings.TrimPrefix(line, "call "), " ")
				if !json.Valid([]byte(args)) {
					return providers.Response{}, &providers.Error{Message: fmt.Sprintf("puppet: the arguments of %q are not JSON", line)}
				}
				calls = append(calls, providers.Block{Kind: providers.ToolUse, ToolID: fmt.Sprintf("call-%d-%d", len(req.Messages), i+1), ToolName: name, Input: json.RawMessage(args)})
			}
		default:
			text.WriteString("you said: " + prompt)
		}
	}
	if len(calls) > 0 {
		for i := range calls {
			emit(providers.Event{Kind: providers.ToolCall, Call: &calls[i]})
		}
		return providers.Response{Message: providers.Message{Role: providers.Assistant, Blocks: calls}, Stop: providers.StopToolUse}, nil
	}
	emit(providers.Event{Kind: providers.TextDelta, Text: text.String()})
	return providers.Response{Message: providers.Message{Role: providers.Assistant, Blocks: []providers.Block{{Kind: providers.Text, Text: text.String()}}},
		Stop: providers.EndTurn, Usage: providers.Usage{Input: 10, Output: 5}}, nil
}
