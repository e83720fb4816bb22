package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/scripted"
	"github.com/tandemdev/tandem/tools"
)

// firstByteDirect is how long a plain HTTP client waits for the scripted
// stream's first text delta: the provider's own time, with nothing of
// tandem's in it.
func firstByteDirect(b *testing.B, url string) time.Duration {
	start := time.Now()
	body := `{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatal("the stream ended before a text delta")
		}
		if strings.Contains(line, "text_delta") {
			return time.Since(start)
		}
	}
}

// BenchmarkFirstChunk measures what tandem adds between the provider's
// first streamed text and the client's first agent_message_chunk: a turn
// through the real Anthropic client and the chat, side by side with a plain
// HTTP client reading the same scripted stream (goal: p50 under 2 ms).
func BenchmarkFirstChunk(b *testing.B) {
	const runs = 200
	var responses []scripted.Response
	for range 2 * runs {
		responses = append(responses, scripted.Response{Parts: []scripted.Part{{Text: "Hello"}, {Text: " there"}}})
	}
	srv, err := scripted.Start(scripted.Script{Format: scripted.Anthropic, Responses: responses})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	c := NewChat(Options{Session: tools.Open(tools.Options{Roots: []string{b.TempDir()}}),
		Provider: providers.NewAnthropic(providers.AnthropicOptions{URL: srv.URL()}), Endpoint: Endpoint{Provider: "scripted", Model: "m"}})
	defer c.Close()
	var added []time.Duration
	for b.Loop() {
		added = added[:0]
		for range runs / 2 {
			direct := firstByteDirect(b, srv.URL())
			start := time.Now()
			var first time.Duration
			_, err := c.Prompt(context.Background(), []acp.ContentBlock{acp.TextBlock("hi")}, func(u acp.SessionUpdate) {
				if u.AgentMessageChunk != nil && first == 0 {
					first = time.Since(start)
				}
			})
			if err != nil {
				b.Fatal(err)
			}
			added = append(added, first-direct)
		}
	}
	slices.Sort(added)
	b.ReportMetric(float64(added[len(added)/2].Microseconds())/1000, "ms-added-p50")
	b.ReportMetric(float64(added[len(added)*9/10].Microseconds())/1000, "ms-added-p90")
}

// BenchmarkTurnWith20ToolCalls measures a turn of 20 tool calls (reads,
// one a response, each event of a response 5 ms apart) against the scripted
// provider's own time for the same 21 responses read by a plain client
// (goal: under 5% more).
func BenchmarkTurnWith20ToolCalls(b *testing.B) {
	ws := b.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	script := func() scripted.Script {
		var rs []scripted.Response
		for range 20 {
			rs = append(rs, scripted.Response{Faults: scripted.Faults{DelayMs: 5}, Parts: []scripted.Part{{Text: "Reading."}, {Tool: &scripted.ToolCall{Name: "read", Input: json.RawMessage(`{"path":"a.txt"}`)}}}})
		}
		return scripted.Script{Format: scripted.Anthropic, Responses: append(rs, scripted.Response{Faults: scripted.Faults{DelayMs: 5}, Parts: []scripted.Part{{Text: "Done."}}})}
	}
	var direct, turn time.Duration
	for b.Loop() {
		srv, err := scripted.Start(script())
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for range 21 {
			readAll(b, srv.URL())
		}
		direct += time.Since(start)
		srv.Close()

		srv, err = scripted.Start(script())
		if err != nil {
			b.Fatal(err)
		}
		c := NewChat(Options{Session: tools.Open(tools.Options{Roots: []string{ws}}),
			Provider: providers.NewAnthropic(providers.AnthropicOptions{URL: srv.URL()}), Endpoint: Endpoint{Provider: "scripted", Model: "m"}})
		start = time.Now()
		if stop, err := c.Prompt(context.Background(), []acp.ContentBlock{acp.TextBlock("read it 20 times")}, func(acp.SessionUpdate) {}); err != nil || stop != acp.StopReasonEndTurn {
			b.Fatal(stop, err)
		}
		turn += time.Since(start)
		c.Close()
		srv.Close()
	}
	b.ReportMetric(float64(turn)/float64(direct), "x-provider-time")
}

// readAll reads one scripted response whole with a plain HTTP client.
func readAll(b *testing.B, url string) {
	resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","max_tokens":10,"stream":true,"messages":[]}`))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	for {
		if _, err := r.ReadString('\n'); err != nil {
			return
		}
	}
}

// BenchmarkChat500TurnsInMemory is the live heap of a loaded 500-turn chat
// (goal: under 50 MiB).
func BenchmarkChat500TurnsInMemory(b *testing.B) {
	s, id := storeWith(b, 1, 500)
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		c, err := ResumeChat(Options{Session: tools.Open(tools.Options{Roots: []string{b.TempDir()}}), Store: s, Endpoint: Endpoint{Provider: "test", Model: "m"}}, id)
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapInuse-before.HeapInuse)/(1<<20), "MiB-heap")
		runtime.KeepAlive(c)
		c.Close()
	}
}
