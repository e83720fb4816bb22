package acptest

import (
	"context"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"
)

// Client is an ACP client for tests, under acp-go-sdk's client connection:
// it records every session update and permission request, and answers
// the requests with Answer. It offers no terminals.
type Client struct {
	// Answer answers a permission request; nil answers "cancelled".
	Answer func(ctx context.Context, p acp.RequestPermissionRequest) acp.RequestPermissionResponse
	// Files serves fs/read_text_file and fs/write_text_file; nil answers
	// them method not found.
	Files *Editor

	mu      sync.Mutex
	updates []acp.SessionUpdate
	asked   []acp.RequestPermissionRequest
}

var _ acp.Client = (*Client)(nil)

// Select is an Answer choosing the option with id.
func Select(id string) func(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
	return func(context.Context, acp.RequestPermissionRequest) acp.RequestPermissionResponse {
		return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{
			Selected: &acp.RequestPermissionOutcomeSelected{OptionId: acp.PermissionOptionId(id)}}}
	}
}

// Cancelled is the outcome a client sends for a request it will not answer.
func Cancelled() acp.RequestPermissionResponse {
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}
}

func (c *Client) RequestPermission(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, p)
	answer := c.Answer
	c.mu.Unlock()
	if answer == nil {
		return Cancelled(), nil
	}
	return answer(ctx, p), nil
}

func (c *Client) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n.Update)
	c.mu.Unlock()
	return nil
}

// Updates is every update received so far, in order.
func (c *Client) Updates() []acp.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acp.SessionUpdate(nil), c.updates...)
}

// Asked is every permission request received so far, in order.
func (c *Client) Asked() []acp.RequestPermissionRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acp.RequestPermissionRequest(nil), c.asked...)
}

// Text is the agent's message chunks so far, joined.
func (c *Client) Text() string {
	var b strings.Builder
	for _, u := range c.Updates() {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// Statuses is the status of tool call id in each update that set one.
func (c *Client) Statuses(id string) []acp.ToolCallStatus {
	var out []acp.ToolCallStatus
	for _, u := range c.Updates() {
		switch {
		case u.ToolCall != nil && string(u.ToolCall.ToolCallId) == id:
			out = append(out, u.ToolCall.Status)
		case u.ToolCallUpdate != nil && string(u.ToolCallUpdate.ToolCallId) == id && u.ToolCallUpdate.Status != nil:
			out = append(out, *u.ToolCallUpdate.Status)
		}
	}
	return out
}

func (c *Client) ReadTextFile(_ context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	if c.Files == nil {
		return acp.ReadTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsReadTextFile)
	}
	text, err := c.Files.read(p.SessionId, p.Path)
	return acp.ReadTextFileResponse{Content: text}, err
}

func (c *Client) WriteTextFile(_ context.Context, p acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	if c.Files == nil {
		return acp.WriteTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsWriteTextFile)
	}
	return acp.WriteTextFileResponse{}, c.Files.write(p.SessionId, p.Path, p.Content)
}

func (c *Client) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalCreate)
}

func (c *Client) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalKill)
}

func (c *Client) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalOutput)
}

func (c *Client) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalRelease)
}

func (c *Client) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalWaitForExit)
}
