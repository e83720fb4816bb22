// Package tcpcatch is a TCP listener on 127.0.0.1 that records what each
// connection sends: a test's stand-in for a server a sandboxed program might
// leak to. Received waits on an event, never on a clock: it connects once
// itself and collects until its own probe arrives, and since connections are
// accepted in the order they were made, one made earlier is never missed.
package tcpcatch

import (
	"io"
	"net"
	"strconv"
	"testing"
	"time"
)

// probe is what Received's own connection sends.
const probe = "tcpcatch-probe"

// Catcher is one listener and what it received.
type Catcher struct {
	ln   net.Listener
	got  chan string
	Port string
}

// Listen starts a catcher, closed when t ends.
func Listen(t testing.TB) *Catcher {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &Catcher{ln: ln, got: make(chan string, 64), Port: strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			b, _ := io.ReadAll(io.LimitReader(conn, 4096))
			conn.Close()
			c.got <- string(b)
		}
	}()
	return c
}

// Received is what every connection made before the call sent, in order.
func (c *Catcher) Received(t testing.TB) []string {
	t.Helper()
	conn, err := net.Dial("tcp4", "127.0.0.1:"+c.Port)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = conn.Write([]byte(probe))
	conn.Close()
	var out []string
	for {
		select {
		case s := <-c.got:
			if s == probe {
				return out
			}
			out = append(out, s)
		case <-time.After(10 * time.Second):
			t.Fatal("the catcher's own probe never arrived")
			return out
		}
	}
}
