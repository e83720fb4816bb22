package mcpclient

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"time"
)

// tail keeps the last few KiB of a server's error output, so a server that
// fails to start can say why. The rest is discarded: a chatty server never
// blocks on a full pipe.
type tail struct {
	mu   sync.Mutex
	buf  []byte
	done chan struct{} // closed when the output ended
}

const tailSize = 4 << 10

func newTail(r io.ReadCloser) *tail {
	t := &tail{done: make(chan struct{})}
	go func() {
		defer close(t.done)
		defer r.Close()
		p := make([]byte, 4096)
		for {
			n, err := r.Read(p)
			t.mu.Lock()
			t.buf = append(t.buf, p[:n]...)
			if len(t.buf) > tailSize {
				t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailSize:]...)
			}
			t.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return t
}

// lastLine returns the last non-empty line the server wrote to its error
// output, once the output has ended (the server exited) or after a short
// wait.
func (t *tail) lastLine() string {
	select {
	case <-t.done:
	case <-time.After(500 * time.Millisecond): // a child of the server may hold it open
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(bytes.TrimSpace(t.buf), []byte("\n"))
	return strings.TrimSpace(string(lines[len(lines)-1]))
}
