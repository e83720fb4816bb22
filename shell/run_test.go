package shell

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/refusal"
)

// A pipeline runs its stages at once over OS pipes: yes stops when head has
// read its three lines.
func TestYesHeadStops(t *testing.T) {
	sb := newTestbed(t)
	start := time.Now()
	res := runScript(t, "yes | head -n 3", sb.opts(approvals.DefaultAuto, nil))
	if res.End != Finished || res.Status != 0 || res.Output.Text != "y\ny\ny\n" {
		t.Fatalf("got %s", Render(res))
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("yes | head took %v", d)
	}
}

// Output is capped as it is written: the head and the tail are kept, every
// dropped byte and line is counted, and the result says how to see them.
func TestOutputCapKeepsHeadAndTailAndCountsTheRest(t *testing.T) {
	sb := newTestbed(t)
	o := sb.opts(approvals.DefaultAuto, nil)
	o.OutputCap = 1000
	res := runScript(t, "seq 1 100000; echo done >&2", o)
	var full strings.Builder
	for i := 1; i <= 100000; i++ {
		full.WriteString(strconv.Itoa(i) + "\n")
	}
	full.WriteString("done\n")
	total := int64(full.Len())
	if res.Output.Total != total || res.Output.Dropped != total-1000 {
		t.Fatalf("total %d dropped %d, want %d and %d", res.Output.Total, res.Output.Dropped, total, total-1000)
	}
	if !strings.HasPrefix(res.Output.Text, full.String()[:500]) || !strings.HasSuffix(res.Output.Text, full.String()[full.Len()-500:]) {
		t.Fatalf("head or tail lost:\n%.200s … %s", res.Output.Text, res.Output.Text[len(res.Output.Text)-200:])
	}
	lines := strings.Count(full.String()[500:full.Len()-500], "\n")
	if said := fmt.Sprintf("%d bytes and %d lines dropped from the middle; to see them, run it again with its output redirected to a file", total-1000, lines); !strings.Contains(Render(res), said) {
		t.Fatalf("the result does not say %q:\n%.400s", said, Render(res))
	}
}

// A redirection is judged by its real target before the file opens: a
// denied one truncates nothing, and the script stops there.
func TestRedirectionIsGatedBeforeTheFileOpens(t *testing.T) {
	sb := newTestbed(t)
	keep := filepath.Join(sb.root, "keep.txt")
	os.WriteFile(keep, []byte("precious\n"), 0o644)
	a := answering(approvals.Deny)
	res := runScript(t, "rm -f other > keep.txt; echo after > after.txt", sb.opts(approvals.Of(approvals.Read), a))
	if b, _ := os.ReadFile(keep); string(b) != "precious\n" {
		t.Fatalf("keep.txt is %q", b)
	}
	if _, err := os.Stat(filepath.Join(sb.root, "after.txt")); err == nil {
		t.Fatal("the script went on after the refused redirection")
	}
	if res.End != Refused || len(a.asked()) != 1 || !strings.HasPrefix(a.asked()[0].Steps[0].Text, "> ") {
		t.Fatalf("want one question about the redirection: %+v %s", a.asked(), Render(res))
	}
	// A write into ~/.ssh through a symlink in the workspace is a secret write.
	os.Symlink(filepath.Join(sb.home, ".ssh"), filepath.Join(sb.root, "keys"))
	a = answering(approvals.Deny)
	runScript(t, "echo evil >> keys/authorized_keys", sb.opts(approvals.DefaultAuto, a))
	if _, err := os.Stat(filepath.Join(sb.home, ".ssh", "authorized_keys")); err == nil {
		t.Fatal("the denied write through a symlink happened")
	}
	if q := a.asked(); len(q) != 1 || !q[0].Steps[0].Effects.Has(approvals.Secret) {
		t.Fatalf("questions %+v", q)
	}
}

// The script's /dev/stdout and /dev/stderr are its own output, never
// tandem's; /dev/null asks nothing.
func TestScriptStreamsAreItsOwn(t *testing.T) {
	sb := newTestbed(t)
	a := answering(approvals.Deny)
	res := runScript(t, "echo one > /dev/stdout; echo two > /dev/stderr; echo three > /dev/null; echo four >/dev/fd/1", sb.opts(0, a))
	if res.Output.Text != "one\ntwo\nfour\n" || len(a.asked()) != 0 {
		t.Fatalf("output %q, questions %+v", res.Output.Text, a.asked())
	}
}

// Each external process runs in its own process group. (It asks the
// kernel, not /proc/self/stat, which the sandbox keeps closed.)
func TestEachProcessHasItsOwnGroup(t *testing.T) {
	sb := newTestbed(t)
	leader := `perl -e 'print getpgrp() == $$ ? 1 : 0, "\n"'`
	res := runScript(t, leader+"; "+leader+" | cat", sb.opts(approvals.DefaultAuto, nil))
	if res.Output.Text != "1\n1\n" {
		t.Fatalf("not group leaders: %q", res.Output.Text)
	}
}

