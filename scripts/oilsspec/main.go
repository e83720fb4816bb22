// Command oilsspec measures how often tandem's gated shell prints what bash
// prints, on the cases of Oils' spec suite (oils-for-unix/oils,
// spec/*.test.sh): a suite written by another project, so it finds what
// tandem's own conformance cases never thought to ask.
//
// Each case's code runs twice, each time in a fresh temporary directory:
// once as `bash -c CODE`, once as `tandem tool bash {"command": CODE}`, the
// way a user runs it (the gate on, every step classified with its real
// arguments; the auto set holds every effect but secret, in a user config
// file of the harness's own, so no step waits for a question). The two
// outputs (stdout and stderr together, in order) and exit statuses are
// compared after one normalisation: each side's own temporary directory
// reads $TMP. bash's $0 is "bash", as tandem's is, so an error reads
// `bash: line N: …` on both sides. Both get the environment sh_spec.py gives
// (PATH, LC_ALL=C.UTF-8, REPO_ROOT, TMP, SH=bash) plus the harness's HOME
// and XDG directories, and /dev/null as stdin. A side still running after
// 10 s is stopped and the case counted as past the bound.
//
// Usage:
//
//	go run ./scripts/oilsspec -suite DIR [-file NAME,…] [-case TEXT] [-v] [-j N] [-tandem BIN]
//
// DIR is a checkout of oils-for-unix/oils (its spec/ directory is read);
// -file names spec files without `.test.sh` (default: the files of
// docs/evidence/shell.md); -case keeps the cases whose name holds TEXT; -v
// prints each differing case with both outputs; -tandem runs that binary
// instead of building ./cmd/tandem.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// defaultFiles are the spec files measured in docs/evidence/shell.md.
const defaultFiles = "alias,append,arg-parse,arith-context,arith-dynamic,array-assign,array-assoc," +
	"array-basic,array-literal,array-sparse,array,assign-deferred,assign-extended,background," +
	"bool-parse,brace-expansion,bugs,builtin-bash,builtin-bracket,builtin-cd,builtin-echo," +
	"builtin-eval-source,builtin-getopts,builtin-kill,builtin-meta-assign,builtin-meta,builtin-misc," +
	"builtin-printf,builtin-process,builtin-read,builtin-set,builtin-special,builtin-trap-bash," +
	"builtin-trap-err,builtin-trap,builtin-type-bash,builtin-type,builtin-umask,builtin-vars," +
	"command-parsing,command_,comments,dbracket,dparen,empty-bodies,extglob-files,extglob-match," +
	"fatal-errors,for-expr,func-parsing,glob-bash,globignore,globstar,let,nameref,nocasematch-match," +
	"nul-bytes,paren-ambiguity,parse-errors,posix,process-sub,redir-order,redirect-command," +
	"redirect-multi,regex,sh-options-bash,sh-options,shell-bugs,shell-grammar,smoke,temp-binding," +
	"tilde,unicode,var-num,var-op-bash,var-op-len,var-op-patsub,var-op-slice,var-op-strip," +
	"var-op-test,var-ref,var-sub,vars-bash,vars-special,whitespace,word-eval"

// limit bounds one side's run of one case.
const limit = 10 * time.Second

func main() {
	suite := flag.String("suite", "", "a checkout of oils-for-unix/oils")
	files := flag.String("file", defaultFiles, "spec files to run, without .test.sh, comma-separated")
	only := flag.String("case", "", "run only the cases whose name holds this text")
	verbose := flag.Bool("v", false, "print each differing case with both outputs")
	jobs := flag.Int("j", runtime.NumCPU(), "cases run at once")
	tandem := flag.String("tandem", "", "the tandem binary (default: build ./cmd/tandem)")
	flag.Parse()
	if *suite == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/oilsspec -suite DIR [-file NAME,…] [-case TEXT] [-v] [-j N] [-tandem BIN]")
		os.Exit(2)
	}
	if err := run(*suite, strings.Split(*files, ","), *only, *verbose, *jobs, *tandem); err != nil {
		fmt.Fprintln(os.Stderr, "oilsspec:", err)
		os.Exit(1)
	}
}

