package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The editors compare their version with tandem's by the same rules: every
// case of the shared table holds here, both ways round.
func TestLaw_versions_compare_as_the_shared_table_says(t *testing.T) {
	data, err := os.ReadFile("../../testdata/versions.json")
	if err != nil {
		t.Fatal(err)
	}
	var table struct {
		Cases []struct{ A, B, Verdict, Why string }
	}
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	if len(table.Cases) == 0 {
		t.Fatal("testdata/versions.json has no cases")
	}
	for _, c := range table.Cases {
		for _, pair := range [][2]string{{c.A, c.B}, {c.B, c.A}} {
			if got := compareVersions(pair[0], pair[1]); got != c.Verdict {
				t.Errorf("compareVersions(%q, %q) = %s, want %s (%s)", pair[0], pair[1], got, c.Verdict, c.Why)
			}
		}
	}
}

// doctor prints its own version and path, says when the tandem first on PATH
// is another build (what an editor starting `tandem` gets), and compares the
// editor's plugin named in its environment with itself.
func TestDoctorShowsTheVersionsOfTandemThePathAndTheEditor(t *testing.T) {
	old := version
	version = "v0.3.0-1-g8de55a0"
	t.Cleanup(func() { version = old })
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "tandem"), []byte("#!/bin/sh\necho tandem v0.2.1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	doctor := func(client string) (string, int) {
		t.Setenv(clientNameEnv, "Neovim plugin")
		t.Setenv(clientVersionEnv, client)
		var buf bytes.Buffer
		code := report(&buf, self, versionChecks(self))
		return buf.String(), code
	}

	out, code := doctor("v0.3.0-1-g8de55a0")
	for _, want := range []string{
		"tandem v0.3.0-1-g8de55a0 at " + self + "\n",
		"ok       Neovim plugin: Neovim plugin v0.3.0-1-g8de55a0, this tandem v0.3.0-1-g8de55a0: the same build",
		"MISSING  tandem on PATH: " + filepath.Join(bin, "tandem") + " is tandem v0.2.1, this one v0.3.0-1-g8de55a0: another build",
		"fix: remove " + filepath.Join(bin, "tandem"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor's output lacks %q:\n%s", want, out)
		}
	}
	if code != exitError {
		t.Errorf("another build first on PATH: status %d, want %d", code, exitError)
	}

	if out, _ := doctor("v0.2.1"); !strings.Contains(out, "MISSING  Neovim plugin: Neovim plugin v0.2.1, this tandem v0.3.0-1-g8de55a0: different builds") {
		t.Errorf("a plugin of another build is not called one:\n%s", out)
	}
	if out, _ := doctor("8de55a0-dirty"); !strings.Contains(out, "ok       Neovim plugin: Neovim plugin 8de55a0-dirty, this tandem v0.3.0-1-g8de55a0: a build with uncommitted changes, so whether they match cannot be told") {
		t.Errorf("a modified plugin must be said, not called another build:\n%s", out)
	}

	// The same build elsewhere on PATH is fine.
	if err := os.WriteFile(filepath.Join(bin, "tandem"), []byte("#!/bin/sh\necho tandem v0.3.0-1-g8de55a0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, code := doctor("v0.3.0-1-g8de55a0"); code != exitOK || !strings.Contains(out, "is tandem v0.3.0-1-g8de55a0, this one v0.3.0-1-g8de55a0: the same build") {
		t.Errorf("the same build on PATH (status %d):\n%s", code, out)
	}
}

// The real binary reads the editor's version from its environment.
func TestDoctorReadsTheEditorsVersionFromItsEnvironment(t *testing.T) {
	out, _ := runTandem(t, t.TempDir(), []string{clientNameEnv + "=VS Code extension", clientVersionEnv + "=v0.3.0"}, "doctor")
	if !strings.Contains(out, "VS Code extension: VS Code extension v0.3.0, this tandem devel: a build stamped with no version") {
		t.Errorf("doctor does not compare the editor's version:\n%s", out)
	}
}
