// Command mutants re-runs the planted bugs the evidence pages cite: each
// file of mutants/ is one bug, an exact replacement in one source file, and
// the test that must catch it. For each it builds the mutated file beside
// the tree (an overlay, so the checkout is never touched), runs that
// test, and expects it to fail with the recorded words. A mutant whose
// text no longer occurs in its file is reported stale: the evidence then
// names code that moved, and the mutant must be updated with it.
//
// Usage: go run ./scripts/mutants [-list] [-changed] [NAME...]
//
// -changed runs only the mutants of the packages a change touched: those
// whose file's or test's package holds a file that differs from the
// upstream branch (or HEAD without one), committed or not, or whose own
// mutant file does. Every mutant is still checked for staleness, which
// costs no test run. The README's test command runs this; CI runs all.
//
// A mutant (mutants/NAME.txtar) holds, in its comment, lines
//
//	file: edits/commit.go
//	test: ./edits TestLaw_edit_all_or_nothing_on_conflict
//	want: want a conflict
//
// and two archive files, "old" (text that occurs exactly once in file) and
// "new" (what replaces it). Text before the first key line says what the
// bug is.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/tools/txtar"
)

// mutant is one planted bug.
type mutant struct {
	name, about      string
	file             string // relative to the module root
	pkg, test        string // go test PKG -run ^TEST$
	want             string // words the failure must hold
	oldText, newText []byte
}

func parse(path string) (*mutant, error) {
	a, err := txtar.ParseFile(path)
	if err != nil {
		return nil, err
	}
	m := &mutant{name: strings.TrimSuffix(filepath.Base(path), ".txtar")}
	var about []string
	for _, line := range strings.Split(string(a.Comment), "\n") {
		key, val, ok := strings.Cut(line, ": ")
		switch {
		case ok && key == "file":
			m.file = val
		case ok && key == "test":
			m.pkg, m.test, _ = strings.Cut(val, " ")
		case ok && key == "want":
			m.want = val
		case strings.TrimSpace(line) != "":
			about = append(about, strings.TrimSpace(line))
		}
	}
	m.about = strings.Join(about, " ")
	for _, f := range a.Files {
		switch f.Name {
		case "old":
			m.oldText = bytes.TrimSuffix(f.Data, []byte("\n"))
		case "new":
			m.newText = bytes.TrimSuffix(f.Data, []byte("\n"))
		}
	}
	if m.file == "" || m.test == "" || m.want == "" || len(m.oldText) == 0 {
		return nil, fmt.Errorf("%s: needs file, test, want and an old section", path)
	}
	return m, nil
}

// errStale is a mutant whose old text is not in its file exactly once.
var errStale = errors.New("stale")

// source is m's file as it is now, checked to hold the old text once and
// to have its test's package beside it.
func (m *mutant) source() ([]byte, error) {
	if fi, err := os.Stat(m.pkg); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: its test's package %s is not a directory here", errStale, m.pkg)
	}
	src, err := os.ReadFile(m.file)
	if err != nil {
		return nil, err
	}
	if n := bytes.Count(src, m.oldText); n != 1 {
		return nil, fmt.Errorf("%w: its old text occurs %d times in %s", errStale, n, m.file)
	}
	return src, nil
}

// touched reports whether a change in one of the changed directories (or
// of the mutant itself) can change m's verdict.
func (m *mutant) touched(changed map[string]bool) bool {
	return changed[filepath.Dir(m.file)] || changed[filepath.Clean(m.pkg)] || changed[filepath.Join("mutants", m.name+".txtar")]
}

// changedPlaces lists the directories (and the mutant files) that differ
// from the upstream branch, or from HEAD without one, counting
// uncommitted and untracked files.
func changedPlaces() (map[string]bool, error) {
	base := "HEAD"
	if out, err := exec.Command("git", "merge-base", "HEAD", "@{upstream}").Output(); err == nil {
		base = strings.TrimSpace(string(out))
	}
	diff, err := exec.Command("git", "diff", "--name-only", base).Output()
	if err != nil {
		return nil, fmt.Errorf("git diff %s: %w", base, err)
	}
	untracked, err := exec.Command("git", "ls-files", "--others", "--exclude-standard").Output()
	if err != nil {
		return nil, err
	}
	changed := map[string]bool{}
	for _, f := range strings.Fields(string(diff) + "\n" + string(untracked)) {
		changed[filepath.Dir(f)] = true
		if strings.HasPrefix(f, "mutants/") {
			changed[f] = true
		}
	}
	return changed, nil
}