// harness holds what every case shares: the binary, the suite, and a home
// whose config lets every step but a secret's run unasked.
type harness struct {
	tandem, suite, root, home string
	env                       []string
}

func run(suite string, files []string, only string, verbose bool, jobs int, tandem string) error {
	suite, err := filepath.Abs(suite)
	if err != nil {
		return err
	}
	root, err := os.MkdirTemp("", "oilsspec-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	h := &harness{tandem: tandem, suite: suite, root: root}
	if h.tandem == "" {
		h.tandem = filepath.Join(root, "tandem")
		build := exec.Command("go", "build", "-o", h.tandem, "./cmd/tandem")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building tandem: %w", err)
		}
	}
	err = h.prepareHome()
	defer os.RemoveAll(h.home)
	if err != nil {
		return err
	}

	type job struct {
		file string
		c    specCase
	}
	var all []job
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(suite, "spec", f+".test.sh"))
		if err != nil {
			return err
		}
		cases, err := parseSpec(string(text))
		if err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		for _, c := range cases {
			if strings.Contains(c.name, only) {
				all = append(all, job{f, c})
			}
		}
	}

	results := make([]outcome, len(all))
	var wg sync.WaitGroup
	next := make(chan int)
	for range max(jobs, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = h.compare(all[i].c.code)
			}
		}()
	}
	for i := range all {
		next <- i
	}
	close(next)
	wg.Wait()

	type tally struct{ cases, same, slow int }
	byFile := map[string]*tally{}
	var total tally
	var slowest struct {
		name string
		took time.Duration
	}
	for i, j := range all {
		r := results[i]
		t := byFile[j.file]
		if t == nil {
			t = &tally{}
			byFile[j.file] = t
		}
		name := fmt.Sprintf("%s.test.sh:%d %s", j.file, j.c.line, j.c.name)
		t.cases++
		total.cases++
		if r.same() {
			t.same++
			total.same++
		}
		if r.tandem.past || r.bash.past {
			t.slow++
			total.slow++
			fmt.Printf("PAST %v: %s (tandem %v, bash %v)\n", limit, name, r.tandem.took.Round(time.Millisecond), r.bash.took.Round(time.Millisecond))
		}
		if r.tandem.took > slowest.took {
			slowest.name, slowest.took = name, r.tandem.took
		}
		if verbose && !r.same() {
			fmt.Printf("=== %s\n%s--- bash %s--- tandem %s\n", name, j.c.code, r.bash, r.tandem)
		}
	}
	fmt.Printf("%-22s %6s %9s %8s %6s\n", "file", "cases", "identical", "percent", "past")
	for _, f := range files {
		if t := byFile[f]; t != nil {
			fmt.Printf("%-22s %6d %9d %7.1f%% %6d\n", f, t.cases, t.same, percent(t.same, t.cases), t.slow)
		}
	}
	fmt.Printf("%-22s %6d %9d %7.1f%% %6d\n", "total", total.cases, total.same, percent(total.same, total.cases), total.slow)
	fmt.Printf("slowest under tandem: %s (%v)\n", slowest.name, slowest.took.Round(time.Millisecond))
	return nil
}

func percent(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// prepareHome makes the harness's home and its tandem config: every effect
// but secret (which no config may hold) runs unasked, and the budget is past
// the harness's bound so no case becomes a job. The home is not in the
// temporary directory: a home holds secrets, and a directory holding one is
// kept from the steps, so /tmp would be closed to them.
func (h *harness) prepareHome() error {
	cache, err := os.UserCacheDir()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return err
	}
	home, err := os.MkdirTemp(cache, "oilsspec-home-")
	if err != nil {
		return err
	}
	h.home = home
	config := filepath.Join(home, ".config")
	if err := os.MkdirAll(filepath.Join(config, "tandem"), 0o700); err != nil {
		return err
	}
	settings := `{"shell": {"autoEffects": ["read", "write", "exec", "net", "outside", "protected"], "budgetSeconds": 60}}`
	if err := os.WriteFile(filepath.Join(config, "tandem", "config.json"), []byte(settings), 0o600); err != nil {
		return err
	}
	bin, err := h.pythonBin()
	if err != nil {
		return err
	}
	h.env = []string{
		// spec/bin first, as Oils' runner puts it: argv.py, printenv.py …
		"PATH=" + filepath.Join(h.suite, "spec", "bin") + ":" + bin + ":" + os.Getenv("PATH"),
		"LC_ALL=C.UTF-8",
		"REPO_ROOT=" + h.suite,
		"SH=bash",
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + config,
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
	}
	return nil
}

