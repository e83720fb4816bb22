package lspserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/internal/procstatus"
)

// soakSeconds is how long TestSoak runs: TANDEM_SOAK_SECONDS, else a size
// that fits the test run (the README gives the command for minutes).
func soakSeconds() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("TANDEM_SOAK_SECONDS")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 12 * time.Second
}

// TestSoak holds one connection under the load an agent puts on it for a
// long time: four sessions reading, grepping, editing and running bash
// steps, the editor typing 100 changes a second, sessions closed and opened
// again. A small read stays responsive meanwhile (its p50 and p99 are
// logged), and at the end, every session closed, the goroutines, open file
// descriptors and child processes are back where they started, and the
// mirrored buffer holds exactly what was typed.
func TestSoak(t *testing.T) {
	ws := bigWorkspace(t)
	for i := range 4 {
		if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("own%d.txt", i)), []byte("counter 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goroutines, fds, children, heap := runtime.NumGoroutine(), openFDs(t), childProcesses(t), heapInUse()

	c, code := inProcessWith(t, Options{Cwd: ws})
	initialized(t, c, nil)
	deadline := time.Now().Add(soakSeconds())
	call := func(method string, params any) (msg, bool) {
		select {
		case m := <-c.start(c.freshID(), method, params):
			return m, true
		case <-time.After(60 * time.Second):
			t.Errorf("no answer to %s within 60 s", method)
			return msg{}, false
		}
	}
	tool := func(session, name string, args any) (string, bool) {
		m, ok := call("tandem/callTool", map[string]any{"session": session, "name": name, "arguments": args})
		if !ok || m.Error != nil {
			t.Errorf("%s: %+v", name, m.Error)
			return "", false
		}
		var res struct {
			Content []struct{ Text string }
			IsError bool
		}
		_ = json.Unmarshal(m.Result, &res)
		if len(res.Content) != 1 {
			t.Errorf("%s: %s", name, m.Result)
			return "", false
		}
		return res.Content[0].Text, !res.IsError
	}
	open := func() string {
		m, _ := call("tandem/openSession", map[string]any{})
		var s struct{ Session string }
		_ = json.Unmarshal(m.Result, &s)
		return s.Session
	}

	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := fmt.Sprintf("own%d.txt", i)
			for round := 0; time.Now().Before(deadline) && !t.Failed(); round++ {
				s := open()
				for step := 0; step < 10 && time.Now().Before(deadline); step++ {
					text, ok := tool(s, "read", map[string]any{"path": own})
					if !ok {
						return
					}
					tag := text[strings.Index(text, "#")+1 : strings.Index(text, "]")]
					if _, ok := tool(s, "edit", map[string]any{"files": []any{map[string]any{"path": own, "tag": tag,
						"ops": []any{map[string]any{"replace": "1", "text": fmt.Sprintf("counter %d.%d", round, step)}}}}}); !ok {
						t.Errorf("edit of %s refused", own)
						return
					}
					tool(s, "grep", map[string]any{"pattern": "consectetur", "path": fmt.Sprintf("d%02d", (round+step)%30)})
					tool(s, "glob", map[string]any{"pattern": "d1*/*.txt"})
					if out, ok := tool(s, "bash", map[string]any{"command": "echo soak | tr a-z A-Z"}); !ok || !strings.Contains(out, "SOAK") {
						t.Errorf("bash: %s", out)
						return
					}
				}
				call("tandem/closeSession", map[string]any{"session": s})
			}
		}()
	}

	// The editor types into one document, 100 changes a second.
	typed := filepath.Join(ws, "typed.txt")
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": "file://" + typed, "version": 1, "text": ""}})
	var want strings.Builder
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for v := 2; time.Now().Before(deadline); v++ {
			<-tick.C
			text := fmt.Sprintf("%d ", v)
			c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": "file://" + typed, "version": v},
				"contentChanges": []any{change(0, want.Len(), 0, want.Len(), text)}})
			want.WriteString(text)
		}
	}()

	// A small read, every 50 ms: how long the user's agent waits for one.
	probe := open()
	var waits []time.Duration
	for time.Now().Before(deadline) && !t.Failed() {
		start := time.Now()
		if _, ok := tool(probe, "read", map[string]any{"path": "d00/f0000.txt", "lines": "1-3"}); !ok {
			break
		}
		waits = append(waits, time.Since(start))
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()
	// The read's tag names exactly the text the mirror holds.
	if text, _ := tool(probe, "read", map[string]any{"path": "typed.txt"}); !strings.Contains(text, "[typed.txt#"+string(documents.TagOf([]byte(want.String())))+"]") {
		t.Errorf("the mirrored buffer is not what was typed (%d bytes typed)", want.Len())
	}
	call("tandem/closeSession", map[string]any{"session": probe})
	slices.Sort(waits)
	if len(waits) > 0 {
		t.Logf("small read under load: %d reads, p50 %v, p99 %v, max %v", len(waits),
			waits[len(waits)/2].Round(time.Microsecond), waits[len(waits)*99/100].Round(time.Microsecond), waits[len(waits)-1].Round(time.Microsecond))
	}
	t.Logf("peak RSS of the test process %s; the editor typed %d bytes, one change each 10 ms", peakRSS(t), want.Len())

	c.notify("exit", nil)
	<-code
	waitFlat := func(what string, now func() int, base int, slack int) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); now() > base+slack && time.Now().Before(end); {
			time.Sleep(50 * time.Millisecond)
		}
		if n := now(); n > base+slack {
			t.Errorf("%s: %d at the end, %d at the start", what, n, base)
		}
	}
	waitFlat("goroutines", runtime.NumGoroutine, goroutines, 4)
	waitFlat("open file descriptors", func() int { return openFDs(t) }, fds, 2)
	waitFlat("child processes", func() int { return childProcesses(t) }, children, 0)
	// Every session closed: what they remembered is garbage now.
	waitFlat("heap in use (MiB)", func() int { return heapInUse() >> 20 }, heap>>20, 16)
}

// heapInUse is the live heap after a collection.
func heapInUse() int {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int(m.HeapInuse)
}

// freshID is a request id no other request of c has.
func (c *rpc) freshID() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	return c.nextID
}

func openFDs(t *testing.T) int {
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

// childProcesses counts the live processes whose parent is this one.
func childProcesses(t *testing.T) int {
	dirs, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		t.Fatal(err)
	}
	self, n := strconv.Itoa(os.Getpid()), 0
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// The fields after the command's closing parenthesis: state, ppid, …
		fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(fields) > 1 && fields[1] == self && fields[0] != "Z" {
			n++
		}
	}
	return n
}

// peakRSS is this process's VmHWM.
func peakRSS(t *testing.T) string {
	kb, err := procstatus.KiB("VmHWM")
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d kB", kb)
}
