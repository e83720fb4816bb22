package main

import (
	"fmt"
	"os"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/tools"
)

// standaloneSession opens the tools session of a command that runs without
// an editor (tandem tool, tandem mcp serve) on the current directory, with
// the user's own settings loaded and asker answering its questions (nil:
// nobody can, so every question is unanswered at once).
func standaloneSession(command string, asker approvals.Asker, oneCall bool) (*tools.Session, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return openStandalone(command, cwd, tools.Options{Asker: asker, OneCall: oneCall})
}

// openStandalone opens a session on root with the user's own settings and
// what door gives of its options (the asker, one call or many, how a
// job's end is told).
func openStandalone(command, root string, door tools.Options) (*tools.Session, error) {
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory; pass an existing folder", root)
	}
	door.Roots, door.Settings = []string{root}, userSettings(command)
	return tools.Open(door), nil
}

// userSettings loads the user's own settings for a command that has no
// editor to send any. A settings file that does not load, and a value the
// tools refuse, are named on standard error: the user must not believe
// they apply.
func userSettings(command string) *config.Settings {
	st := config.New()
	if err := st.LoadUser(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: user settings ignored: %v\n", command, err)
	}
	for _, p := range tools.SettingsProblems(st) {
		fmt.Fprintf(os.Stderr, "%s: %v\n", command, p)
	}
	return st
}
