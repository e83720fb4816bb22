package providers_test

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/scripted"
)

// pipeNet is a listener whose connections are net.Pipe pairs made by its
// dial. A test in a synctest bubble serves over it: a goroutine blocked
// on a real socket is not durably blocked, and would keep the bubble's
// fake clock from moving.
type pipeNet struct {
	conns     chan net.Conn
	closed    chan struct{}
	closeOnce sync.Once
}

func newPipeNet() *pipeNet {
	return &pipeNet{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (p *pipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.closed:
		return nil, net.ErrClosed
	}
}

func (p *pipeNet) Close() error {
	p.closeOnce.Do(func() { close(p.closed) })
	return nil
}

func (p *pipeNet) Addr() net.Addr { return pipeAddr{} }

// dial hands the server one end of a new pipe and returns the other.
func (p *pipeNet) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case p.conns <- server:
		return client, nil
	case <-p.closed:
		return nil, &net.OpError{Op: "dial", Net: "pipe", Err: net.ErrClosed}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "scripted.test" }

// servePiped is serve over a pipeNet, for a test in a synctest bubble; the
// HTTP client returned is the only one that reaches the server.
func servePiped(t *testing.T, f scripted.Format, responses ...scripted.Response) (*scripted.Server, *http.Client) {
	t.Helper()
	ln := newPipeNet()
	s, err := scripted.Serve(scripted.Script{Format: f, Responses: responses}, ln)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{DialContext: ln.dial}
	t.Cleanup(func() {
		s.Close()
		tr.CloseIdleConnections()
	})
	return s, &http.Client{Transport: tr}
}

// clientOverIdle is a client through hc whose calls count as dropped
// after idle without a byte, retried that many times (-1: never).
func clientOverIdle(hc *http.Client, f scripted.Format, url string, idle time.Duration, retries int) providers.Provider {
	if f == scripted.Anthropic {
		return providers.NewAnthropic(providers.AnthropicOptions{URL: url, MaxRetries: retries, HTTPClient: hc, IdleTimeout: idle})
	}
	return providers.NewOpenAIChat(providers.OpenAIOptions{URL: url, MaxRetries: retries, HTTPClient: hc, IdleTimeout: idle})
}
