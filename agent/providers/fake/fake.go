// Package fake is a model for the tests of code that drives one. Each call
// is answered in process, with no wire, by the next of a list of
// responses, each made from the request (so a response can quote what a
// read showed). The wire formats are tested against a real HTTP server
// instead (package scripted).
package fake

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/tandemdev/tandem/agent/providers"
)

// Model is a providers.Provider answering from Responses, recording every
// request in Requests. Lock Mu to change or read them while calls run.
type Model struct {
	Mu        sync.Mutex
	Responses []func(providers.Request) providers.Response
	Requests  []providers.Request
	// Block makes a call wait for its context after its first event.
	Block bool
}

// Stream answers with the next response, emitting its text and tool calls.
func (m *Model) Stream(ctx context.Context, req providers.Request, emit func(providers.Event)) (providers.Response, error) {
	m.Mu.Lock()
	m.Requests = append(m.Requests, req)
	if len(m.Responses) == 0 {
		m.Mu.Unlock()
		return providers.Response{}, &providers.Error{Message: "the script has no more responses"}
	}
	next := m.Responses[0]
	m.Responses = m.Responses[1:]
	block := m.Block
	m.Mu.Unlock()
	resp := next(req)
	for _, b := range resp.Message.Blocks {
		switch b.Kind {
		case providers.Text:
			emit(providers.Event{Kind: providers.TextDelta, Text: b.Text})
		case providers.ToolUse:
			emit(providers.Event{Kind: providers.ToolCall, Call: &b})
		}
		if block {
			<-ctx.Done()
			return providers.Response{}, ctx.Err()
		}
	}
	return resp, ctx.Err()
}

// Say is a response that answers text and ends the turn.
func Say(text string) func(providers.Request) providers.Response {
	return func(providers.Request) providers.Response {
		return providers.Response{Message: providers.Message{Role: providers.Assistant, Blocks: []providers.Block{{Kind: providers.Text, Text: text}}},
			Stop: providers.EndTurn, Usage: providers.Usage{Input: 100, Output: 10, CacheRead: 50}}
	}
}

// Call is a response that asks for the tool calls.
func Call(calls ...providers.Block) func(providers.Request) providers.Response {
	return func(providers.Request) providers.Response {
		return providers.Response{Message: providers.Message{Role: providers.Assistant, Blocks: calls}, Stop: providers.StopToolUse}
	}
}

// Use is one tool call.
func Use(id, name string, args any) providers.Block {
	raw, _ := json.Marshal(args)
	return providers.Block{Kind: providers.ToolUse, ToolID: id, ToolName: name, Input: raw}
}
