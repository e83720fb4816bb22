// Package providers speaks to language models: one client per wire format
// (Anthropic Messages, OpenAI-compatible Chat Completions), each turning a
// provider-neutral Request into one streamed Event type, with retries. The
// agent's turn loop sees only this package's types, never a wire's.
package providers

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Role is who wrote a message.
type Role string

const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// BlockKind is what one block of a message holds.
type BlockKind string

const (
	Text       BlockKind = "text"
	Thinking   BlockKind = "thinking"    // the model's reasoning, sent back with its Signature
	ToolUse    BlockKind = "tool_use"    // a call the model asked for
	ToolResult BlockKind = "tool_result" // what a call gave, in a user message
	Image      BlockKind = "image"       // a picture in a user message: Image

	// RedactedThinking is reasoning the provider encrypted; Signature holds
	// its opaque data, which must go back exactly as it came.
	RedactedThinking BlockKind = "redacted_thinking"
)

// Block is one part of a message.
type Block struct {
	Kind      BlockKind `json:"kind"`
	Text      string    `json:"text,omitempty"`      // Text, Thinking, ToolResult
	Signature string    `json:"signature,omitempty"` // Thinking: returned to the provider as it came
	ToolID    string    `json:"toolId,omitempty"`    // ToolUse, ToolResult
	// CallID is, for a ToolUse and its ToolResult, the call's id for
	// clients where it differs from ToolID: unique in the chat, while some
	// providers repeat their ids across responses (call_0 in each). The
	// provider is sent ToolID alone, its own id; empty: ToolID.
	CallID   string          `json:"callId,omitempty"`
	ToolName string          `json:"toolName,omitempty"` // ToolUse
	Input    json.RawMessage `json:"input,omitempty"`    // ToolUse: the arguments, a JSON object
	// InputError is, for a ToolUse whose arguments as streamed are not a
	// JSON object, why (the parse error and the start of what came); Input
	// is then "{}". Such a call is answered as failed, never run.
	InputError string `json:"inputError,omitempty"`
	IsError    bool   `json:"isError,omitempty"` // ToolResult
	// Image is an Image block's picture; Images are the pictures a
	// ToolResult gave besides its text (a read of a png).
	Image  *Picture  `json:"image,omitempty"`
	Images []Picture `json:"images,omitempty"`
	// Note marks a Text that is tandem's own word to the model (a
	// restore, files changed under the chat, plan mode, a cut turn), not
	// the user's or the model's: it is sent like any text, and a reopened
	// chat does not show it as theirs.
	Note bool `json:"note,omitempty"`
}

// Picture is an image as the providers take it: its MIME type (image/png,
// image/jpeg, image/gif or image/webp) and its bytes in base64.
type Picture struct {
	MediaType string `json:"mediaType"`
	Data      string `json:"data,omitempty"`
	// SHA256 names the picture's bytes where a chat's file keeps it
	// (beside the chat, once); Data is then empty until it is loaded.
	SHA256 string `json:"sha256,omitempty"`
}

// DataURL is the picture as a data: URL, as OpenAI-compatible wires take it.
func (p Picture) DataURL() string { return "data:" + p.MediaType + ";base64," + p.Data }

// Message is one turn of the conversation as the provider sees it.
type Message struct {
	Role   Role    `json:"role"`
	Blocks []Block `json:"blocks"`
}

// Tool is a tool the model may call.
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// Request is one model call. The roster (Tools) and System stay the same
// for a chat's life, so a provider's prompt cache holds across its turns.
type Request struct {
	Model     string // the model's name at its provider (no "provider/" prefix)
	System    string
	Messages  []Message
	Tools     []Tool
	MaxTokens int // output tokens; 0 is the client's default
	// ThinkingBudget turns on extended thinking with that many tokens
	// (Anthropic; at least 1024 there); 0 leaves it off. OpenAI-compatible
	// servers decide reasoning by model, so they ignore it.
	ThinkingBudget int
}

// StopReason is why the model stopped.
type StopReason string

