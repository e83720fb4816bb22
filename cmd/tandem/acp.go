package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	acpserver "github.com/tandemdev/tandem/acpserver"
	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/config"
)

var acpCommand = command{
	name:    "acp",
	usage:   "tandem acp [--log FILE] [--log-level LEVEL]",
	summary: "Serve one ACP client (Zed, JetBrains, CodeCompanion, avante…) over stdio as tandem's own agent; ACP editors start this.",
	help: `Speaks the Agent Client Protocol v1 (newline-delimited JSON-RPC) on
standard input and output; see docs/protocol.md. Each ACP session is a
tandem chat on the session's cwd, with the user's own settings
($XDG_CONFIG_HOME/tandem/config.json): the model is agent.model, its key
comes from the environment. Problems with the settings are written to
standard error. Chats are kept in $XDG_STATE_HOME/tandem/chats, where
tandem lsp keeps them too, so a client can list and reopen them.

Logs go to FILE, by default $XDG_STATE_HOME/tandem/acp.log
(~/.local/state/tandem/acp.log); "-" means standard error. LEVEL is debug,
info (the default), warn or error. Logs name methods, sessions and stop
reasons, never prompts, file contents or keys.

tandem acp ends when its standard input closes, and every process its
sessions started ends with it. The exit status is 0 then, 2 for bad usage.`,
	run: runACP,
}

// connectModel reaches every chat's model `tandem acp` starts. It is a
// variable so this package's tests can run tandem with a model of their own.
var connectModel agent.Connector = agent.Connect

func runACP(args []string) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	logPath := fs.String("log", defaultLog("acp.log"), "")
	level := fs.String("log-level", "info", "")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if err == nil {
			err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
		fmt.Fprintf(os.Stderr, "tandem acp: %v; run `tandem acp --help`\n", err)
		return exitUsage
	}
	log, _, closeLog, ok := commandLog("tandem acp", *logPath, *level)
	if !ok {
		return exitUsage
	}
	defer closeLog()
	// A client that went away leaves stdout a broken pipe: the write must
	// fail rather than SIGPIPE kill tandem and orphan its sessions'
	// processes.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log.Info("tandem acp starting", "version", tandemVersion())
	// Chats are kept where every door keeps them, so each lists and
	// loads them.
	store, err := agent.UserStore()
	if err != nil {
		log.Warn("chats are not kept", "err", err)
		store = nil
	}
	acpserver.Serve(ctx, os.Stdin, os.Stdout, acpserver.Options{
		Log: log, Version: tandemVersion(), Connect: connectModel, Store: store,
		Settings: func() *config.Settings {
			st := userSettings("tandem acp")
			for _, p := range agent.SettingsProblems(st) {
				fmt.Fprintln(os.Stderr, "tandem acp:", p)
			}
			return st
		},
	})
	log.Info("tandem acp exiting")
	return exitOK
}