// cd and export last for the call only; each run starts afresh.
func TestShellStateLastsOneCall(t *testing.T) {
	sb := newTestbed(t)
	os.Mkdir(filepath.Join(sb.root, "sub"), 0o755)
	res := runScript(t, "cd sub; export MINE=1; pwd; echo $MINE", sb.opts(approvals.DefaultAuto, nil))
	if res.Output.Text != filepath.Join(sb.root, "sub")+"\n1\n" {
		t.Fatalf("first call: %q", res.Output.Text)
	}
	res = runScript(t, "pwd; echo \"[$MINE]\"", sb.opts(approvals.DefaultAuto, nil))
	if res.Output.Text != sb.root+"\n[]\n" {
		t.Fatalf("second call: %q", res.Output.Text)
	}
}

// How a script ends: finished with the last status, exited, refused at step N.
func TestResultSaysHowTheScriptEnded(t *testing.T) {
	sb := newTestbed(t)
	if res := runScript(t, "true; false", sb.opts(approvals.DefaultAuto, nil)); res.End != Finished || res.Status != 1 {
		t.Errorf("true; false: %s", Render(res))
	}
	if res := runScript(t, "exit 3; echo no", sb.opts(approvals.DefaultAuto, nil)); res.End != Exited || res.Status != 3 || res.Output.Total != 0 {
		t.Errorf("exit 3: %s", Render(res))
	}
	res := runScript(t, "ls >/dev/null; cat ~/.ssh/id_ed25519; echo no", sb.opts(approvals.DefaultAuto, nil))
	if res.End != Refused || res.RefusedAt != 2 || res.Refusal.Code != refusal.Unanswered || res.Output.Total != 0 {
		t.Errorf("unanswered: %s", Render(res))
	}
	if !strings.HasPrefix(Render(res), "refused at step 2 (unanswered): ") {
		t.Errorf("render: %s", Render(res))
	}
}

// A glob that lists a secret directory is a secret read: it asks, and a no
// stops the script before anything learns the names.
func TestGlobOfASecretDirectoryAsks(t *testing.T) {
	sb := newTestbed(t)
	a := answering(approvals.Deny)
	res := runScript(t, `for f in ~/.ssh/*; do case $f in *id_ed25519) echo found;; esac; done; echo after`, sb.opts(approvals.DefaultAuto, a))
	if res.End != Refused || res.Output.Total != 0 || len(a.asked()) != 1 || !strings.HasPrefix(a.asked()[0].Steps[0].Text, "list ") {
		t.Fatalf("questions %+v\n%s", a.asked(), Render(res))
	}
	res = runScript(t, `ls *.txt 2>/dev/null; echo none`, sb.opts(0, a))
	if n := len(a.asked()); n != 2 || !strings.HasPrefix(a.asked()[1].Steps[0].Text, "ls") {
		t.Fatalf("a glob in the workspace asked on its own: %+v", a.asked())
	}
}

