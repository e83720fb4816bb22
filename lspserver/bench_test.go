package lspserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// BenchmarkServerDidChange10k sends 10,000 incremental didChange
// notifications over the wire, framed as an editor frames them, to a server
// holding a 1 KiB or a 1 MiB document, then one request that must see them
// all. scripts/bench reports the 1 MiB / 1 KiB ratio (it must stay ≤ 3×).
func BenchmarkServerDidChange10k(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) {
			line := "the quick brown fox jumps over the lazy dog 0123456789 é😀\n"
			text := strings.Repeat(line, size/len(line)+1)[:size]
			lines := strings.Count(text, "\n")
			uri := "file:///bench/doc.txt"
			// The editor's frames are prepared before the clock starts.
			var frames [][]byte
			for i := range 10_000 {
				p := map[string]int{"line": i * 7919 % lines, "character": i % 40}
				end, insert := p, "x"
				if i%2 == 1 {
					end, insert = map[string]int{"line": p["line"], "character": p["character"] + 1}, ""
				}
				body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
					"textDocument":   map[string]any{"uri": uri, "version": i + 2},
					"contentChanges": []any{map[string]any{"range": map[string]any{"start": p, "end": end}, "text": insert}},
				}})
				frames = append(frames, frame(body))
			}
			sync := frame([]byte(`{"jsonrpc":"2.0","id":1,"method":"tandem/listTools","params":{}}`))
			for b.Loop() {
				b.StopTimer()
				toServer, in := io.Pipe()
				outR, out := io.Pipe()
				done := make(chan int)
				go func() { done <- Serve(context.Background(), toServer, out, Options{Cwd: "/bench"}) }()
				r := bufio.NewReader(outR)
				opened := make(chan struct{})
				go func() {
					defer close(opened)
					init, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{"capabilities": map[string]any{}}})
					open, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": map[string]any{
						"textDocument": map[string]any{"uri": uri, "version": 1, "text": text}}})
					_, _ = in.Write(frame(init))
					_, _ = in.Write(frame(open))
				}()
				if _, err := readFrame(r); err != nil {
					b.Fatal(err)
				}
				<-opened
				w := bufio.NewWriterSize(in, 1<<16)
				b.StartTimer()
				go func() {
					for _, f := range frames {
						_, _ = w.Write(f)
					}
					_, _ = w.Write(sync)
					_ = w.Flush()
				}()
				if _, err := readFrame(r); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				_ = in.Close()
				<-done
				b.StartTimer()
			}
		})
	}
}
