package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tandemdev/tandem/bridge/servers"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/sandbox"
	"github.com/tandemdev/tandem/tools"
)

var doctorCommand = command{
	name:    "doctor",
	usage:   "tandem doctor",
	summary: "Check what tandem needs on this machine and print what is missing, with the fix.",
	help: `Checks, for the current directory as the workspace: the state directory
(logs) is writable, the user settings file parses, the kernel can hold the
programs of bash steps in the sandbox (Landlock, or Seatbelt on macOS), git
is installed (tandem
reads git's global excludes file through it), and the program of every
configured MCP server (such as npx) can be found. Prints one line per
check; the exit status is 1 when something needs fixing.`,
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
	checks := diagnose(cwd)
	return report(os.Stdout, checks)
}

func report(w io.Writer, checks []check) int {
	bad := 0
	fmt.Fprintf(w, "tandem %s\n", tandemVersion())
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
	out = append(out, writableDir("state directory (logs)", config.StateDir(), "XDG_STATE_HOME"))

	settings := config.New()
	file := config.UserFile()
	if err := settings.LoadUser(); err != nil {
		out = append(out, check{name: "user settings", info: err.Error(),
			fix: "make " + file + " one JSON object (see docs/settings.md), or remove it"})
	} else if _, err := os.Stat(file); err == nil {
		out = append(out, check{name: "user settings", ok: true, info: file})
		for _, p := range tools.SettingsProblems(settings) {
			out = append(out, check{name: "user settings", info: p.Error(), fix: "correct it in " + file + " (see docs/settings.md)"})
		}
	} else {
		out = append(out, check{name: "user settings", ok: true, info: "none (" + file + " does not exist; defaults apply)"})
	}

	out = append(out, sandboxCheck(settings))

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
	cfg := servers.Load([]string{workspace}, user, file)
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

// writableDir checks that dir exists or can be made, and takes a file.
func writableDir(name, dir, env string) check {
	fix := fmt.Sprintf("make %s writable, or set %s to a writable directory", dir, env)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return check{name: name, info: err.Error(), fix: fix}
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return check{name: name, info: err.Error(), fix: fix}
	}
	_ = f.Close()
	_ = os.Remove(f.Name())
	return check{name: name, ok: true, info: dir}
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