const (
	EndTurn       StopReason = "end_turn"
	StopToolUse   StopReason = "tool_use"
	MaxTokens     StopReason = "max_tokens"
	Refusal       StopReason = "refusal"
	ContextWindow StopReason = "context_window" // the request no longer fits the model's window
	// Paused is Anthropic's pause_turn: the provider stopped a long turn
	// early and expects the same conversation, with this response appended
	// as the last assistant message, to be sent again to let it go on. No
	// user message goes in between.
	Paused StopReason = "pause_turn"
)

// Usage counts tokens of one call.
type Usage struct {
	Input       int `json:"input"` // input tokens not read from the cache
	Output      int `json:"output"`
	CacheRead   int `json:"cacheRead"`   // input tokens read from the prompt cache
	CacheCreate int `json:"cacheCreate"` // input tokens written to the prompt cache
}

// EventKind is what an Event carries.
type EventKind string

const (
	TextDelta     EventKind = "text"     // Text: more of the answer
	ThinkingDelta EventKind = "thinking" // Text: more of the reasoning
	ToolCall      EventKind = "tool_call"
	Retrying      EventKind = "retrying" // Retry: the call failed and will be tried again
)

// Event is one thing that happened while a response streamed. Text and
// thinking arrive in pieces as they stream; a tool call arrives once, whole,
// when its arguments are complete.
type Event struct {
	Kind  EventKind
	Text  string
	Call  *Block     // ToolCall: a ToolUse block
	Retry *RetryInfo // Retrying
}

// RetryInfo says why a call is retried and when: the user sees it as a
// status, never as a silent wait.
type RetryInfo struct {
	Attempt int           // 1 for the first retry
	Wait    time.Duration // until the next attempt (retry-after when the provider gave one)
	Reason  string        // e.g. "429 rate limited", "overloaded"
	// Restart is a retry after part of the answer was emitted (a stall
	// mid-answer): what the cut attempt emitted is void, its tool calls
	// never to be run, and the next attempt answers from the start.
	Restart bool
}

// Response is a finished model call: the assistant message it produced
// (text, thinking with signatures, tool calls, in order), why it stopped,
// and its usage.
type Response struct {
	Message Message
	Stop    StopReason
	Usage   Usage
}

// Provider streams one model call. emit is called, in order and from the
// calling goroutine's point of view one at a time, for each event; the
// returned Response holds everything that was emitted. Cancelling ctx ends
// the stream at once and returns ctx's error.
//
// On an error the Response still holds what was emitted before it (so a
// caller can keep the partial answer the user already saw), with Stop
// empty. A failure before anything was emitted is retried; after, it is
// returned, because a retry would show the user the same text twice —
// save a stall, which is retried with a Retrying event marked Restart.
type Provider interface {
	Stream(ctx context.Context, req Request, emit func(Event)) (Response, error)
}

// ErrAuth is a provider refusing the key (401/403): not retried.
var ErrAuth = errors.New("the provider refused the API key")

// ErrStalled is a call that received nothing for its idle timeout: retried
// as a dropped connection, and also after part of the answer was emitted.
var ErrStalled = errors.New("the provider stalled")

// ErrEventTooLong is a stream event over MaxEventBytes: not retried.
var ErrEventTooLong = errors.New("a stream event is too long")

// Error is a call that failed: the provider's status and message, for the
// user. A Retryable error was retried until the attempts ran out, or came
// after part of the answer had been emitted; the caller may try the call
// again itself.
type Error struct {
	Status    int // HTTP status; 0 for an error inside a stream
	Message   string
	Retryable bool
	Cause     error // ErrStalled or ErrEventTooLong when it is one of them
}

func (e *Error) Error() string { return e.Message }

// Unwrap makes a 401 or 403 match ErrAuth with errors.Is, so the caller can
// name the variable that holds the refused key; a stall or an event too
// long matches its Cause.
func (e *Error) Unwrap() error {
	if e.Status == 401 || e.Status == 403 {
		return ErrAuth
	}
	return e.Cause
}
