package core

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// plantedBug is a known bug, written as a patch to core.go (old must occur
// there exactly once and becomes new), and the law whose check must catch it.
type plantedBug struct {
	name     string
	law      int
	old, new string
}

// plantedBugs are each applied alone to core.go as it is.
var plantedBugs = []plantedBug{
	{"a request with another version is admitted", 1,
		"if ev.Version != ProtocolVersion {",
		"if false {"},
	{"a refusal leaks the version to a stranger", 2,
		"who, ok := s.ownerOf(ev.Token)",
		"if ev.Version != ProtocolVersion {\n\t\trefuse(BadVersion)\n\t\treturn\n\t}\n\twho, ok := s.ownerOf(ev.Token)"},
	{"a busy refusal consumes an id", 2,
		"refuse(Busy)",
		"s.next++\n\t\trefuse(Busy)"},
	{"an id is reused after a restart", 3,
		"s.open = true",
		"s.open, s.next = true, 0"},
	{"a late allow runs a withdrawn call", 4,
		"case sl.stage == Authorizing && ev.Allow:",
		"case (sl.stage == Authorizing || sl.stage == AbandonedAuth) && ev.Allow:"},
	{"a client leaving mid-reply moves its request back", 5,
		"case Calling:\n\t\tsl.stage = AbandonedCall",
		"case Calling, Replying:\n\t\tsl.stage = AbandonedCall"},
	{"a reply is sent twice", 6,
		"out.push(Effect{Kind: Log, ID: ev.ID, Log: ReplyLost})",
		"out.push(Effect{Kind: Reply, ID: ev.ID, Outcome: Failed})\n\t\treturn"},
	{"a denial replies ok", 7,
		"out.push(Effect{Kind: Reply, ID: sl.id, Outcome: Denied})",
		"out.push(Effect{Kind: Reply, ID: sl.id, Outcome: OK})"},
	{"a call acts for another owner", 8,
		"out.push(Effect{Kind: Call, ID: sl.id, Owner: sl.owner})",
		"out.push(Effect{Kind: Call, ID: sl.id, Owner: s.owners[0].id})"},
	{"an owner's end leaves its calls running", 9,
		"case Calling:\n\t\tsl.stage = AbandonedCall\n\t\tout.push(Effect{Kind: Cancel, ID: sl.id, Owner: sl.owner})\n",
		""},
	{"a stopped bridge keeps tokens in force", 10,
		"s.owners = [MaxOwners]owner{}",
		""},
	{"a stale answer is not logged", 11,
		"out.push(Effect{Kind: Log, ID: id, Log: Stale})",
		""},
	{"a dropped result is not logged", 12,
		"out.push(Effect{Kind: Log, ID: ev.ID, Log: ResultDropped})",
		""},
	{"one request more than the capacity is admitted", 13,
		"for i := int(s.capacity) - 1; i >= 0; i-- {",
		"for i := int(s.capacity); i >= 0; i-- {"},
	{"a new process starts open", 14,
		"return State{capacity: uint8(capacity)}, nil",
		"return State{open: true, capacity: uint8(capacity)}, nil"},
	{"a dropped result never frees its slot", 15,
		"case AbandonedCall:\n\t\t*sl = slot{}\n",
		"case AbandonedCall:\n"},
}

// TestPlantedBugs shows every law's check can fail. Each bug is patched into
// a copy of this package, where the test of the law it breaks and the seeded
// sequences at capacity 8 must both fail naming that law; the exploration
// there ends at the law's first violation. The copy without a patch must pass
// the same tests, exploring everything, so a failure comes from the bug alone.
func TestPlantedBugs(t *testing.T) {
	files := packageFiles(t)
	t.Run("unpatched", func(t *testing.T) {
		t.Parallel()
		bin := buildCopy(t, files)
		if out, ok := runTests(t, bin, "-test.run", "^(TestLaw_|TestRandomSequences_capacity_8$)"); !ok {
			t.Fatalf("the unpatched copy fails:\n%s", out)
		}
	})
	for _, b := range plantedBugs {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			core := string(files["core.go"])
			if n := strings.Count(core, b.old); n != 1 {
				t.Fatalf("the patch's old text occurs %d times in core.go, want once:\n%s", n, b.old)
			}
			patched := maps.Clone(files)
			patched["core.go"] = []byte(strings.Replace(core, b.old, b.new, 1))
			bin := buildCopy(t, patched)
			law := lawNames[b.law]

			out, ok := runTests(t, bin, "-test.run", fmt.Sprintf("^TestLaw_L%d_", b.law), "-stopat", fmt.Sprint(b.law))
			i := strings.Index(out, law+" broken")
			if ok || i < 0 {
				t.Fatalf("not killed: the test of %s did not report it broken:\n%s", law, out)
			}
			report, _, _ := strings.Cut(out[i:], "\nFAIL")
			t.Logf("killed: %s", strings.Join(strings.Fields(report), " "))

			out, ok = runTests(t, bin, "-test.run", "^TestRandomSequences_capacity_8$")
			if ok || !strings.Contains(out, law+": ") {
				t.Fatalf("the random sequences missed it: expected %s\n%s", law, out)
			}
		})
	}
}

// packageFiles reads the Go files of this package and a go.mod that makes a
// copy of them a module of its own, at the Go version of tandem's go.mod.
func packageFiles(t *testing.T) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, name := range names {
		if files[name], err = os.ReadFile(name); err != nil {
			t.Fatal(err)
		}
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(mod)) {
		if strings.HasPrefix(line, "go ") {
			files["go.mod"] = []byte("module github.com/tandemdev/tandem/bridge/core\n\n" + line)
			return files
		}
	}
	t.Fatal("tandem's go.mod has no go line")
	return nil
}

// buildCopy writes files to a temporary directory and compiles their tests.
func buildCopy(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "core.test")
	cmd := exec.Command("go", "test", "-c", "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the copy: %v\n%s", err, out)
	}
	return bin
}

// runTests runs the test binary bin with args; ok reports whether it passed.
func runTests(t *testing.T, bin string, args ...string) (out string, ok bool) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = filepath.Dir(bin)
	b, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return string(b), err == nil
}
