package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/tandemdev/tandem/agent"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/lspserver"
)

// maxLog is the size past which the log file is rotated at start.
const maxLog = 10 << 20

var lspCommand = command{
	name:    "lsp",
	usage:   "tandem lsp [--log FILE] [--log-level LEVEL]",
	summary: "Serve one editor over stdio (JSON-RPC with LSP framing); editors start this.",
	help: `The protocol is in docs/protocol.md. Logs go to FILE, by default
$XDG_STATE_HOME/tandem/lsp.log (~/.local/state/tandem/lsp.log); "-" means
standard error. LEVEL is debug, info (the default), warn or error. Logs name
methods, paths and timings, never file contents or secrets.

Settings are read from $XDG_CONFIG_HOME/tandem/config.json and from the
editor; see docs/settings.md. --stdio and --clientProcessId, which editors
pass by habit, are accepted and ignored.

The exit status is 0 after a shutdown request followed by exit, else 1.`,
	run: runLSP,
}

func runLSP(args []string) int {
	fs := flag.NewFlagSet("lsp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	logPath := fs.String("log", defaultLog("lsp.log"), "")
	level := fs.String("log-level", "info", "")
	fs.Bool("stdio", true, "")
	fs.String("clientProcessId", "", "")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if err == nil {
			err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
		}
		fmt.Fprintf(os.Stderr, "tandem lsp: %v; run `tandem lsp --help`\n", err)
		return exitUsage
	}
	log, shown, closeLog, ok := commandLog("tandem lsp", *logPath, *level)
	if !ok {
		return exitUsage
	}
	defer closeLog()

	settings := config.New()
	settingsErr := settings.LoadUser()
	if settingsErr != nil {
		log.Warn("user settings ignored", "err", settingsErr)
	}
	cwd, _ := os.Getwd()
	// An editor that went away leaves tandem's stdout a broken pipe: the
	// write must fail (and Serve shut down, ending every session's
	// processes) rather than SIGPIPE kill tandem and orphan them.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log.Info("tandem lsp starting", "version", tandemVersion())
	code := lspserver.Serve(ctx, os.Stdin, os.Stdout, lspserver.Options{
		Log: log, Settings: settings, SettingsErr: settingsErr, Cwd: cwd, Version: tandemVersion(), LogPath: shown,
		Connect: agent.Connect,
	})
	log.Info("tandem lsp exiting", "status", code)
	return code
}

// commandLog is a serving command's logger: to the file at path
// (rotated when large; "-" is standard error, never standard output: that
// is the protocol), at level. It returns the file's path, empty for
// standard error, and ok false after naming a bad level on standard error.
func commandLog(command, path, level string) (log *slog.Logger, shown string, closeLog func(), ok bool) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		fmt.Fprintf(os.Stderr, "%s: --log-level %q: use debug, info, warn or error\n", command, level)
		return nil, "", nil, false
	}
	out, shown, closeLog := openLog(command, path)
	return slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: lvl})).With("pid", os.Getpid()), shown, closeLog, true
}

// defaultLog is the log file name in tandem's state directory; "" (standard
// error) when there is no home.
func defaultLog(name string) string {
	if d := config.StateDir(); d != "" {
		return filepath.Join(d, name)
	}
	return ""
}

// openLog opens the log file for appending, rotating a large one, or falls
// back to standard error. It returns the file's path, empty for standard
// error. A log in a directory others can write is not opened: a link
// planted at its name would make tandem append to a file of the user's.
func openLog(command, path string) (io.Writer, string, func()) {
	if path == "-" || strings.TrimSpace(path) == "" {
		return os.Stderr, "", func() {}
	}
	err := config.MakePrivateDir(filepath.Dir(path))
	if err == nil {
		if fi, err := os.Stat(path); err == nil && fi.Size() > maxLog {
			_ = os.Rename(path, path+".1")
		}
		var f *os.File
		if f, err = os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			return f, path, func() { _ = f.Close() }
		}
	}
	fmt.Fprintf(os.Stderr, "%s: cannot write the log %s (%v); logging to standard error\n", command, path, err)
	return os.Stderr, "", func() {}
}