// An orphan a running script leaves is reaped while the script goes on: a
// long job gathers no zombies.
func TestOrphansOfARunningScriptAreReaped(t *testing.T) {
	sb := newTestbed(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := Start(ctx, `python3 -c 'import subprocess, os; print(subprocess.Popen(["sleep", "0.1"]).pid, flush=True); os._exit(0)'; sleep 30`, sb.opts(approvals.DefaultAuto, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Kill()
	var pid string
	for deadline := time.Now().Add(10 * time.Second); pid == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the orphan's pid never showed")
		}
		_, out := r.Progress()
		pid = strings.TrimSpace(out.Text)
	}
	for deadline := time.Now().Add(3*sweepEvery + time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat("/proc/" + pid); err != nil {
			return // reaped
		}
		if time.Now().After(deadline) {
			stat, _ := os.ReadFile("/proc/" + pid + "/stat")
			t.Fatalf("the orphan %s is still there while the script runs: %s", pid, stat)
		}
	}
}

// A pipeline in eval'd code is asked whole, before any stage runs, like one
// in the script.
func TestPipelineInEvalIsAskedWhole(t *testing.T) {
	sb := newTestbed(t)
	a := answering(approvals.Deny)
	res := runScript(t, `eval 'touch made | touch ~/.ssh/x | cat'; echo after`, sb.opts(approvals.DefaultAuto, a))
	if _, err := os.Stat(filepath.Join(sb.root, "made")); err == nil {
		t.Fatal("a stage ran before its pipeline was asked")
	}
	if q := a.asked(); len(q) != 1 || len(q[0].Steps) != 3 || res.End != Refused {
		t.Fatalf("questions %+v\n%s", q, Render(res))
	}
}

// Builtins are steps with an exit status too; a function that shadows a
// builtin still runs as the function (a builtin whose name the script
// declares as a function anywhere is left to the interpreter and shows no
// status).
func TestBuiltinStepsHaveTheirStatus(t *testing.T) {
	sb := newTestbed(t)
	res := runScript(t, `false; echo hi; test -f nope; cd /; pwd; f() { echo fn; }; f; true() { builtin printf 'shadow\n'; }; true x; for i in 1 2; do break; done; exit 4`, sb.opts(approvals.DefaultAuto, nil))
	if res.End != Exited || res.Status != 4 || res.Output.Text != "hi\n/\nfn\nshadow\n" {
		t.Fatalf("%s", Render(res))
	}
	want := map[string]int{"false": 1, "echo hi": 0, "test -f nope": 1, "cd /": 0, "pwd": 0, "echo fn": 0, "true x": -1, "break": 0, "exit 4": 4}
	for _, s := range res.Steps {
		if w, ok := want[s.Text]; ok && (s.Status != w || !s.Ran) {
			t.Errorf("step %q: status %d ran %v, want %d", s.Text, s.Status, s.Ran, w)
		}
		delete(want, s.Text)
	}
	if len(want) > 0 {
		t.Errorf("steps missing: %v\n%s", want, Render(res))
	}
}

// A run keeps no file open once it ended: a server that runs thousands of
// scripts must not run out of descriptors.
func TestRunsLeaveNoFileOpen(t *testing.T) {
	fdDir := "/proc/self/fd"
	if runtime.GOOS == "darwin" {
		fdDir = "/dev/fd"
	}
	sb := newTestbed(t)
	count := func() int {
		e, err := os.ReadDir(fdDir)
		if err != nil || len(e) == 0 {
			t.Fatalf("cannot count this process's descriptors in %s: %v", fdDir, err)
		}
		return len(e)
	}
	runScript(t, "echo warm | cat; sh -c 'echo x'", sb.opts(approvals.DefaultAuto, nil))
	// No garbage collection meanwhile: a finalizer closing a lost file
	// would hide the leak.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	before := count()
	for range 50 {
		runScript(t, "echo hi | cat; sh -c 'echo x'; printf 'a\\n' | xargs echo; ls > /dev/null; echo y >/dev/stdout", sb.opts(approvals.DefaultAuto, nil))
	}
	if after := count(); after > before+3 {
		t.Fatalf("open descriptors %d before 50 runs, %d after", before, after)
	}
	// The memory watch collects garbage past half the bound, and a
	// collection's finalizers would close what leaked: then the count
	// above proves nothing.
	if heapBytes() > MemoryBound/2 {
		t.Fatalf("the runs grew the heap past %d MiB: the memory watch collected garbage while the descriptors were counted; run fewer scripts", MemoryBound/2>>20)
	}
}

// kill, which the interpreter lacks, runs as the system's kill.
func TestKillRunsAsTheSystemsKill(t *testing.T) {
	sb := newTestbed(t)
	res := runScript(t, `pid=$(python3 -c 'import subprocess; print(subprocess.Popen(["sleep", "30"], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).pid)')
kill "$pid"; echo "kill: $?"`, sb.opts(approvals.DefaultAuto, nil))
	if res.Output.Text != "kill: 0\n" {
		t.Fatalf("%s", Render(res))
	}
}

// A process that left the run's groups may hold open a command
// substitution's output, or the input of xargs or of a shell reading its
// script: tandem waits for the end of it as a shell does, but when the
// run's context ends (the call's deadline, a refusal) the run ends all the
// same, and the process with it.
func TestContextEndsARunThatAnEscapedProcessHolds(t *testing.T) {
	for name, script := range map[string]string{
		"substitution": `x=$(PY); echo "$x"`,
		"xargs":        `PY | xargs echo`,
		"sh":           `PY | sh`,
	} {
		t.Run(name, func(t *testing.T) {
			sb := newTestbed(t)
			arg := "300." + strconv.FormatInt(time.Now().UnixNano(), 10)
			py := `python3 -c 'import subprocess; subprocess.Popen(["setsid", "sleep", "` + arg + `"])'`
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r, err := Start(ctx, strings.Replace(script, "PY", py, 1), sb.opts(approvals.DefaultAuto, nil))
			if err != nil {
				t.Fatal(err)
			}
			// Once the sleep runs and python has exited, only the sleep
			// holds the pipe.
			var sleeper string
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				sleeper = ""
				others := 0
				ents, _ := os.ReadDir("/proc")
				for _, e := range ents {
					cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
					if err != nil || !strings.Contains(string(cmd), arg) {
						continue
					}
					if string(cmd) == "sleep\x00"+arg+"\x00" {
						sleeper = e.Name()
					} else {
						others++
					}
				}
				if sleeper != "" && others == 0 {
					break
				}
				if time.Now().After(deadline) {
					r.Kill()
					t.Fatal("the escaped sleep never ran alone")
				}
			}
			cancel()
			select {
			case <-r.Done():
			case <-time.After(30 * time.Second):
				r.Kill()
				t.Fatal("the run went on after its context ended, waiting on a pipe an escaped process holds")
			}
			if _, err := os.Stat("/proc/" + sleeper); err == nil {
				stat, _ := os.ReadFile("/proc/" + sleeper + "/stat")
				t.Fatalf("the escaped sleep outlived its run: %s", stat)
			}
		})
	}
}

