package main

import (
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
)

// version is set at build time with -ldflags "-X main.version=…" (make build,
// scripts/release and the Neovim plugin's build stamp `git describe --tags
// --always --dirty`); otherwise the module version (go install …@VERSION) or
// "devel".
var version = ""

func tandemVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

var versionCommand = command{
	name:    "version",
	usage:   "tandem version",
	summary: "Print tandem's version.",
	run: func([]string) int {
		fmt.Println("tandem", tandemVersion())
		return exitOK
	},
}

// What two version strings say about the builds they name (compareVersions).
// The editors compare their own version with tandem's by the same rules
// (vscode-extension/src/version.ts, neovim/lua/tandem/version.lua), all three
// checked against testdata/versions.json.
const (
	versionsSame      = "same"      // the same release, or the same commit
	versionsDiffer    = "differ"    // another release or another commit
	versionsModified  = "modified"  // a build with uncommitted changes: cannot tell
	versionsUnstamped = "unstamped" // a build that says no version: cannot tell
)

var (
	// A Go pseudo-version (go install …@COMMIT, or go build with VCS
	// stamping): vX.Y.Z-[pre.]0.yyyymmddhhmmss-HASH12.
	pseudoVersion = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^v\d+\.\d+\.\d+-(?:[0-9A-Za-z.-]*\.)?\d{14}-([0-9a-f]{12})$`)
	})
	// git describe past a tag: TAG-N-gHASH.
	describedVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^.+-\d+-g([0-9a-f]{4,40})$`) })
	// git describe --always without a tag: the abbreviated commit.
	bareCommit = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{7,40}$`) })
)

// build is what a version string says: a release (a tag) or a commit,
// and whether the tree had uncommitted changes.
type build struct {
	release, commit     string
	modified, unstamped bool
}

func parseVersion(v string) build {
	v = strings.TrimSpace(v)
	switch v {
	case "", "devel", "(devel)", "unknown":
		return build{unstamped: true}
	}
	var b build
	for _, suffix := range []string{"-dirty", "+dirty"} {
		if s, ok := strings.CutSuffix(v, suffix); ok {
			v, b.modified = s, true
		}
	}
	for _, re := range []*regexp.Regexp{pseudoVersion(), describedVersion(), bareCommit()} {
		if m := re.FindStringSubmatch(v); m != nil {
			b.commit = m[len(m)-1]
			return b
		}
	}
	b.release = strings.TrimPrefix(v, "v")
	return b
}

// compareVersions says whether versions a and b name the same build. A
// modified or unstamped build cannot be told apart from another, and says so
// instead of being called different.
func compareVersions(a, b string) string {
	pa, pb := parseVersion(a), parseVersion(b)
	switch {
	case pa.unstamped || pb.unstamped:
		return versionsUnstamped
	case pa.modified || pb.modified:
		return versionsModified
	case pa.commit != "" && pb.commit != "":
		short := min(len(pa.commit), len(pb.commit))
		if pa.commit[:short] == pb.commit[:short] {
			return versionsSame
		}
	case pa.release != "" && pa.release == pb.release:
		return versionsSame
	}
	return versionsDiffer
}