// pythonBin returns a directory whose python2 runs the suite's helpers
// (spec/bin/*.py start with `#!/usr/bin/env python2`): python2 where one
// runs, else python3, which runs them too; both sides get the same one.
func (h *harness) pythonBin() (string, error) {
	bin := filepath.Join(h.root, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return "", err
	}
	for _, name := range []string{"python2", "python3"} {
		out, err := exec.Command(name, "-c", "import sys; print(sys.executable)").Output()
		if err == nil {
			return bin, os.Symlink(strings.TrimSpace(string(out)), filepath.Join(bin, "python2"))
		}
	}
	return "", errors.New("neither python2 nor python3 runs; the suite's helpers need one")
}

// side is one shell's run of one case.
type side struct {
	out    string
	status int // -1: the run did not end with a status (tandem refused, failed, was stopped)
	past   bool
	took   time.Duration
}

func (s side) String() string {
	if s.past {
		return fmt.Sprintf("(still running after %v)\n%s", limit, s.out)
	}
	return fmt.Sprintf("(status %d)\n%s", s.status, s.out)
}

type outcome struct{ bash, tandem side }

func (o outcome) same() bool {
	return !o.bash.past && !o.tandem.past && o.bash.out == o.tandem.out && o.bash.status == o.tandem.status
}

func (h *harness) compare(code string) outcome {
	return outcome{
		bash:   h.runSide("bash", "-c", code),
		tandem: h.runTandem(code),
	}
}

func (h *harness) runTandem(code string) side {
	args, _ := json.Marshal(map[string]string{"command": code})
	s := h.runSide(h.tandem, "tool", "bash", string(args))
	if s.past {
		return s
	}
	s.out, s.status = tandemResult(s.out)
	return s
}

// runSide runs one program in a fresh directory under the bound, its
// stdout and stderr into one buffer.
func (h *harness) runSide(program string, args ...string) side {
	dir, err := os.MkdirTemp(h.root, "case-")
	if err != nil {
		return side{out: err.Error() + "\n", status: -1}
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, program, args...)
	cmd.Dir = dir
	cmd.Env = append(h.env, "TMP="+dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Its own process group, so that what a case leaves behind is stopped
	// with it; tandem gets SIGINT first, which stops its script and the
	// processes the script started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if program == h.tandem {
			_ = cmd.Process.Signal(os.Interrupt)
			time.AfterFunc(2*time.Second, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	cmd.WaitDelay = 3 * time.Second
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	if ctx.Err() != nil {
		return side{out: out.String(), status: -1, past: true, took: took}
	}
	status := cmd.ProcessState.ExitCode()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return side{out: err.Error() + "\n", status: -1, took: took}
	}
	return side{out: strings.ReplaceAll(out.String(), dir, "$TMP"), status: status, took: took}
}

var (
	endedWith  = regexp.MustCompile(`^(?:finished|exited): exit status (\d+)$`)
	outputHead = regexp.MustCompile(`(?m)^output (?:\((\d+) bytes[^\n]*\):\n|: none\n)`)
)

// tandemResult takes the script's output and exit status from the text of
// a bash result (docs/tools.md, "The result"). A script that did not end
// with a status (refused, failed, bounded, killed) keeps the result's first
// line after its output, so the difference shows why.
func tandemResult(text string) (string, int) {
	first, _, _ := strings.Cut(text, "\n")
	out := ""
	if loc := outputHead.FindStringSubmatchIndex(text); loc != nil {
		out = text[loc[1]:]
		if loc[2] >= 0 {
			if n, err := strconv.Atoi(text[loc[2]:loc[3]]); err == nil && n <= len(out) {
				out = out[:n]
			}
		}
	}
	if m := endedWith.FindStringSubmatch(first); m != nil {
		n, _ := strconv.Atoi(m[1])
		return out, n
	}
	return out + "(tandem: " + first + ")\n", -1
}
