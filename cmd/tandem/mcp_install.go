package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/mcpinstall"
)

const mcpInstallHelp = `tandem mcp install [--agent claude|codex|gemini|cursor|vscode|all]
                   [--scope project|user] [--remove]
    Adds tandem's MCP server ("tandem mcp serve") under the key "tandem" to
    each agent's own configuration, or with --remove takes out exactly that
    entry. --agent defaults to all, --scope to project:
      agent   project (the current directory)  user
      claude  .mcp.json                        ~/.claude.json
      codex   .codex/config.toml               ~/.codex/config.toml
      gemini  .gemini/settings.json            ~/.gemini/settings.json
      cursor  .cursor/mcp.json                 ~/.cursor/mcp.json
      vscode  .vscode/mcp.json                 ~/.config/Code/User/mcp.json
    A project entry runs "tandem" from PATH, since the files are shared with
    everyone who clones the workspace; a user entry runs this tandem by its
    absolute path, since agents started from a desktop launcher do not see
    the shell's PATH. Every other byte of a file stays as it was (comments
    and trailing commas too); a second run changes nothing; a file that does
    not parse, or a "tandem" entry tandem did not write, is skipped and left
    alone. No token is written. In project scope it also puts tandem's
    working rule in AGENTS.md in the workspace root, between
    <!-- tandem:begin --> and <!-- tandem:end -->, keeping the rest of the
    file (--remove leaves AGENTS.md as it is). One line per agent, then one
    for AGENTS.md, says what was done; the exit status is 1 when anything
    was skipped.`

func mcpInstall(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tandem mcp install", flag.ContinueOnError)
	fs.SetOutput(stderr)
	agentName := fs.String("agent", "all", "claude, codex, gemini, cursor, vscode or all")
	scopeName := fs.String("scope", string(mcpinstall.Project), "project or user")
	remove := fs.Bool("remove", false, "take tandem's entries out instead")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "tandem mcp install: "+format+"\n", a...)
		return code
	}
	if fs.NArg() > 0 {
		return fail(exitUsage, "unexpected %q; the options are --agent, --scope and --remove", fs.Arg(0))
	}
	agents := mcpinstall.Agents
	if *agentName != "all" {
		a, ok := mcpinstall.AgentNamed(*agentName)
		if !ok {
			return fail(exitUsage, "unknown agent %q; say claude, codex, gemini, cursor, vscode or all", *agentName)
		}
		agents = []mcpinstall.Agent{a}
	}
	scope := mcpinstall.Scope(*scopeName)
	if scope != mcpinstall.Project && scope != mcpinstall.User {
		return fail(exitUsage, "unknown scope %q; say project or user", *scopeName)
	}
	env, err := installEnv(scope, *remove, stderr)
	if err != nil {
		return fail(exitError, "%v", err)
	}
	code := exitOK
	for _, a := range agents {
		r := mcpinstall.Apply(a, scope, env, *remove)
		switch r.Action {
		case mcpinstall.Added:
			fmt.Fprintf(stdout, "%s: added to %s\n", r.Agent, r.Path)
		case mcpinstall.Updated:
			fmt.Fprintf(stdout, "%s: updated in %s (%s)\n", r.Agent, r.Path, r.Reason)
		case mcpinstall.Already, mcpinstall.NotThere:
			fmt.Fprintf(stdout, "%s: %s in %s\n", r.Agent, r.Action, r.Path)
		case mcpinstall.Removed:
			fmt.Fprintf(stdout, "%s: removed from %s\n", r.Agent, r.Path)
		case mcpinstall.Skipped:
			fmt.Fprintf(stdout, "%s: skipped: %s\n", r.Agent, r.Reason)
			code = exitError
		}
	}
	if scope == mcpinstall.Project && !*remove {
		r := mcpinstall.ApplyRule(env)
		if r.Action == mcpinstall.Skipped {
			fmt.Fprintf(stdout, "%s: skipped: %s\n", r.Agent, r.Reason)
			code = exitError
		} else {
			fmt.Fprintf(stdout, "%s: %s\n", r.Agent, r.Action)
		}
	}
	return code
}

// installEnv is where the files are and what the entry runs.
func installEnv(scope mcpinstall.Scope, remove bool, stderr io.Writer) (mcpinstall.Env, error) {
	env := mcpinstall.Env{Getenv: os.Getenv, Command: "tandem"}
	var err error
	if env.Home, err = config.Home(); err != nil {
		return env, err
	}
	if scope == mcpinstall.User {
		if !remove {
			env.Command, err = userCommand()
		}
		return env, err
	}
	if env.Root, err = os.Getwd(); err != nil {
		return env, err
	}
	// There the project files would be the user's own (~/.gemini/settings.json).
	if env.Root == env.Home || env.Root == "/" {
		return env, fmt.Errorf("%s is not a workspace; run it in the workspace's root directory, or say --scope user", env.Root)
	}
	if _, err := exec.LookPath("tandem"); err != nil && !remove {
		fmt.Fprintln(stderr, "tandem mcp install: note: no tandem on PATH here, and the project entries run it from PATH; install it (go install ./cmd/tandem) before starting the agents")
	}
	return env, nil
}

// userCommand is the absolute path of this tandem, as PATH names it when
// PATH finds this very program (a package manager's stable link rather than
// the versioned file behind it).
func userCommand() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	if strings.Contains(self, string(filepath.Separator)+"go-build") {
		return "", errors.New("this tandem is a temporary `go run` build that will be gone; build or install tandem (go install ./cmd/tandem) and run that one")
	}
	if p, err := exec.LookPath("tandem"); err == nil {
		if abs, err := filepath.Abs(p); err == nil && sameFile(abs, self) {
			return abs, nil
		}
	}
	return self, nil
}

func sameFile(a, b string) bool {
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}
