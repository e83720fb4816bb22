package main

import (
	"fmt"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=…"; otherwise
// the module version or "devel".
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
