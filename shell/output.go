package shell

import (
	"fmt"
	"os"
	"sync"
)

// DefaultOutputCap is how many bytes of a script's output a result keeps
// when the caller sets no cap: the first half and the last half.
const DefaultOutputCap = 32 << 10

// capture is a script's combined stdout and stderr. Steps write into an OS
// pipe (so an external process writes straight to it, with no copying
// goroutine per process); one reader keeps the head and the tail within the
// cap and counts every byte it drops, as the bytes arrive.
type capture struct {
	w    *os.File // the write end every step shares
	r    *os.File
	done chan struct{}

	mu      sync.Mutex
	head    []byte
	tail    []byte // ring of the last tailCap bytes
	tailAt  int    // next write position in tail once full
	tailCap int
	headCap int
	total   int64
}

func newCapture(limit int) (*capture, error) {
	if limit <= 0 {
		limit = DefaultOutputCap
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c := &capture{w: w, r: r, done: make(chan struct{}), headCap: limit - limit/2, tailCap: limit / 2}
	go c.read()
	return c, nil
}

func (c *capture) read() {
	defer close(c.done)
	buf := make([]byte, 32<<10)
	for {
		n, err := c.r.Read(buf)
		if n > 0 {
			c.add(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (c *capture) add(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	if room := c.headCap - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 && c.tailCap > 0 {
		if len(c.tail) < c.tailCap {
			k := min(c.tailCap-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		if len(p) >= c.tailCap {
			copy(c.tail, p[len(p)-c.tailCap:])
			c.tailAt = 0
			return
		}
		k := copy(c.tail[c.tailAt:], p)
		c.tailAt = (c.tailAt + k) % c.tailCap
		p = p[k:]
	}
}

// Output is what a result keeps of a script's output.
type Output struct {
	Text    string // head, a marker line when bytes were dropped, tail
	Total   int64  // every byte the script wrote
	Dropped int64  // bytes between the head and the tail that the result does not hold
}

// snapshot is the output so far; safe while steps still write.
func (c *capture) snapshot() Output {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := make([]byte, 0, len(c.tail))
	tail = append(tail, c.tail[c.tailAt:]...)
	tail = append(tail, c.tail[:c.tailAt]...)
	kept := int64(len(c.head) + len(tail))
	o := Output{Total: c.total, Dropped: c.total - kept}
	if o.Dropped == 0 {
		o.Text = string(c.head) + string(tail)
		return o
	}
	o.Text = string(c.head) + fmt.Sprintf("\n[… %d bytes of output dropped here …]\n", o.Dropped) + string(tail)
	return o
}

// closeWriter closes tandem's copy of the write end; the reader ends once
// every process holding a copy has exited.
func (c *capture) closeWriter() { c.w.Close() }

// finish waits for the reader to see the end of the output, at most until
// give ends, then stops reading.
func (c *capture) finish(give <-chan struct{}) {
	select {
	case <-c.done:
	case <-give:
		c.r.Close()
		<-c.done
	}
	c.r.Close()
}
