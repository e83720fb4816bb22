// Command tandem is the editor backend of an AI coding agent: `tandem lsp`
// serves one editor over stdio, `tandem tool` runs one tool from a terminal,
// `tandem mcp` serves and calls MCP tools.
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
)

// command is one subcommand. Each lives in its own file and adds itself in init.
type command struct {
	name    string
	usage   string // one line: "tandem NAME ARGS"
	summary string // one sentence for `tandem --help`
	help    string // the rest of `tandem NAME --help`
	run     func(args []string) int
}

var commands = map[string]command{}

func addCommand(c command) { commands[c.name] = c }

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
			if c, ok := commands[args[1]]; ok {
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
	c, ok := commands[args[0]]
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
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Println("tandem — precise, gated tools for an AI coding agent inside your editor")
	fmt.Println()
	fmt.Println("Usage:")
	for _, n := range names {
		fmt.Printf("  %-52s %s\n", commands[n].usage, commands[n].summary)
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
