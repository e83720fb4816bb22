package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/mcpclient"
	"github.com/tandemdev/tandem/sandbox"
	"github.com/tandemdev/tandem/tools"
)

var doctorCommand = command{
	name:    "doctor",
	usage:   "tandem doctor",
	summary: "Check what tandem needs on this machine and print what is missing, with the fix.",
	help: `Prints this tandem's version and path. Checks whether the tandem first on
PATH is another build, and, when an editor runs it (its terminal, or
:checkhealth tandem), whether the editor's plugin is of this build
(TANDEM_CLIENT_NAME and TANDEM_CLIENT_VERSION name it). Checks, for the
current directory as the workspace: the state directory
(logs, chats) is private and writable; where the user settings file is and
why there (with HOME unset, the passwd entry's home); that only you can have
written it and each directory on its way (else it is not read, and the check
names the entry that is another user's or writable by others); that it
parses; that the kernel can hold the programs of bash steps in the sandbox
(Landlock, or Seatbelt on macOS); that the files a chat reads can be
watched for changes by others (else they are checked by stat); that git is installed (tandem reads git's
global excludes file through it); and that the program of every configured
MCP server (such as npx) can be found. Prints one line per check; the exit
status is 1 when something needs fixing.`,
	run: runDoctor,
}

// check is one finding: ok, or a problem and the fix.
type check struct {
	name string
	ok   bool
	info string // what was found, or what is wrong
	fix  string
}

func runDoctor(args []string) int {
	if len(args) > 0 {
		fmt.Fprintln(os.Stderr, "tandem doctor: takes no arguments")
		return exitUsage
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tandem doctor:", err)
		return exitError
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tandem doctor:", err)
		return exitError
	}
	checks := append(versionChecks(self), diagnose(cwd)...)
	return report(os.Stdout, self, checks)
}

func report(w io.Writer, self string, checks []check) int {
	bad := 0
	fmt.Fprintf(w, "tandem %s at %s\n", tandemVersion(), self)
	for _, c := range checks {
		if c.ok {
			fmt.Fprintf(w, "  ok       %s: %s\n", c.name, c.info)
			continue
		}
		bad++
		fmt.Fprintf(w, "  MISSING  %s: %s\n           fix: %s\n", c.name, c.info, c.fix)
	}
	if bad > 0 {
		fmt.Fprintf(w, "%d problem(s) found.\n", bad)
		return exitError
	}
	fmt.Fprintln(w, "Everything tandem needs is here.")
	return exitOK
}

func diagnose(workspace string) []check {
	var out []check
	out = append(out, stateDirCheck())
	settings := config.New()
	file := config.UserFile()
	out = append(out, userSettingsCheck(settings, file))
	if file != "" {
		for _, p := range tools.SettingsProblems(settings) {
			out = append(out, check{name: "user settings", info: p.Error(), fix: "correct it in " + file + " (see docs/settings.md)"})
		}
	}

	out = append(out, sandboxCheck(settings))
	out = append(out, fileWatchCheck(workspace))

	if path, err := exec.LookPath("git"); err != nil {
		out = append(out, check{name: "git", info: "not found on PATH; the global excludes file (core.excludesFile) cannot be read",
			fix: "install git (Debian/Ubuntu: sudo apt-get install git)"})
	} else {
		out = append(out, check{name: "git", ok: true, info: path})
	}

	var user []byte
	if v, ok := settings.User("mcp.servers"); ok {
		user = v.Raw
	}
	cfg := mcpclient.Load([]string{workspace}, user, file)
	for _, p := range cfg.Problems {
		out = append(out, check{name: "MCP configuration", info: p.Error(), fix: "correct the file named in the message"})
	}
	for _, name := range cfg.Names() {
		d := cfg.Servers[name]
		if d.Type == "http" || d.Command == "" {
			continue
		}
		label := fmt.Sprintf("MCP server %q (%s)", name, d.Source)
		if path, err := exec.LookPath(d.Command); err != nil {
			out = append(out, check{name: label, info: fmt.Sprintf("its program %q is not on PATH", d.Command), fix: installHint(d.Command)})
		} else {
			out = append(out, check{name: label, ok: true, info: path})
		}
	}
	return out
}

