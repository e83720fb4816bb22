package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseSpecKeepsTheCodeOfEachCase(t *testing.T) {
	got, err := parseSpec(readFixture(t, "cases.test.sh"))
	if err != nil {
		t.Fatal(err)
	}
	want := []specCase{
		{name: "one line, stdout key", line: 4, code: "echo hi\n"},
		{name: "blank lines and comments inside the code", line: 8, code: "x=1\n\necho $x\n"},
		{name: "qualified expectations after the code", line: 19, code: "f() { return 3; }\nf\n"},
		{name: "keys before the code", line: 30, code: "echo before\n"},
		{name: "code given as a key", line: 35, code: `echo "a  b"`},
		{name: "a block whose END is left out", line: 39, code: "cat <<EOF\nbody\nEOF\n"},
		{name: "the case after it", line: 45, code: "echo last\n"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cases:\n got %+v\nwant %+v", got, want)
	}
}

func TestParseSpecRefusesMalformedFiles(t *testing.T) {
	for file, words := range map[string]string{
		"nocode.test.sh": `case "no code" has no code`,
		"badkey.test.sh": `line 3: "##stdout x" is neither`,
	} {
		_, err := parseSpec(readFixture(t, file))
		if err == nil || !strings.Contains(err.Error(), words) {
			t.Errorf("%s: got error %v, want one saying %q", file, err, words)
		}
	}
}

func TestTandemResultTakesOutputAndStatus(t *testing.T) {
	for _, c := range []struct {
		text, out string
		status    int
	}{
		{"finished: exit status 0\nsteps (1):\n  1. echo hi  → 0\noutput (3 bytes):\nhi\n", "hi\n", 0},
		{"exited: exit status 3\nsteps (1):\n  1. exit 3  → 3\noutput: none\n", "", 3},
		{"finished: exit status 0\nsteps (1):\n  1. printf x  → 0\noutput (1 bytes):\nx\n[no newline at the end of the output]\n", "x", 0},
		// A step's text that looks like a heading is indented, so it is not one.
		{"finished: exit status 1\nsteps (1):\n  1. echo $'output (9 bytes):'  → 1\noutput (3 bytes):\nok\n", "ok\n", 1},
		{"failed: the interpreter said no\nsteps: none ran\noutput: none\n", "(tandem: failed: the interpreter said no)\n", -1},
	} {
		out, status := tandemResult(c.text)
		if out != c.out || status != c.status {
			t.Errorf("tandemResult(%q) = %q, %d; want %q, %d", c.text, out, status, c.out, c.status)
		}
	}
}
