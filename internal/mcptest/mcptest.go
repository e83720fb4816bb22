// Package mcptest is an MCP server built on the go-sdk's own server, for
// tests and benchmarks of tandem's MCP client and bridge. Its tools cover
// what the bridge must handle: a plain echo, a large result, a slow call, a
// tool error, a server that dies mid-call, and a child process that must be
// stopped with its server.
package mcptest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnvServe makes a test binary serve the test server on stdio instead of
// running its tests (see ServeIfAsked).
const EnvServe = "TANDEM_MCPTEST_SERVE"

// EchoArgs are the echo tool's arguments.
type EchoArgs struct {
	Message string `json:"message"`
}

// BigArgs ask for a result of Bytes bytes.
type BigArgs struct {
	Bytes int `json:"bytes"`
}

// SleepArgs ask for a call that takes Millis milliseconds.
type SleepArgs struct {
	Millis int `json:"millis"`
	// Started, when set, is a file created once the sleep began: a test
	// waits for it to know the call is running in the server.
	Started string `json:"started,omitempty"`
	// Cancelled, when set, is a file created when a cancel ended the
	// sleep: a test waits for it to know the server saw the cancel.
	Cancelled string `json:"cancelled,omitempty"`
}

// Await makes a FIFO for a tool to create as Started or Cancelled, and
// returns its path and a channel closed once the tool has written it.
// Opening a FIFO blocks until its other end is opened, so the test waits
// for the tool itself instead of polling for a file.
func Await(t testing.TB) (string, <-chan struct{}) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "await")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_, _ = os.ReadFile(path)
		close(done)
	}()
	return path, done
}

// Big is the deterministic content of a result of n bytes: lines of
// printable text, so a byte-for-byte comparison is easy to read when it fails.
func Big(n int) []byte {
	const line = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-tandem-mcp-result\n"
	b := make([]byte, n)
	for i := 0; i < n; i += len(line) {
		copy(b[i:], line)
	}
	return b
}

// New returns the server. Its tools are echo, big, sleep, fail, crash and
// spawn.
func New() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes the message back.\nSecond line."},
		func(_ context.Context, _ *mcp.CallToolRequest, a EchoArgs) (*mcp.CallToolResult, any, error) {
			return text(a.Message), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "Returns a text result of the given size."},
		func(_ context.Context, _ *mcp.CallToolRequest, a BigArgs) (*mcp.CallToolResult, any, error) {
			return text(string(Big(a.Bytes))), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Waits, then answers; a cancel ends it early."},
		func(ctx context.Context, _ *mcp.CallToolRequest, a SleepArgs) (*mcp.CallToolResult, any, error) {
			if a.Started != "" {
				if err := os.WriteFile(a.Started, nil, 0o644); err != nil {
					return nil, nil, err
				}
			}
			select {
			case <-time.After(time.Duration(a.Millis) * time.Millisecond):
				return text("slept"), nil, nil
			case <-ctx.Done():
				if a.Cancelled != "" {
					_ = os.WriteFile(a.Cancelled, nil, 0o644)
				}
				return nil, nil, ctx.Err()
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Reports a tool error."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			r := text("the tool failed on purpose")
			r.IsError = true
			return r, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Exits the server process mid-call."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "mcptest: crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "spawn", Description: "Starts a child process that sleeps, and returns its pid."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			c := exec.Command("sleep", "300")
			if err := c.Start(); err != nil {
				return nil, nil, err
			}
			go c.Wait()
			return text(fmt.Sprint(c.Process.Pid)), nil, nil
		})
	return s
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// ServeIfAsked serves the test server on stdio and exits when EnvServe is
// set; call it first in TestMain so the test binary can be its own server.
func ServeIfAsked() {
	if os.Getenv(EnvServe) == "" {
		return
	}
	if strings.Contains(os.Getenv(EnvServe), "fail-start") {
		fmt.Fprintln(os.Stderr, "mcptest: cannot start: configured to fail")
		os.Exit(2)
	}
	err := New().Run(context.Background(), &mcp.StdioTransport{})
	if err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}