// sandboxCheck says whether the kernel holds what the gate decides for the
// programs of bash steps here, and what it cannot hold.
func sandboxCheck(settings *config.Settings) check {
	held, why, chosen := tools.SandboxHeld(settings)
	switch {
	case chosen:
		return check{name: "kernel sandbox", ok: true, info: why.Error()}
	case !held:
		return check{name: "kernel sandbox", info: why.Error() + "; the gate still asks before risky steps, but a program it cannot see into does what it likes",
			fix: "run tandem on Linux 5.13+ with landlock in the kernel's LSM list (lsm= boot parameter), or on macOS with /usr/bin/sandbox-exec"}
	}
	support := sandbox.Supported()
	info := "the programs of bash steps run held to what their step was allowed: " + strings.Join(support.Layers, "; ")
	if support.Limits == "" {
		return check{name: "kernel sandbox", ok: true, info: info}
	}
	return check{name: "kernel sandbox", info: info + "; but " + support.Limits,
		fix: "use a kernel and settings where the layers above hold (Linux 6.12 or later; unprivileged user namespaces allowed)"}
}

// stateDirCheck: tandem's state directory (logs, chats, the approved MCP
// servers) exists or can be made, is private, and takes a file.
func stateDirCheck() check {
	const name = "state directory (logs, chats)"
	dir, err := config.PrivateStateDir()
	var untrusted *config.UntrustedError
	switch {
	case errors.As(err, &untrusted):
		return check{name: name, info: untrusted.Problem() + "; logs go to standard error, chats are not kept and approved MCP servers are not remembered", fix: untrusted.Fix()}
	case err != nil && config.StateDir() == "":
		return check{name: name, info: err.Error(), fix: "set HOME to your home directory, or XDG_STATE_HOME to a directory of your own"}
	case err == nil:
		var f *os.File
		if f, err = os.CreateTemp(dir, ".doctor-*"); err == nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
			return check{name: name, ok: true, info: dir}
		}
	}
	return check{name: name, info: err.Error(), fix: fmt.Sprintf("make %s writable, or set XDG_STATE_HOME to a writable directory", config.StateDir())}
}

// userSettingsCheck loads the user settings file into settings and says
// where it is, why there, and why it was not read when it was not.
func userSettingsCheck(settings *config.Settings, file string) check {
	const name = "user settings"
	err := settings.LoadUser()
	if file == "" {
		return check{name: name, info: err.Error(), fix: "set HOME to your home directory, or XDG_CONFIG_HOME to a directory of your own"}
	}
	where := fmt.Sprintf("%s (%s)", file, config.UserFileOrigin())
	var untrusted *config.UntrustedError
	switch {
	case errors.As(err, &untrusted):
		return check{name: name, info: "not read: " + untrusted.Problem(), fix: untrusted.Fix()}
	case err != nil:
		return check{name: name, info: err.Error(), fix: "make " + file + " one JSON object (see docs/settings.md), or remove it"}
	}
	if _, err := os.Stat(file); err != nil {
		return check{name: name, ok: true, info: "none: " + where + " does not exist; defaults apply"}
	}
	return check{name: name, ok: true, info: where}
}

func installHint(program string) string {
	switch strings.TrimSuffix(filepath.Base(program), ".cmd") {
	case "npx", "node", "npm":
		return "install Node.js with npm (Debian/Ubuntu: sudo apt-get install nodejs npm)"
	case "uvx", "uv":
		return "install uv (https://docs.astral.sh/uv/), or change the server's command"
	case "docker":
		return "install Docker, or change the server's command"
	}
	return fmt.Sprintf("install %s, or change the server's command in its configuration", program)
}
