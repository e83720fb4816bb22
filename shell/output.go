package shell

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"reflect"
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
	hide *hider // keeps the session's credentials out of what is kept

	mu      sync.Mutex
	head    []byte
	tail    []byte // ring of the last tailCap bytes
	tailAt  int    // next write position in tail once full
	tailCap int
	headCap int
	total   int64
	lines   int64 // newlines in every byte the script wrote
}

func newCapture(limit int, hide *hider) (*capture, error) {
	if limit <= 0 {
		limit = DefaultOutputCap
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c := &capture{w: w, r: r, done: make(chan struct{}), hide: hide, headCap: limit - limit/2, tailCap: limit / 2}
	go c.read()
	return c, nil
}

func (c *capture) read() {
	defer close(c.done)
	buf := make([]byte, 32<<10)
	var held []byte // the start of a value to hide, cut short so far
	for {
		n, err := c.r.Read(buf)
		switch {
		case n > 0 && c.hide == nil:
			c.add(buf[:n])
		case n > 0:
			var shown []byte
			shown, held = c.hide.scan(append(held, buf[:n]...), false)
			c.add(shown)
		}
		if err != nil {
			shown, _ := c.hide.scan(held, true)
			c.add(shown)
			return
		}
	}
}

func (c *capture) add(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += int64(len(p))
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
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
	Text    string `json:"text"`    // head, a marker line when bytes were dropped, tail
	Total   int64  `json:"total"`   // every byte the script wrote (a hidden value counted as its marker)
	Dropped int64  `json:"dropped"` // bytes between the head and the tail that the result does not hold
	// DroppedLines counts the line endings among the dropped bytes.
	DroppedLines int64 `json:"droppedLines,omitempty"`
}

// snapshot returns the output so far; it is safe while steps still write.
func (c *capture) snapshot() Output {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := make([]byte, 0, len(c.tail))
	tail = append(tail, c.tail[c.tailAt:]...)
	tail = append(tail, c.tail[:c.tailAt]...)
	kept := int64(len(c.head) + len(tail))
	o := Output{Total: c.total, Dropped: c.total - kept}
	o.DroppedLines = c.lines - int64(bytes.Count(c.head, []byte{'\n'})+bytes.Count(tail, []byte{'\n'}))
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

// outFiles are the stdout and stderr a process gets. Given a writer that is
// not a file (a command substitution's), exec.Cmd would copy it itself, and
// its Wait would then wait for every holder of the pipe, including a
// process that escaped the run's groups, whatever the run's context says;
// a stopped run would hang as long as such a process lives. So tandem
// copies instead: it waits for the end of the output as a shell does, and
// stops waiting when the run is stopped.
type outFiles struct {
	stdout, stderr io.Writer
	ends           []*os.File // tandem's copies of the write ends
	copies         []outCopy
}

type outCopy struct {
	r    *os.File
	done chan struct{}
}

func newOutFiles(stdout, stderr io.Writer) (*outFiles, error) {
	o := &outFiles{}
	var err error
	if o.stdout, err = o.file(stdout); err != nil {
		o.started()
		o.wait(context.Background())
		return nil, err
	}
	if sameWriter(stdout, stderr) {
		o.stderr = o.stdout
	} else if o.stderr, err = o.file(stderr); err != nil {
		o.started()
		o.wait(context.Background())
		return nil, err
	}
	return o, nil
}

// sameWriter reports whether a and b are one writer (2>&1), without
// comparing values whose type cannot be compared.
func sameWriter(a, b io.Writer) bool {
	return a != nil && b != nil && reflect.TypeOf(a) == reflect.TypeOf(b) && reflect.TypeOf(a).Comparable() && a == b
}

func (o *outFiles) file(w io.Writer) (io.Writer, error) {
	if w == nil {
		return nil, nil
	}
	if _, ok := w.(*os.File); ok {
		return w, nil
	}
	r, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	c := outCopy{r: r, done: make(chan struct{})}
	go func() {
		_, _ = io.Copy(w, r)
		close(c.done)
	}()
	o.ends = append(o.ends, pw)
	o.copies = append(o.copies, c)
	return pw, nil
}

// started closes tandem's copies of the write ends once the process has
// its own (or failed to start): the output ends when the process's do.
func (o *outFiles) started() {
	for _, f := range o.ends {
		_ = f.Close()
	}
	o.ends = nil
}

// wait waits for the output to end, or for ctx to be done.
func (o *outFiles) wait(ctx context.Context) {
	o.started()
	for _, c := range o.copies {
		select {
		case <-c.done:
		case <-ctx.Done():
			_ = c.r.Close() // ends the copy's Read
			<-c.done
		}
		_ = c.r.Close()
	}
}
