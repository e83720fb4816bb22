package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/tandemdev/tandem/agent/providers/scripted"
)

var replayCommand = command{
	name:    "replay",
	usage:   "tandem replay [--listen ADDR] SCRIPT.json",
	summary: "Serve a scripted model on 127.0.0.1, so an editor's chat can be tried and tested with no model and no key.",
	help: `Serves SCRIPT.json (the scripted provider's format, described in
agent/providers/scripted) as a model provider: a real HTTP server on a free
port of 127.0.0.1 streaming each scripted response, in the Anthropic
Messages or the Chat Completions wire format, to each request in turn.
The script's format may also be one tandem's agent does not speak but
other agents do, to try them offline with tandem's MCP tools:
"openai-responses" (Codex: a model provider with base_url URL and
wire_api "responses") or "gemini" (Gemini CLI: GOOGLE_GEMINI_BASE_URL=URL).

--listen ADDR serves at ADDR instead of a free port: with an
"openai-chat" script, --listen 127.0.0.1:11434 stands in for a local
Ollama (it also answers GET /api/tags with the script's models, in
Ollama's shape, as editors probe for it).

Its first line on standard output is one JSON object,
  {"url": "http://127.0.0.1:PORT", "api": "anthropic"}
which a user config names as a provider:
  {"agent": {"model": "replay/any",
             "providers": {"replay": {"api": "anthropic", "url": "http://127.0.0.1:PORT"}}}}

It serves until its standard input closes or it is interrupted; the exit
status is then 0, 1 when the script cannot be read or served, 2 for bad
usage.`,
	run: runReplay,
}

func runReplay(args []string) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "the address to serve at")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	args = fs.Args()
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "tandem replay: give one script file; run `tandem replay --help`")
		return exitUsage
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "tandem replay: %v\n", err)
		return exitError
	}
	script, err := scripted.Parse(data)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tandem replay: %s: %v\n", args[0], err)
		return exitError
	}
	srv, err := scripted.Listen(script, *listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "tandem replay: %v\n", err)
		return exitError
	}
	defer srv.Close()
	line, _ := json.Marshal(map[string]string{"url": srv.URL(), "api": string(script.Format)})
	fmt.Println(string(line))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stdinClosed := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(stdinClosed)
	}()
	select {
	case <-ctx.Done():
	case <-stdinClosed:
	}
	return exitOK
}
