package mcpclient

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// watchdog starts a watcher in the server's process group, then becomes
// the stdio server ("$@"). The watcher kills the group when fd 3 reaches end
// of file: only tandem holds that pipe's write end, so the kernel closes it
// when tandem exits in any way, SIGKILL included. A parent-death signal
// would reach only the direct child (npx, not the node it starts), depends
// on which OS thread started it, and does not exist on macOS. The watcher
// ignores SIGTERM, so a graceful stop can signal the whole group.
const watchdog = `trap '' TERM
{ read -r _ <&3; kill -KILL 0; } </dev/null >/dev/null 2>&1 &
trap - TERM
exec "$@" 3<&-`

// process is a running stdio server.
type process struct {
	cmd    *exec.Cmd
	dog    *os.File      // the watchdog pipe's write end: closing it kills the group
	exited chan struct{} // closed when the server exited
	tail   *tail
	once   sync.Once
}

// startProcess starts the server r names and returns the transport over its
// standard input and output. skipped gets each line of its output that is
// not a JSON-RPC message.
func startProcess(r resolved, skipped func(line []byte)) (*process, *mcp.IOTransport, error) {
	path := r.command
	if strings.ContainsRune(path, '/') && !filepath.IsAbs(path) {
		path = filepath.Join(r.cwd, path)
	}
	path, err := exec.LookPath(path)
	if err != nil {
		return nil, nil, err
	}
	var ends [8]*os.File // read, write of: stdin, stdout, stderr, watchdog
	for i := 0; i < len(ends); i += 2 {
		if ends[i], ends[i+1], err = os.Pipe(); err != nil {
			closeAll(ends[:i])
			return nil, nil, err
		}
	}
	cmd := exec.Command("/bin/sh", append([]string{"-c", watchdog, "sh", path}, r.args...)...)
	cmd.Dir = r.cwd
	cmd.Env = append(serverEnviron(), r.env...)
	// Its own process group, so stopping it stops the server's children too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = ends[0], ends[3], ends[5], []*os.File{ends[6]}
	err = cmd.Start()
	closeAll([]*os.File{ends[0], ends[3], ends[5], ends[6]}) // the child holds its own copies
	if err != nil {
		closeAll([]*os.File{ends[1], ends[2], ends[4], ends[7]})
		return nil, nil, err
	}
	p := &process{cmd: cmd, dog: ends[7], exited: make(chan struct{}), tail: newTail(ends[4])}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	out := &frames{r: bufio.NewReaderSize(ends[2], 64<<10), c: ends[2], skipped: skipped}
	return p, &mcp.IOTransport{Reader: out, Writer: ends[1]}, nil
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// stop ends a server that was serving: SIGTERM to its group (its input is
// already closed, the first step the MCP spec asks), then SIGKILL after
// grace if it has not exited.
func (p *process) stop(grace time.Duration) {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
	}
	p.kill()
}

// kill ends the server's process group at once.
func (p *process) kill() {
	p.once.Do(func() {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		p.dog.Close()
	})
}

// frames passes on a stdio server's output only its JSON-RPC messages. Some
// servers print a banner or log lines on standard output, and the go-sdk
// ends the session at the first line that is not one. As in the official
// TypeScript client, a line passes when it is one JSON object; here it must
// also be a JSON-RPC one, so a JSON log line is skipped too. A line longer
// than the buffer is a reply, not a log line: it passes unchecked when it
// starts as an object, so a large result is not decoded twice.
type frames struct {
	r       *bufio.Reader
	c       io.Closer
	skipped func(line []byte)
	pending []byte // the rest of a line that passes, in r's buffer
	long    int    // within a line longer than the buffer: passLong or dropLong
	err     error
}

const (
	passLong = 1 + iota
	dropLong
)

func (f *frames) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line, err := f.r.ReadSlice('\n')
		full := err == bufio.ErrBufferFull
		switch {
		case f.long != 0:
			if f.long == passLong {
				f.pending = line
			}
			if !full {
				f.long = 0
			}
		case full:
			if t := bytes.TrimLeft(line, " \t\r\n"); len(t) > 0 && t[0] == '{' {
				f.pending, f.long = line, passLong
			} else {
				f.skipped(line)
				f.long = dropLong
			}
		case isMessage(line):
			f.pending = line
		case len(bytes.TrimSpace(line)) > 0:
			f.skipped(line)
		}
		if err != nil && !full {
			f.err = err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *frames) Close() error { return f.c.Close() }

func isMessage(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) < 2 || t[0] != '{' || t[len(t)-1] != '}' {
		return false
	}
	var m struct {
		Version string `json:"jsonrpc"`
	}
	return json.Unmarshal(t, &m) == nil && m.Version == "2.0"
}
