package approvals

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
	"unicode"

	"pgregory.net/rapid"
)

// hiddenRunes are characters a terminal hides or that move text.
var hiddenRunes = []rune{'\x01', '\x1b', '\r', '\n', '\t', '\x7f', '\u200b', '\u200c', '\u200d', '\u2060',
	'\ufeff', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069',
	'\u200e', '\u200f', '\u061c', '\u00a0', '\u2028', '\U000e0041'}

// TestShowEscapesHiddenAndBashReadsItBack: every shown word holds no hidden
// character, and bash reads the shown text back as the exact argv.
func TestShowEscapesHiddenAndBashReadsItBack(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed to check quoting: ", err)
	}
	var argvs [][]string
	rapid.Check(t, func(t *rapid.T) {
		alphabet := append([]rune("ab -'\"\\$`!*?[]{}~#;&|<>()=,.:/é中"), hiddenRunes...)
		argv := rapid.SliceOfN(rapid.StringOfN(rapid.SampledFrom(alphabet), 0, 12, -1), 1, 4).Draw(t, "argv")
		shown := Show(argv)
		for _, r := range shown {
			if r != ' ' && (!unicode.IsPrint(r) || unicode.Is(unicode.Cf, r)) {
				t.Fatalf("Show(%q) = %q holds hidden %U", argv, shown, r)
			}
		}
		argvs = append(argvs, argv)
	})
	// One bash run checks every generated argv: each line prints its words
	// NUL-terminated, then a marker word no generated word can be.
	var script strings.Builder
	for _, argv := range argvs {
		script.WriteString("printf '%s\\0' " + Show(argv) + " @END@\n")
	}
	out, err := exec.Command(bash, "--norc", "--noprofile", "-c", script.String()).Output()
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	recs := bytes.Split(out, []byte("@END@\x00"))
	for i, argv := range argvs {
		want := strings.Join(argv, "\x00") + "\x00"
		if string(recs[i]) != want {
			t.Fatalf("bash read %q back from %s, want %q", recs[i], Show(argv), want)
		}
	}
}

func TestShowKeepsPlainWordsBare(t *testing.T) {
	if got := Show([]string{"git", "log", "-n", "3", "src/a.go", "a=b"}); got != "git log -n 3 src/a.go a=b" {
		t.Errorf("Show = %q", got)
	}
	if got := Show([]string{"rm", "x\u202eexe.txt"}); got != `rm $'x\u202eexe.txt'` {
		t.Errorf("bidi word shown as %q", got)
	}
}

// An assignment before a command is shown so that bash runs the command
// with exactly that value: a question naming LD_PRELOAD or NODE_OPTIONS
// names what the program gets.
func TestShowAssignedIsWhatBashPassesTheProgram(t *testing.T) {
	for _, v := range []string{"./evil.so", "--require ./x.js", "", "a'b\"c$d`e", "x\u202ey\nz"} {
		shown := ShowAssigned([]string{"V=" + v}, []string{"printenv", "V"})
		out, err := exec.Command("bash", "--norc", "--noprofile", "-c", shown).Output()
		if err != nil || string(out) != v+"\n" {
			t.Errorf("bash ran %s and printed %q (%v), want %q", shown, out, err, v)
		}
	}
}
