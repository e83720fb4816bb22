package shell

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/internal/prereq"
)

// tandem's xargs reads its options as GNU xargs does: each line runs under
// bash with /usr/bin/xargs and under tandem, and the output (stdout and
// stderr together) and status must be the same.
func TestXargsOptionsAsInGNUXargs(t *testing.T) {
	prereq.Program(t, "bash", "apt-get install bash")
	if out, _ := exec.Command("xargs", "--version").Output(); !strings.Contains(string(out), "GNU findutils") {
		prereq.Missing(t, "GNU xargs", "apt-get install findutils")
	}
	const in = `printf 'a b\n c END d\n' | `
	cases := []string{
		// grouped short options
		`printf '' | xargs -0r echo ran; echo "status $?"`,
		`printf '' | xargs -r0 echo ran`,
		in + `xargs -rt echo X`,
		in + `xargs -tr echo X`,
		in + `xargs -rtn1 echo X`,
		in + `xargs -n1t echo X`,
		in + `xargs -tn 1 echo X`,
		in + `xargs -rL1 echo X`,
		in + `xargs -0n1 echo X`,
		// optional values: attached only
		in + `xargs -eEND echo X`,
		in + `xargs -e echo X`,
		in + `xargs -E END echo X`,
		in + `xargs --eof=END echo X`,
		in + `xargs -i echo X {}`,
		in + `xargs -i@ echo X @`,
		in + `xargs -ri echo X {}`,
		in + `xargs -l echo X`,
		in + `xargs -l2 echo X`,
		in + `xargs --max-lines echo X`,
		in + `xargs --replace echo X {}`,
		in + `xargs --replace=@ echo X @`,
		// long options, prefixes and their errors
		in + `xargs --max-a=1 echo X`,
		in + `xargs --verb --no-run echo X`,
		in + `xargs --max echo X; echo "status $?"`,
		in + `xargs --null=x echo X; echo "status $?"`,
		in + `xargs --nosuch echo X; echo "status $?"`,
		in + `xargs --max-args; echo "status $?"`,
		// options that exclude each other, with GNU's warnings
		in + `xargs -n1 -i echo X {}`,
		in + `xargs -i -n1 echo X {}`,
		in + `xargs -I{} -n2 echo X {}`,
		in + `xargs -L1 -n2 echo X`,
		in + `xargs -n2 -L1 echo X`,
		in + `xargs -0 -E END echo X`,
		// values and their errors
		in + `xargs -k echo X; echo "status $?"`,
		in + `xargs -n; echo "status $?"`,
		in + `xargs -n abc echo X; echo "status $?"`,
		in + `xargs -n 0 echo X; echo "status $?"`,
		in + `xargs -P x echo X; echo "status $?"`,
		in + `xargs -P 0 echo X`,
		in + `xargs -P2 -n1 echo X | sort`,
		in + `xargs -dxy echo X; echo "status $?"`,
		`printf 'aAbAc' | xargs -d '\x41' echo X`,
		`printf 'aAbAc' | xargs -d '\101' echo X`,
		`printf 'a\tb\tc' | xargs -d '\t' -n1 echo X`,
		`printf 'a b c d' | xargs -x -n2 -s 12 echo; echo "status $?"`,
		// GNU's message races the command it starts: stderr apart
		`printf 'a bbbbbbbbbbbb c' | xargs -s 12 echo 2>err; echo "status $?"; cat err`,
		`printf 'a b' | xargs -- echo X`,
		`printf 'a b' | xargs -- echo -n1`,
		`printf 'a b cccccccccccccc d' | xargs -s 12 echo 2>err; echo "status $?"; cat err`,
		`printf 'a b cccccccccccccc d' | xargs -x -s 12 echo; echo "status $?"`,
		`printf 'a b c d e' | xargs -n3 -s 12 echo`,
		`printf 'a\nb\n' | xargs -I{} -l1 echo X {}`,
		`printf 'a\nb\n' | xargs -i -L1 echo X {}`,
		`printf 'a\nb\n' | xargs -l1 -I{} echo X {}`,
		`printf 'a\nb\n' | xargs -n2 -l1 echo X`,
		in + `xargs`,
	}
	for _, script := range cases {
		sb := newTestbed(t)
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir, cmd.Env = sb.root, sb.env
		want, _ := cmd.CombinedOutput()
		res := runScript(t, script, sb.opts(approvals.DefaultAuto, nil))
		if res.Output.Text != string(want) || res.Status != cmd.ProcessState.ExitCode() {
			t.Errorf("%s\ntandem (status %d, %s):\n%s\nGNU (status %d):\n%s", script, res.Status, res.End, res.Output.Text, cmd.ProcessState.ExitCode(), want)
		}
	}
}
