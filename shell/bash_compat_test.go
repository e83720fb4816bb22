package shell

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

// The wrappers and fan-outs tandem runs itself must behave as the real ones
// do: each script's output and exit status under tandem equal bash's, in
// the same workspace.
func TestScriptsBehaveAsInBash(t *testing.T) {
	scripts := []string{
		`printf 'a b\nc\n' | xargs echo`,
		`printf 'a b\nc\n' | xargs -n1 echo`,
		`printf 'a b\nc d\ne\n' | xargs -L 2 echo`,
		`printf 'x\ny\n' | xargs -I{} echo "<{}>"`,
		`printf 'a\0b c\0' | xargs -0 -n1 echo`,
		`printf '' | xargs echo none; printf '' | xargs -r echo none`,
		`echo "'quoted arg' \"two words\" back\\ slash" | xargs -n1 echo`,
		`printf 'a,b,c' | xargs -d , -n2 echo`,
		`printf '1\n2\n' | xargs sh -c 'echo "[$0|$1]"'`,
		`printf '1\n2\n' | xargs false; echo "status $?"`,
		`find src -name '*.go' -exec echo found {} \; | sort`,
		`find src -name '*.go' -exec echo batch {} + | tr ' ' '\n' | sort`,
		`find src -name 'a.go' -execdir pwd \;`,
		`find src -name 'a.go' -execdir echo {} \;`,
		`find . -name nothing -exec echo never {} \; ; echo "status $?"`,
		`env FOO=bar sh -c 'echo $FOO'`,
		`export BAR=x; env -i PATH="$PATH" FOO=1 sh -c 'echo "[$FOO][$BAR]"'`,
		`export BAR=x; env -u BAR sh -c 'echo "[$BAR]"'`,
		`env -C src ls`,
		`nice -n 5 echo niced`,
		`nohup echo hup 2>/dev/null`,
		`timeout 0.2 sleep 5; echo "status $?"`,
		`timeout 5 sh -c 'exit 3'; echo "status $?"`,
		`{ timeout -s KILL 0.2 sleep 5; } 2>/dev/null; echo "status $?"`,
		`sh -c 'echo "$@"' zero one two`,
		`bash -c 'echo $((1+2)); exit 4'; echo "status $?"`,
		`echo 'echo from stdin' | sh`,
		`sh -ec 'false; echo not here'; echo "status $?"`,
		`command ls src | sort`,
		`(exec echo execd)`,
		`f() { ls "$@"; }; f src`,
		`for f in src/*.go; do wc -l < "$f"; done`,
		`x=$(ls src | wc -l); echo "count $x"`,
		`cat <<EOF | tr a-z A-Z
heredoc $HOME
EOF`,
		`diff <(ls src) <(ls src) && echo same`,
		`yes | head -n 2`,
		`sh -c 'echo $0'; bash -c 'echo $0'`,
		`false | true; echo "status $?"`,
		`ls nothing 2>&1; echo "status $?"`,
		`echo out; echo err >&2`,
		`exit 7`,
		// Errors name the file the running function came from.
		`printf 'g() { nosuch_g; }\nnosuch_top\n' > lib.sh
. ./lib.sh; g
f() { nosuch_f; (nosuch_sub); }; f
bash -c 'h() { nosuch_c; }; h'; echo 'k() { nosuch_in; }; k' | bash; bash ./lib.sh`,
		`declare -p BASH_EXECUTION_STRING; bash -c 'declare -p BASH_EXECUTION_STRING; env | grep -c ^BASH_EXEC'`,
		// eval's lines count from the eval command's.
		`true
eval 'echo $LINENO; echo $LINENO & wait'
f() {
  eval 'echo $LINENO; nosuch_e'
}
f`,
		`shopt -s lastpipe; n=0; ls src | while read f; do n=$((n+1)); done; echo "$n"; echo x | read v; echo "$v"`,
		// BASH_SOURCE, BASH_LINENO and FUNCNAME of scripts, sourced files
		// and functions (cd "$(dirname "${BASH_SOURCE[0]}")").
		`mkdir -p sub; printf 'f() { echo "${BASH_SOURCE[*]}|${BASH_LINENO[*]}|${FUNCNAME[*]}"; }\necho "top ${BASH_SOURCE[*]}|${BASH_LINENO[*]}"\nf\ncd "$(dirname "${BASH_SOURCE[0]}")" && basename "$PWD"\n' > sub/s.sh
bash sub/s.sh; (. sub/s.sh); g() { . sub/s.sh; }; (g); declare -p BASH_SOURCE BASH_LINENO`,
		// bash's hash table of the programs run by name.
		`hash; ls >/dev/null; ls >/dev/null; hash; hash -t ls; hash -l; hash -r; hash; f() { hash nosuch_prog; }; f; echo "status $?"; PATH=$PATH; hash`,
		`x="a  b"; f() { echo "$x"; unset x; echo "$x"; sh -c 'echo "[$x]"'; }; x=tmp f; FOO=1 readonly v=$x; echo "$v"`,
		// bash's POSIX mode, and the version scripts test for it.
		`set -o posix; a=1 :; b=2 true; echo "$a.$b ${BASH_VERSION%%.*}"; f() { eval() { :; }; }; f; echo no`,
		// Declaration builtins expand every word before assigning;
		// unset and export reach a caller's local.
		`a=0; f() { local a=1 b=$a; echo "$b"; }; f; export A=1 v=$(sh -c 'echo "[$A]"'); echo "$v $_"`,
		`unlocal() { unset "$@"; }
inner() { local x=in; unlocal x; echo "inner ${x-unset}"; unset x; echo "inner ${x-unset}"; }
outer() { local x=out; inner; echo "outer $x"; unlocal x; echo "outer $x"; }
x=global; outer
exp() { export o; }; o2() { local o=X; exp; sh -c 'echo "child $o"'; }; o2`,
		`bash -O nullglob -c 'echo x *.none y'; bash +O nullglob -c 'echo x *.none y'`,
		`bash --norc --rcfile /dev/null -c 'echo rc'`,
		`ln -s src lnk && cd lnk && bash -c pwd && (unset PWD; bash -c pwd)`,
		`export SHELLOPTS; set -x; bash -c 'echo 2' 2>&1`,
		// The first stage traces to /dev/null: bash traces a pipeline's stages
		// from two processes, in either order.
		`set -xv; { echo a; } 2>/dev/null | tr a b 2>&1; x=$(echo in)`,
		`set -o vi; shopt -o -p | grep -e 'vi$' -e 'emacs$'`,
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed to compare with")
	}
	for _, script := range scripts {
		sb := newTestbed(t)
		os.MkdirAll(filepath.Join(sb.root, "src"), 0o755)
		os.WriteFile(filepath.Join(sb.root, "src", "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644)
		os.WriteFile(filepath.Join(sb.root, "src", "b.go"), []byte("package a\n"), 0o644)

		cmd := exec.Command(bash, "-c", script)
		cmd.Dir, cmd.Env = sb.root, sb.env
		want, _ := cmd.CombinedOutput()
		wantStatus := cmd.ProcessState.ExitCode()

		res := runScript(t, script, sb.opts(approvals.DefaultAuto, nil))
		got := strings.ReplaceAll(res.Output.Text, sb.root, "$ROOT")
		wantText := strings.ReplaceAll(string(want), sb.root, "$ROOT")
		if got != wantText || res.Status != wantStatus {
			t.Errorf("%s\ntandem (status %d, %s):\n%s\nbash (status %d):\n%s", script, res.Status, res.End, got, wantStatus, wantText)
		}
	}
}
