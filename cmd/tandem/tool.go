package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"

	"github.com/tandemdev/tandem/shell"
	"github.com/tandemdev/tandem/tools"
)

var toolCommand = command{
	name:    "tool",
	usage:   "tandem tool NAME [JSON | -]",
	summary: "Run one tool in a fresh standalone session on the current directory and print what the model would see.",
	help: `JSON is the tool's arguments as one object ("-" reads it from standard input;
omitted means {}). The exit status is 0 for a result, 1 for an error result,
2 for bad usage. "tandem tool" with no NAME lists the tools and their schemas.`,
	run: runTool,
}

func runTool(args []string) int {
	// What the initialisers read of the executable need not stay mapped:
	// the call holds only the pages it and the session's set-up run. Once,
	// here, before the set-up starts its goroutines: unmapping makes the
	// kernel stop every other CPU running one of this process's threads to
	// flush its TLB, a wait that grew with the machine's load; and each
	// release costs the re-mapping of what runs next.
	releaseExePages()
	// A person at a terminal answers questions; otherwise nobody can.
	s, err := standaloneSession("tandem tool", shell.TerminalAsker(os.Stdin, os.Stderr), true)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tandem tool:", err)
		return exitError
	}
	defer s.Close()
	if len(args) == 0 {
		for _, t := range tools.List(s) {
			fmt.Printf("%s\n  %s\n  schema: %s\n\n", t.Name, t.Description, t.InputSchema())
		}
		return exitOK
	}
	if len(args) > 2 {
		fmt.Fprintln(os.Stderr, "tandem tool: too many arguments; usage: tandem tool NAME [JSON | -]")
		return exitUsage
	}
	raw := json.RawMessage("{}")
	if len(args) == 2 {
		raw = json.RawMessage(args[1])
		if args[1] == "-" {
			b, err := io.ReadAll(os.Stdin)
			if err != nil {
				fmt.Fprintln(os.Stderr, "tandem tool: reading arguments:", err)
				return exitError
			}
			raw = b
		}
		if !json.Valid(raw) {
			fmt.Fprintln(os.Stderr, "tandem tool: the arguments are not valid JSON; pass one JSON object such as '{\"path\":\"README.md\"}'")
			return exitUsage
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	collectOftenAfterTheFirst()
	res := tools.Call(ctx, s, args[0], raw)
	fmt.Print(res.Text)
	if len(res.Text) > 0 && res.Text[len(res.Text)-1] != '\n' {
		fmt.Println()
	}
	if res.IsError {
		return exitError
	}
	return exitOK
}

// collectOftenAfterTheFirst makes the collector run at 30% growth from its
// first cycle on. One call and out: the heap's live part is small (a grep
// of a large tree keeps a page of names), so collecting often costs little
// time and keeps the process's peak memory near rg's (the last page of
// 37,004 names on the Linux tree: 16.6-17.0 MiB at 50%, 16.0-16.3 at 30%,
// in the same time). Not before the first cycle: the start's garbage (the
// initialisers' and the session's, ~1.5 MB) would pay for a collection of
// its own in a call too small to need one.
func collectOftenAfterTheFirst() {
	runtime.SetFinalizer(new([16]byte), func(*[16]byte) { debug.SetGCPercent(30) })
}