// A program that cannot start is reported in bash's words and with bash's
// status, the texts models know.
func TestMissingProgramsSayWhatBashSays(t *testing.T) {
	sb := newTestbed(t)
	os.Mkdir(filepath.Join(sb.root, "d"), 0o755)
	os.WriteFile(filepath.Join(sb.root, "f"), nil, 0o644)
	// A command whose second word spans lines is at that word's last
	// line, as bash's parser counts.
	res := runScript(t, "nosuch arg; echo $?\n./missing; echo $?; ./d; echo $?; ./f; echo $?\nnosuch2 '\nx\n' f; echo $?", sb.opts(approvals.DefaultAuto, nil))
	want := "bash: line 1: nosuch: command not found\n127\n" +
		"bash: line 2: ./missing: No such file or directory\n127\n" +
		"bash: line 2: ./d: Is a directory\n126\n" +
		"bash: line 2: ./f: Permission denied\n126\n" +
		"bash: line 5: nosuch2: command not found\n127\n"
	if res.Output.Text != want {
		t.Fatalf("got %q, want %q", res.Output.Text, want)
	}
}

// `exec -a NAME` and `exec -l` give the program another argv[0], as bash
// does: a shell's $0, and the name a program prints in its errors.
func TestExecGivesTheArgv0Asked(t *testing.T) {
	sb := newTestbed(t)
	res := runScript(t, "(exec -a FOOPROC sh -c 'echo $0'); (exec -l sh -c 'echo $0'); (exec -la X bash -c 'echo $0')\n"+
		"(exec -a renamed cat missing-file); (exec -a renamed env cat missing-file); echo done", sb.opts(approvals.DefaultAuto, nil))
	want := "FOOPROC\n-sh\n-X\nrenamed: missing-file: No such file or directory\ncat: missing-file: No such file or directory\ndone\n"
	if res.Output.Text != want {
		t.Fatalf("got %q, want %q", res.Output.Text, want)
	}
}

// $$ is tandem's own pid: `kill $$` ends the script with the status of the
// signal, as it ends bash, and tandem (this test) lives on.
func TestKillOfItselfEndsTheScriptNotTandem(t *testing.T) {
	sb := newTestbed(t)
	for script, status := range map[string]int{
		"echo a; kill $$; echo never":           143,
		"echo a; kill -9 $$; echo never":        137,
		"echo a; kill -s INT -- $$; echo never": 130,
	} {
		res := runScript(t, script, sb.opts(approvals.DefaultAuto, nil))
		if res.Output.Text != "a\n" || res.Status != status {
			t.Errorf("%s: status %d, output %q; want %d and a", script, res.Status, res.Output.Text, status)
		}
	}
}

// An alias's text is judged when the alias is defined and each of its
// commands again when the alias is used, as any step of the script: a
// command in it that asks does not run on a denial, and the one before it
// in the alias ran as a step of its own.
func TestAliasCommandsAreGatedWhenUsed(t *testing.T) {
	sb := newTestbed(t)
	n := 0
	a := &asker{answer: func(approvals.Question) approvals.Answer {
		n++
		if n == 1 {
			return approvals.AllowOnce // the definition
		}
		return approvals.Deny
	}}
	res := runScript(t, "shopt -s expand_aliases; alias both='touch made; touch ~/.ssh/x'\nboth; echo after", sb.opts(approvals.DefaultAuto, a))
	if _, err := os.Stat(filepath.Join(sb.root, "made")); err != nil {
		t.Errorf("the alias's first command did not run: %v\n%s", err, Render(res))
	}
	if _, err := os.Stat(filepath.Join(sb.home, ".ssh", "x")); err == nil {
		t.Errorf("the alias's denied command ran\n%s", Render(res))
	}
	if q := a.asked(); len(q) != 2 || res.End != Refused || strings.Contains(res.Output.Text, "after") {
		t.Fatalf("questions %+v\n%s", q, Render(res))
	}
	if got := res.Steps[len(res.Steps)-1].Text; got != "touch ~/.ssh/x" && !strings.HasSuffix(got, "/.ssh/x") {
		t.Errorf("refused step %q, want the alias's touch", got)
	}
}
