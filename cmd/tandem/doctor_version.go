package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// The editor whose terminal doctor runs in (or whose health check runs it)
// names itself and its own version in these; both editors set them.
const (
	clientNameEnv    = "TANDEM_CLIENT_NAME"
	clientVersionEnv = "TANDEM_CLIENT_VERSION"
)

// versionChecks: which tandem an editor starting `tandem` from PATH gets,
// and whether the editor that ran doctor is of this tandem's build — a
// binary of another build first on PATH is the usual cause of "it worked
// yesterday".
func versionChecks(self string) []check {
	mine := tandemVersion()
	var out []check
	if v := os.Getenv(clientVersionEnv); v != "" {
		name := os.Getenv(clientNameEnv)
		if name == "" {
			name = "editor plugin"
		}
		c := check{name: name, ok: true, info: fmt.Sprintf("%s %s, this tandem %s: ", name, v, mine)}
		switch verdict := compareVersions(mine, v); verdict {
		case versionsSame:
			c.info += "the same build"
		case versionsDiffer:
			c.ok = false
			c.info += "different builds"
			c.fix = fmt.Sprintf("update the plugin and tandem together (the plugin's build step, or the release package of one version); the plugin starts %s", self)
		default:
			c.info += cannotTell(verdict)
		}
		out = append(out, c)
	}
	found, err := exec.LookPath("tandem")
	switch {
	case err != nil:
		out = append(out, check{name: "tandem on PATH", ok: true, info: "none; an editor starts this one only when told its path (tandem.path in VS Code, cmd in Neovim) or when its package carries it"})
	case sameFile(found, self):
		out = append(out, check{name: "tandem on PATH", ok: true, info: found + " (this one)"})
	default:
		other := otherVersion(found)
		c := check{name: "tandem on PATH", ok: true, info: fmt.Sprintf("%s is tandem %s, this one %s: ", found, other, mine)}
		switch verdict := compareVersions(mine, other); verdict {
		case versionsSame:
			c.info += "the same build"
		case versionsDiffer:
			c.ok = false
			c.info += "another build, which editors starting `tandem` get"
			c.fix = fmt.Sprintf("remove %s or put %s's directory first on PATH (or set tandem.path in VS Code, cmd in Neovim)", found, self)
		default:
			c.info += cannotTell(verdict)
		}
		out = append(out, c)
	}
	return out
}

func cannotTell(verdict string) string {
	if verdict == versionsModified {
		return "a build with uncommitted changes, so whether they match cannot be told"
	}
	return "a build stamped with no version (go build without make), so whether they match cannot be told"
}

// otherVersion runs `PATH version` and returns the version it prints.
func otherVersion(path string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "tandem ")
}