// run plants m through an overlay and runs its test; nil when the test
// failed as recorded.
func (m *mutant) run(tmp string) (time.Duration, error) {
	src, err := m.source()
	if err != nil {
		return 0, err
	}
	mutated := filepath.Join(tmp, m.name+"-"+filepath.Base(m.file))
	if err := os.WriteFile(mutated, bytes.Replace(src, m.oldText, m.newText, 1), 0o644); err != nil {
		return 0, err
	}
	abs, _ := filepath.Abs(m.file)
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{abs: mutated}})
	ov := filepath.Join(tmp, m.name+".json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		return 0, err
	}
	start := time.Now()
	// A planted bug that makes its test hang is not caught: the timeout
	// ends it well before go test's default ten minutes.
	args := []string{"test", "-count=1", "-timeout=5m", "-run", "^" + m.test + "$", m.pkg}
	if usesRapid(m.pkg) {
		// A property that fails writes its case under testdata/rapid;
		// a planted bug must leave the checkout as it was.
		args = append(args, "-args", "-rapid.nofailfile")
	}
	cmd := exec.Command("go", args...)
	// In GOFLAGS, the overlay also reaches the tandem binary a test builds.
	cmd.Env = append(os.Environ(), "GOFLAGS=-overlay="+ov)
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	switch {
	case err == nil:
		return took, fmt.Errorf("survived: %s passes with the bug planted", m.test)
	case !bytes.Contains(out, []byte("--- FAIL: "+m.test)):
		return took, fmt.Errorf("the package did not get to fail %s:\n%s", m.test, out)
	case !bytes.Contains(out, []byte(m.want)):
		return took, fmt.Errorf("%s failed without %q:\n%s", m.test, m.want, out)
	}
	return took, nil
}

// usesRapid reports whether the tests of the package in dir use rapid,
// whose flags their test binary then takes.
func usesRapid(dir string) bool {
	tests, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, t := range tests {
		if src, err := os.ReadFile(t); err == nil && bytes.Contains(src, []byte(`"pgregory.net/rapid"`)) {
			return true
		}
	}
	return false
}

func main() {
	list := flag.Bool("list", false, "list the mutants and the tests that catch them")
	onlyChanged := flag.Bool("changed", false, "run only the mutants of packages a change touched; check the rest for staleness")
	flag.Parse()
	var changed map[string]bool
	if *onlyChanged {
		var err error
		if changed, err = changedPlaces(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	paths, _ := filepath.Glob("mutants/*.txtar")
	if flag.NArg() > 0 {
		paths = paths[:0]
		for _, n := range flag.Args() {
			paths = append(paths, filepath.Join("mutants", n+".txtar"))
		}
	}
	tmp, err := os.MkdirTemp("", "mutants")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(tmp)
	failed, ran, caught, start := 0, 0, 0, time.Now()
	for _, p := range paths {
		m, err := parse(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			failed++
			continue
		}
		if changed != nil && !m.touched(changed) {
			if _, err := m.source(); err != nil {
				fmt.Printf("FAIL    %s (%s): %v\n", m.name, m.file, err)
				failed++
			}
			continue
		}
		if *list {
			fmt.Printf("%-48s %s %s\n", m.name, m.pkg, m.test)
			continue
		}
		ran++
		took, err := m.run(tmp)
		if err != nil {
			fmt.Printf("FAIL    %s (%s): %v\n", m.name, m.file, err)
			failed++
			continue
		}
		caught++
		fmt.Printf("caught  %-48s by %s %s (%.1f s)\n", m.name, m.pkg, m.test, took.Seconds())
	}
	if *list {
		return
	}
	if changed != nil {
		fmt.Printf("%d of %d mutants touched by the change; the rest checked for staleness only\n", ran, len(paths))
	}
	fmt.Printf("%d mutants run, %d caught, %d failed, in %s\n", ran, caught, failed, time.Since(start).Round(time.Second))
	if failed > 0 {
		os.Exit(1)
	}
}
