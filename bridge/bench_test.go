package bridge

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/internal/mcptest"
	"github.com/tandemdev/tandem/mcpclient"
)

// The benchmarks behind scripts/bench. Each compares the bridge with what a
// user would otherwise run: a direct in-process go-sdk call of the same
// tool, the process start of the client alone, and `cat` of a file as
// large as the result. scripts/bench prints the ratios.

// benchBridge hosts a bridge over the go-sdk's test server in this process.
func benchBridge(b *testing.B) (Env, []string, string) {
	b.Helper()
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(rt) })
	b.Setenv("XDG_RUNTIME_DIR", rt)
	def := inProcessServer(b)
	cfg := mcpclient.Config{Servers: map[string]mcpclient.Def{"t": def}}
	br, err := New(mcpclient.NewManager(cfg, mcpclient.Options{}), Settings{AutoAllow: []string{"t/*"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(br.Close)
	reg, err := br.AddOwner(Owner{Session: "bench", Asker: approvals.Nobody})
	if err != nil {
		b.Fatal(err)
	}
	return envOf(reg), reg.Env(), def.URL
}

// tandemBinary is the tandem to run as the client: $TANDEM_BIN (scripts/bench
// passes .deps/bin/tandem), else a fresh build.
func tandemBinary(b *testing.B) string {
	if p := os.Getenv("TANDEM_BIN"); p != "" {
		return p
	}
	p := filepath.Join(b.TempDir(), "tandem")
	if out, err := exec.Command("go", "build", "-o", p, "github.com/tandemdev/tandem/cmd/tandem").CombinedOutput(); err != nil {
		b.Fatalf("building tandem: %v\n%s", err, out)
	}
	return p
}

// directClient is the baseline: a go-sdk client in this process calling the
// same in-process server the bridge calls, with no bridge between.
func directClient(b *testing.B, url string) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// interleaved runs each named way once per round, in turn, so the load of a
// shared machine falls on all of them alike, and reports each one's median
// in milliseconds as a metric.
func interleaved(b *testing.B, rounds int, ways []string, run func(way string)) {
	times := make(map[string][]float64)
	for _, w := range ways {
		run(w) // warm up: connections, page cache, the server started
	}
	b.ResetTimer()
	for b.Loop() {
		for range rounds {
			for _, w := range ways {
				t0 := time.Now()
				run(w)
				times[w] = append(times[w], float64(time.Since(t0).Microseconds())/1000)
			}
		}
	}
	for _, w := range ways {
		ts := times[w]
		sort.Float64s(ts)
		b.ReportMetric(ts[len(ts)/2], w+"-ms")
	}
}

// BenchmarkEchoRoundTrip compares a direct in-process go-sdk call of echo,
// the same call through the bridge's socket from this process, the real
// `tandem mcp call` process, and that process's start alone (`tandem
// version`): the bridge's overhead beyond the start is client - start.
func BenchmarkEchoRoundTrip(b *testing.B) {
	bin := tandemBinary(b)
	env, envs, url := benchBridge(b)
	cs := directClient(b, url)
	args := json.RawMessage(`{"message":"hi"}`)
	req := Request{Op: OpCall, Tool: "t/echo", Args: args}
	interleaved(b, 40, []string{"direct", "socket", "client", "start"}, func(way string) {
		switch way {
		case "direct":
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		case "socket":
			if h, _, err := Send(context.Background(), env, req); err != nil || h.Status != StatusOK {
				b.Fatal(h, err)
			}
		case "client":
			cmd := exec.Command(bin, "mcp", "call", "t/echo", `{"message":"hi"}`)
			cmd.Env = append(os.Environ(), envs...)
			if out, err := cmd.Output(); err != nil || string(out) != "hi" {
				b.Fatalf("%q %v", out, err)
			}
		case "start":
			if err := exec.Command(bin, "version").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkThroughput8Callers runs 8 callers in a loop for
// $TANDEM_BENCH_SECONDS (10 by default) and reports calls per second and
// the live heap after the first second and at the end: flat memory means
// nothing accumulates per call.
func BenchmarkThroughput8Callers(b *testing.B) {
	env, _, _ := benchBridge(b)
	secs := 10
	if s, err := strconv.Atoi(os.Getenv("TANDEM_BENCH_SECONDS")); err == nil && s > 0 {
		secs = s
	}
	req := Request{Op: OpCall, Tool: "t/echo", Args: json.RawMessage(`{"message":"hi"}`)}
	heap := func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc) / (1 << 20)
	}
	for b.Loop() {
		var calls, busy atomic.Int64
		stop := time.Now().Add(time.Duration(secs) * time.Second)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(stop) {
					h, _, err := Send(context.Background(), env, req)
					switch {
					case err != nil:
						b.Error(err)
						return
					case h.Status == StatusOK:
						calls.Add(1)
					case h.Status == StatusBusy:
						busy.Add(1)
					}
				}
			}()
		}
		time.Sleep(time.Second)
		early := heap()
		wg.Wait()
		late := heap()
		b.ReportMetric(float64(calls.Load())/float64(secs), "calls/s")
		b.ReportMetric(float64(busy.Load()), "busy")
		b.ReportMetric(early, "heapMiB@1s")
		b.ReportMetric(late, "heapMiB@end")
	}
}

const bigResult = 10 << 20

// heldResult is an MCP side whose one tool returns a result already in
// memory: with it, a benchmark measures what the bridge itself adds (the
// socket, the client process, the write to the file) apart from any MCP
// server's JSON work.
type heldResult struct{ data []byte }

func (h heldResult) Config() mcpclient.Config {
	return mcpclient.Config{Servers: map[string]mcpclient.Def{"t": {Name: "t"}}}
}
func (h heldResult) Tools(context.Context, string) ([]*mcp.Tool, error) {
	return []*mcp.Tool{{Name: "big"}}, nil
}
func (h heldResult) Check(context.Context, string, string) error { return nil }
func (h heldResult) Call(context.Context, string, string, json.RawMessage) (mcpclient.Result, error) {
	return mcpclient.Result{Bytes: h.data}, nil
}
func (h heldResult) Close() {}

// BenchmarkResult10MiB compares a 10 MiB result written to a file by
// `tandem mcp call` with `cat` of a 10 MiB file into a file: "bridge" with
// the result already in the bridge's memory (the bridge's own cost),
// "end-to-end" from the go-sdk's test server in process, and "direct" that
// server called by an in-process go-sdk client with no bridge (the MCP
// JSON work any MCP client pays).
func BenchmarkResult10MiB(b *testing.B) {
	bin := tandemBinary(b)
	_, envs, url := benchBridge(b)
	cs := directClient(b, url)
	held, err := New(heldResult{mcptest.Big(bigResult)}, Settings{AutoAllow: []string{"t/*"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(held.Close)
	hreg, err := held.AddOwner(Owner{Session: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	src, out := filepath.Join(dir, "src"), filepath.Join(dir, "out")
	if err := os.WriteFile(src, mcptest.Big(bigResult), 0o644); err != nil {
		b.Fatal(err)
	}
	// The process's own CPU time (user + system) beside the wall time: on a
	// loaded machine the wall time of a multi-threaded process waits for
	// cores, its CPU time does not.
	cpu := map[string][]float64{}
	toFile := func(way string, cmd *exec.Cmd) {
		f, err := os.Create(out)
		if err != nil {
			b.Fatal(err)
		}
		cmd.Stdout = f
		err = cmd.Run()
		f.Close()
		if fi, _ := os.Stat(out); err != nil || fi.Size() != bigResult {
			b.Fatalf("%v, %d bytes", err, fi.Size())
		}
		ps := cmd.ProcessState
		cpu[way] = append(cpu[way], float64((ps.UserTime()+ps.SystemTime()).Microseconds())/1000)
	}
	defer func() {
		for _, way := range []string{"cat", "bridge"} {
			ts := cpu[way]
			sort.Float64s(ts)
			b.ReportMetric(ts[len(ts)/2], way+"-cpu-ms")
		}
	}()
	args := `{"bytes":` + strconv.Itoa(bigResult) + `}`
	call := func(env []string) *exec.Cmd {
		cmd := exec.Command(bin, "mcp", "call", "t/big", args)
		cmd.Env = append(os.Environ(), env...)
		return cmd
	}
	interleaved(b, 5, []string{"cat", "bridge", "end-to-end", "direct"}, func(way string) {
		switch way {
		case "cat":
			toFile(way, exec.Command("cat", src))
		case "bridge":
			toFile(way, call(hreg.Env()))
		case "end-to-end":
			toFile(way, call(envs))
		case "direct":
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "big", Arguments: json.RawMessage(args)}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
