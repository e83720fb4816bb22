// Command tandem is the editor backend of an AI coding agent: `tandem lsp`
// serves one editor over stdio, `tandem tool` runs one tool from a terminal,
// `tandem mcp` serves and calls MCP tools, `tandem acp` is tandem's agent for
// ACP editors.
package main

import (
	"fmt"
	"os"
	"strings"
)

// command is one subcommand; each is defined in its own file.
type command struct {
	name    string
	usage   string // one line: "tandem NAME ARGS"
	summary string // one sentence for `tandem --help`
	help    string // the rest of `tandem NAME --help`
	run     func(args []string) int
}

// commands is every subcommand, in the order `tandem --help` lists them.
var commands = []command{acpCommand, chatCommand, demoCommand, doctorCommand, lspCommand, mcpCommand, replayCommand, toolCommand, versionCommand}

// commandNamed finds the subcommand called name.
func commandNamed(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// Exit codes shared by subcommands.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		if len(args) == 2 {
			if c, ok := commandNamed(args[1]); ok {
				printHelp(c)
				return exitOK
			}
		}
		printUsage()
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c, ok := commandNamed(args[0])
	if !ok {
		fmt.Fprintf(os.Stderr, "tandem: unknown command %q; run `tandem --help` for the list\n", args[0])
		return exitUsage
	}
	// `--help` anywhere among a command's own words (`tandem mcp serve
	// --help`, `tandem tool read --help`) asks for help; an argument that
	// merely contains it, such as a JSON object, does not.
	for _, a := range args[1:] {
		if a == "-h" || a == "--help" {
			printHelp(c)
			return exitOK
		}
	}
	return c.run(args[1:])
}

func printUsage() {
	fmt.Println("tandem — precise, gated tools for an AI coding agent inside your editor")
	fmt.Println()
	fmt.Println("Usage:")
	for _, c := range commands {
		fmt.Printf("  %-52s %s\n", c.usage, c.summary)
	}
	fmt.Println()
	fmt.Println("Run `tandem COMMAND --help` for details.")
}

func printHelp(c command) {
	fmt.Printf("Usage: %s\n\n%s\n", c.usage, c.summary)
	if h := strings.TrimSpace(c.help); h != "" {
		fmt.Printf("\n%s\n", h)
	}
}
