package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/sandbox"
	"github.com/tandemdev/tandem/shell"
)

type notes struct {
	mu   sync.Mutex
	got  []JobSettled
	cond chan struct{}
}

func bashSession(t *testing.T, settings string) (*Session, *notes) {
	t.Helper()
	return bashSessionAsking(t, settings, nil)
}

// bashSessionAsking opens a session whose user settings file holds settings
// (none when empty) and whose questions asker answers.
func bashSessionAsking(t *testing.T, settings string, asker approvals.Asker) (*Session, *notes) {
	t.Helper()
	st := config.New()
	if settings != "" {
		if err := st.Set(config.SourceUserFile, json.RawMessage(settings)); err != nil {
			t.Fatal(err)
		}
	}
	n := &notes{cond: make(chan struct{}, 16)}
	s := Open(Options{Roots: []string{t.TempDir()}, Settings: st, Asker: asker, JobSettled: func(j JobSettled) {
		n.mu.Lock()
		n.got = append(n.got, j)
		n.mu.Unlock()
		n.cond <- struct{}{}
	}})
	t.Cleanup(s.Close)
	return s, n
}

func callBash(t *testing.T, s *Session, script string) Result {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"command": script})
	return Call(context.Background(), s, "bash", args)
}

// A script past the budget becomes a job: the call returns its output so
// far and the job id, the script goes on, and its end is reported with its
// output (tandem/jobSettled) and in the jobs tool.
func TestBashDetachesPastTheBudgetAndSettlesLater(t *testing.T) {
	s, n := bashSession(t, `{"shell": {"budgetSeconds": 0.3}}`)
	start := time.Now()
	res := callBash(t, s, "echo start; sleep 3; echo end")
	if d := time.Since(start); d > 2500*time.Millisecond { // the script's own end, with room for a loaded machine
		t.Fatalf("the call blocked %v past a 0.3 s budget", d)
	}
	st, _ := res.Structured.(map[string]any)
	if st["end"] != "detached" || !strings.Contains(res.Text, "start") || strings.Contains(res.Text, "end\n") {
		t.Fatalf("detached result: %+v\n%s", st, res.Text)
	}
	id := st["job"].(string)
	select {
	case <-n.cond:
	case <-time.After(10 * time.Second):
		t.Fatal("the job never settled")
	}
	n.mu.Lock()
	note := n.got[0]
	n.mu.Unlock()
	if note.Job != id || note.End != string(shell.Finished) || !strings.Contains(note.Text, "start\nend\n") {
		t.Fatalf("jobSettled: %+v", note)
	}
	list := Call(context.Background(), s, "jobs", json.RawMessage(`{"action":"list"}`))
	if !strings.Contains(list.Text, id+"  finished, exit status 0") {
		t.Fatalf("jobs list: %s", list.Text)
	}
	show := Call(context.Background(), s, "jobs", json.RawMessage(`{"action":"show","id":"`+id+`"}`))
	if !strings.Contains(show.Text, "start\nend\n") {
		t.Fatalf("jobs show: %s", show.Text)
	}
}

// processesOf is every process whose environment carries a shell run's
// marker and one of whose arguments is a sleep operand of tree(token); it
// reads /proc. Other tests, in this package and in others running at the
// same time, run steps too: a whole argument must match, since the token's
// digits may well appear inside another run's paths.
func processesOf(t *testing.T, token string) map[int]string {
	t.Helper()
	out := map[int]string{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte("TANDEM_SHELL_RUN=")) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		for _, arg := range bytes.Split(cmd, []byte{0}) {
			if n, ok := strings.CutSuffix(string(arg), "."+token); ok && len(n) == 3 && strings.HasPrefix(n, "30") {
				out[pid] = string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))
				break
			}
		}
	}
	return out
}

func alive(pids map[int]string) []string {
	var out []string
	for pid, cmd := range pids {
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err == nil {
			stat, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
			out = append(out, strconv.Itoa(pid)+" "+cmd+" "+string(stat))
		}
	}
	return out
}

// tree is a process tree that outlives its script: a pipeline of sleeps, a
// process that left its process group (setsid), and orphans whose parent
// exited. Each sleep's argument ends in token.
func tree(token string) string {
	return strings.ReplaceAll(`sleep 300.T | sleep 301.T &
python3 -c 'import subprocess, os; subprocess.Popen(["setsid", "sleep", "302.T"]); subprocess.Popen(["sleep", "303.T"]); os._exit(0)'
sleep 304.T`, "T", token)
}

func token() string { return strconv.FormatInt(time.Now().UnixNano()%1e9, 10) }

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Killing a job kills every process it started — process groups, the
// orphans it left, one that left its group — and reaps them: none is left
// in /proc, not even as a zombie.
func TestJobKillLeavesNoProcessOfItsTrees(t *testing.T) {
	s, n := bashSession(t, `{"shell": {"budgetSeconds": 0.2}}`)
	tok := token()
	res := callBash(t, s, tree(tok))
	id := res.Structured.(map[string]any)["job"].(string)
	var procs map[int]string
	waitFor(t, "the job's five sleeps", func() bool { procs = processesOf(t, tok); return len(procs) >= 5 })
	kill := Call(context.Background(), s, "jobs", json.RawMessage(`{"action":"kill","id":"`+id+`"}`))
	if !strings.Contains(kill.Text, "killed") {
		t.Fatalf("kill: %s", kill.Text)
	}
	if left := alive(procs); len(left) > 0 {
		t.Fatalf("left after the kill: %v", left)
	}
	select {
	case <-n.cond:
	case <-time.After(5 * time.Second):
		t.Fatal("a killed job did not settle")
	}
}

// Closing the session kills its jobs the same way.
func TestSessionCloseKillsItsJobs(t *testing.T) {
	s, _ := bashSession(t, `{"shell": {"budgetSeconds": 0.2}}`)
	tok := token()
	callBash(t, s, tree(tok))
	var procs map[int]string
	waitFor(t, "the job's sleeps", func() bool { procs = processesOf(t, tok); return len(procs) >= 5 })
	s.Close()
	if left := alive(procs); len(left) > 0 {
		t.Fatalf("left after the session closed: %v", left)
	}
}

// shell.autoEffects is read from the user's own settings only: a workspace
// layer can neither narrow nor widen it.
func TestAutoEffectsComeOnlyFromUserSettings(t *testing.T) {
	var asked []approvals.Question
	s, _ := bashSessionAsking(t, `{"shell": {"autoEffects": ["read"]}}`, approvals.AskerFunc(func(_ context.Context, q approvals.Question) approvals.Answer {
		asked = append(asked, q)
		return approvals.Deny
	}))
	s.Settings().Set(config.SourceConfiguration, json.RawMessage(`{"shell": {"autoEffects": ["read", "write", "exec", "net", "outside", "protected"]}}`))
	res := callBash(t, s, "touch made")
	if len(asked) != 1 || res.Code != refusal.Denied {
		t.Fatalf("a workspace widened the auto set: asked %d, %s", len(asked), res.Text)
	}
	s2, _ := bashSession(t, "")
	s2.Settings().Set(config.SourceClientOther, json.RawMessage(`{"shell": {"autoEffects": []}}`))
	res = callBash(t, s2, "touch made")
	if res.IsError {
		t.Fatalf("a workspace narrowed the auto set: %s", res.Text)
	}
}

// tandem's own environment (and its editor's) holds the credentials its
// steps do not get: reading it is a secret read.
func TestReadingTandemsEnvironmentIsASecretRead(t *testing.T) {
	s, _ := bashSession(t, "")
	res := callBash(t, s, "cat /proc/"+strconv.Itoa(os.Getpid())+"/environ")
	if res.Code != refusal.Unanswered || !strings.Contains(res.Text, "read+secret") {
		t.Fatalf("%s", res.Text)
	}
}

// secretHome makes a home holding one key, ~/.ssh/id_test, for the test.
func secretHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_test"), []byte("key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	return home
}

// A job shows its running step as running and the time since the script
// started; a step of a job that needs a yes is refused without a question:
// the call where the user would answer it is over.
func TestJobsShowRunningStepsAndAskNothing(t *testing.T) {
	secretHome(t)
	var asked atomic.Int32
	s, n := bashSessionAsking(t, `{"shell": {"budgetSeconds": 0.2}}`, approvals.AskerFunc(func(context.Context, approvals.Question) approvals.Answer {
		asked.Add(1)
		return approvals.AllowOnce
	}))
	res := callBash(t, s, "sleep 1; cat ~/.ssh/id_test")
	id, _ := res.Structured.(map[string]any)["job"].(string)
	if id == "" {
		t.Fatalf("not detached: %s", res.Text)
	}
	show := func() string {
		return Call(context.Background(), s, "jobs", json.RawMessage(`{"action":"show","id":"`+id+`"}`)).Text
	}
	if got := show(); !strings.Contains(got, "1. sleep 1  → running") || !strings.Contains(got, "s since it started)") {
		t.Fatalf("while the first step runs:\n%s", got)
	}
	select {
	case <-n.cond:
	case <-time.After(10 * time.Second):
		t.Fatal("the job never settled")
	}
	got := show()
	if asked.Load() != 0 || !strings.Contains(got, "id_test  → refused") || !strings.Contains(got, "had become a job") || strings.Contains(got, "key") {
		t.Fatalf("a job asked (%d questions) or read the key:\n%s", asked.Load(), got)
	}
}

// Time waiting for the user's answer is not running time: a question open
// longer than the budget keeps the call waiting, and the answer decides in
// the call.
func TestAQuestionDoesNotCountAgainstTheBudget(t *testing.T) {
	secretHome(t)
	s, _ := bashSessionAsking(t, `{"shell": {"budgetSeconds": 0.3}}`, approvals.AskerFunc(func(ctx context.Context, _ approvals.Question) approvals.Answer {
		select {
		case <-time.After(time.Second):
			return approvals.AllowOnce
		case <-ctx.Done():
			return approvals.Unanswered
		}
	}))
	res := callBash(t, s, "cat ~/.ssh/id_test; echo after")
	if got, ok := res.Structured.(shell.Result); res.IsError || !ok || got.End != shell.Finished || !strings.Contains(res.Text, "key\nafter") {
		t.Fatalf("the call did not wait for the answer:\n%s", res.Text)
	}
}

// When the call ends while its question is open (the turn's Stop), the
// question is withdrawn from the asker, and an answer given after that runs
// nothing: no job goes on with the step.
func TestACallEndingWithdrawsItsQuestion(t *testing.T) {
	secretHome(t)
	asked, withdrawn := make(chan struct{}), make(chan struct{})
	late := make(chan approvals.Answer)
	s, _ := bashSessionAsking(t, `{"shell": {"budgetSeconds": 0.2}}`, approvals.AskerFunc(func(ctx context.Context, _ approvals.Question) approvals.Answer {
		close(asked)
		<-ctx.Done()
		close(withdrawn)
		return <-late // the user's Allow, arriving after the withdrawal
	}))
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() {
		args, _ := json.Marshal(map[string]string{"command": "cat ~/.ssh/id_test > got"})
		done <- Call(ctx, s, "bash", args)
	}()
	<-asked
	select {
	case res := <-done:
		t.Fatalf("the call ended while its question was open:\n%s", res.Text)
	case <-time.After(600 * time.Millisecond): // three budgets; a slow machine can only make this miss a detach, not fail
	}
	stop()
	select {
	case <-withdrawn:
	case <-time.After(5 * time.Second):
		t.Fatal("the question was not withdrawn when the call ended")
	}
	late <- approvals.AllowOnce
	res := <-done
	if res.Code != refusal.Cancelled {
		t.Fatalf("the stopped call: %s", res.Text)
	}
	// The call returned once its run had ended (Kill waits for that), so
	// nothing of the script can run after this. The redirection opened
	// before the step was asked; the key must not have reached it.
	if b, _ := os.ReadFile(filepath.Join(s.Roots[0], "got")); len(b) > 0 {
		t.Fatalf("a late answer ran the step: %q", b)
	}
	if jobs := s.Jobs().List(); len(jobs) != 0 {
		t.Fatalf("the call left a job: %v", jobs[0].Command)
	}
}

// shell.writableDirs, the scratch places, comes from the user's own
// settings only: there a write is a plain write, and a workspace layer
// cannot add a place.
func TestWritableDirsComeOnlyFromUserSettings(t *testing.T) {
	mine, theirs := t.TempDir(), t.TempDir()
	var asked []approvals.Question
	user := `{"shell": {"autoEffects": ["read", "write", "exec"], "writableDirs": [` + strconv.Quote(mine) + `]}}`
	st := config.New()
	if err := st.Set(config.SourceUserFile, json.RawMessage(user)); err != nil {
		t.Fatal(err)
	}
	if err := st.Set(config.SourceConfiguration, json.RawMessage(`{"shell": {"writableDirs": [`+strconv.Quote(mine)+`, `+strconv.Quote(theirs)+`]}}`)); err != nil {
		t.Fatal(err)
	}
	s := Open(Options{Roots: []string{t.TempDir()}, Settings: st, Asker: approvals.AskerFunc(func(_ context.Context, q approvals.Question) approvals.Answer {
		asked = append(asked, q)
		return approvals.Deny
	})})
	t.Cleanup(s.Close)
	if res := callBash(t, s, "touch "+mine+"/made"); res.IsError || len(asked) != 0 {
		t.Fatalf("a write in a writable dir of the user's asked (%d) or failed: %s", len(asked), res.Text)
	}
	if res := callBash(t, s, "touch "+theirs+"/made"); res.Code != refusal.Denied || len(asked) != 1 || !asked[0].Steps[0].Effects.Has(approvals.Outside) {
		t.Fatalf("a workspace's writable dir was taken: asked %d, %s", len(asked), res.Text)
	}
	bad := config.New()
	if err := bad.Set(config.SourceUserFile, json.RawMessage(`{"shell": {"writableDirs": ["build"]}}`)); err != nil {
		t.Fatal(err)
	}
	if probs := SettingsProblems(bad); len(probs) != 1 || !strings.Contains(probs[0].Error(), `"build" is neither absolute`) {
		t.Fatalf("a relative writable dir is not reported: %v", probs)
	}
}

// shell.readableDirs, places in the home a step reads without outside,
// comes from the user's own settings only: the gate and the kernel open
// the user's place, and a workspace layer cannot add one.
func TestReadableDirsComeOnlyFromUserSettings(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, d := range []string{"mine", "theirs"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, d, "notes"), []byte(d+"-notes\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st := config.New()
	// No scratch place: the temporary directory that holds this home is one.
	if err := st.Set(config.SourceUserFile, json.RawMessage(`{"shell": {"readableDirs": ["~/mine"], "writableDirs": []}}`)); err != nil {
		t.Fatal(err)
	}
	if err := st.Set(config.SourceConfiguration, json.RawMessage(`{"shell": {"readableDirs": ["~/mine", "~/theirs"]}}`)); err != nil {
		t.Fatal(err)
	}
	var asked []approvals.Question
	s := Open(Options{Roots: []string{t.TempDir()}, Settings: st, Asker: approvals.AskerFunc(func(_ context.Context, q approvals.Question) approvals.Answer {
		asked = append(asked, q)
		return approvals.Deny
	})})
	t.Cleanup(s.Close)
	if res := callBash(t, s, "cat ~/mine/notes && python3 -c 'print(open(\""+home+"/mine/notes\").read())'"); res.IsError || len(asked) != 0 || strings.Count(res.Text, "mine-notes") != 2 {
		t.Fatalf("a read in a readable dir of the user's asked (%d) or failed: %s", len(asked), res.Text)
	}
	if res := callBash(t, s, "cat ~/theirs/notes"); res.Code != refusal.Denied || len(asked) != 1 || !asked[0].Steps[0].Effects.Has(approvals.Outside) {
		t.Fatalf("a workspace's readable dir was taken: asked %d, %s", len(asked), res.Text)
	}
	bad := config.New()
	if err := bad.Set(config.SourceUserFile, json.RawMessage(`{"shell": {"readableDirs": ["notes"]}}`)); err != nil {
		t.Fatal(err)
	}
	if probs := SettingsProblems(bad); len(probs) != 1 || !strings.Contains(probs[0].Error(), `"notes" is neither absolute`) {
		t.Fatalf("a relative readable dir is not reported: %v", probs)
	}
}

// shell.sandbox is read from the user's own settings only: a workspace
// cannot turn the sandbox off, the user can, and a bad value keeps it on.
func TestSandboxTurnsOffOnlyInUserSettings(t *testing.T) {
	if err := sandbox.Supported().Unavailable; err != nil && os.Getenv("TANDEM_TEST_NO_LANDLOCK") == "1" {
		t.Skipf("TANDEM_TEST_NO_LANDLOCK=1: %v", err)
	}
	open := func(layer config.Source, settings string) *Session {
		st := config.New()
		if err := st.Set(layer, json.RawMessage(settings)); err != nil {
			t.Fatal(err)
		}
		s := Open(Options{Roots: []string{t.TempDir()}, Settings: st})
		t.Cleanup(s.Close)
		return s
	}
	if box, err := open(config.SourceConfiguration, `{"shell": {"sandbox": false}}`).Sandbox(); box == nil {
		t.Fatalf("a workspace turned the sandbox off: %v", err)
	}
	if box, err := open(config.SourceUserFile, `{"shell": {"sandbox": "no"}}`).Sandbox(); box == nil {
		t.Fatalf("a bad value turned the sandbox off: %v", err)
	}
	box, err := open(config.SourceUserFile, `{"shell": {"sandbox": false}}`).Sandbox()
	if box != nil || err == nil || !strings.Contains(err.Error(), "shell.sandbox") {
		t.Fatalf("the user's false: %v, %v", box, err)
	}
}

// A script whose programs need more than their steps are allowed asks for
// it with "with": one question with the model's reason, and on a yes the
// sandbox lets the script's processes have it; on a no nothing runs.
func TestBashWithAsksOnceAndWidensTheSandbox(t *testing.T) {
	if err := sandbox.Supported().Unavailable; err != nil {
		t.Fatalf("this test needs the kernel sandbox: %v", err)
	}
	outside := t.TempDir() // writable to the test, outside the session's root
	if err := os.Chmod(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	made := filepath.Join(outside, "made")
	// Python writes where its words do not say: the gate lets it run, the
	// sandbox holds it to the workspace and the scratch places.
	script := `python3 -c 'open("` + made + `", "w").write("x")'`
	// TMPDIR is a scratch place, where a write is plain: point it elsewhere.
	t.Setenv("TMPDIR", t.TempDir())
	var asked []approvals.Question
	answer := approvals.AllowOnce
	s, _ := bashSessionAsking(t, `{"shell": {"writableDirs": []}}`, approvals.AskerFunc(func(_ context.Context, q approvals.Question) approvals.Answer {
		asked = append(asked, q)
		return answer
	}))
	call := func(with any) Result {
		args, _ := json.Marshal(map[string]any{"command": script, "with": with})
		if with == nil {
			args, _ = json.Marshal(map[string]any{"command": script})
		}
		return Call(context.Background(), s, "bash", args)
	}
	if r := call(nil); !strings.Contains(r.Text, "sandbox: step 1") || fileExists(made) {
		t.Fatalf("without with, the sandbox held the write: %s", r.Text)
	}
	if len(asked) != 0 {
		t.Fatalf("a step the gate allows asked: %+v", asked)
	}
	with := map[string]any{"access": []string{"outside"}, "reason": "write the report beside the workspace"}
	answer = approvals.Deny
	if r := call(with); r.Code != refusal.Denied || !strings.Contains(r.Text, "nothing ran") || fileExists(made) {
		t.Fatalf("a denied with: %+v", r)
	}
	answer = approvals.AllowOnce
	if r := call(with); r.IsError || !fileExists(made) {
		t.Fatalf("an allowed with: %s", r.Text)
	}
	if len(asked) != 2 || !strings.Contains(asked[1].Steps[0].Text, "run with outside (write the report beside the workspace): python3") || !asked[1].Steps[0].Effects.Has(approvals.Outside) {
		t.Fatalf("the questions: %+v", asked)
	}
	for _, bad := range []any{
		map[string]any{"access": []string{"exec"}, "reason": "x"},
		map[string]any{"access": []string{"net"}, "reason": ""},
		map[string]any{"access": []string{}, "reason": "x"},
	} {
		if r := call(bad); r.Code != refusal.Invalid {
			t.Fatalf("with %v: %+v", bad, r)
		}
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// The variables the user's settings use as keys never reach a step,
// whatever their names: a provider's apiKeyEnv, what an MCP server of
// mcp.servers is handed. shell.passEnv passes a credential by name, from
// the user's own settings only (a workspace layer passes nothing and drops
// nothing), and its value is still hidden from the result.
func TestConfiguredKeysStayOutAndOnlyTheUserPasses(t *testing.T) {
	t.Setenv("WORK_PROVIDER", "provider-value-1")
	t.Setenv("SEARCH_SERVICE", "server-value-2")
	t.Setenv("DEPLOY_TOKEN", "deploy-value-3")
	t.Setenv("WS_DEPLOY_TOKEN", "workspace-passed-4")
	user := `{"agent": {"providers": {"work": {"api": "anthropic", "url": "https://example.com", "apiKeyEnv": "WORK_PROVIDER"}}},
		"mcp": {"servers": {"search": {"command": "search-mcp", "env": {"API": "${env:SEARCH_SERVICE}"}}}},
		"shell": {"passEnv": ["DEPLOY_TOKEN"]}}`
	st := config.New()
	if err := st.Set(config.SourceUserFile, json.RawMessage(user)); err != nil {
		t.Fatal(err)
	}
	ws := `{"shell": {"passEnv": ["WS_DEPLOY_TOKEN"]}, "agent": {"providers": {"x": {"apiKeyEnv": "PATH"}}}}`
	if err := st.Set(config.SourceConfiguration, json.RawMessage(ws)); err != nil {
		t.Fatal(err)
	}
	var heard bytes.Buffer
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		_ = r.Header.Write(&heard)
	}))
	defer srv.Close()
	s := Open(Options{Roots: []string{t.TempDir()}, Settings: st})
	t.Cleanup(s.Close)
	res := callBash(t, s, `env; printenv WORK_PROVIDER SEARCH_SERVICE WS_DEPLOY_TOKEN; /usr/bin/python3 -c 'import os; print(dict(os.environ))'
curl -s -H "probe: 1" -H "x: $WORK_PROVIDER $SEARCH_SERVICE $WS_DEPLOY_TOKEN" `+srv.URL+`
echo "deploy=$DEPLOY_TOKEN"; printf %s "$DEPLOY_TOKEN" > got; command -v ls`)
	mu.Lock()
	got := heard.String()
	mu.Unlock()
	if !strings.Contains(got, "Probe: 1") {
		t.Fatalf("curl reached no listener:\n%s", res.Text)
	}
	for _, v := range []string{"provider-value-1", "server-value-2", "deploy-value-3", "workspace-passed-4"} {
		if strings.Contains(res.Text, v) || strings.Contains(got, v) {
			t.Errorf("%s reached the result or the listener:\n%s\n%s", v, res.Text, got)
		}
	}
	if !strings.Contains(res.Text, "deploy=[hidden: $DEPLOY_TOKEN]") || !strings.Contains(res.Text, "/ls") {
		t.Errorf("the passed variable or PATH did not reach the step:\n%s", res.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(s.Roots[0], "got")); string(b) != "deploy-value-3" {
		t.Errorf("the step got DEPLOY_TOKEN = %q", b)
	}
	bad := config.New()
	if err := bad.Set(config.SourceUserFile, json.RawMessage(`{"shell": {"passEnv": "DEPLOY_TOKEN"}}`)); err != nil {
		t.Fatal(err)
	}
	if probs := SettingsProblems(bad); len(probs) != 1 || !strings.Contains(probs[0].Error(), "shell.passEnv") {
		t.Errorf("a bad shell.passEnv is not reported: %v", probs)
	}
}

// What the sandbox held back from a step is told only where it may explain
// a failure: on the failed step the text's sandbox line names, in the
// structured result as in the text. The steps that succeeded — every one
// of which ran without outside, protected and secret — and a failure of
// the step's own carry no "held". The call the note suggests succeeds.
func TestBashHeldOnlyWhereTheSandboxNoteSaysIt(t *testing.T) {
	if err := sandbox.Supported().Unavailable; err != nil {
		t.Fatalf("this test needs the kernel sandbox: %v", err)
	}
	outside := t.TempDir() // writable to the test, outside the session's root
	if err := os.Chmod(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	made := filepath.Join(outside, "made")
	t.Setenv("TMPDIR", t.TempDir()) // a scratch place, where a write is plain
	s, _ := bashSessionAsking(t, `{"shell": {"writableDirs": []}}`, approvals.AskerFunc(func(context.Context, approvals.Question) approvals.Answer {
		return approvals.AllowOnce
	}))
	call := func(args map[string]any) (Result, []map[string]any) {
		raw, _ := json.Marshal(args)
		r := Call(context.Background(), s, "bash", raw)
		var st struct{ Steps []map[string]any }
		b, _ := json.Marshal(r.Structured) // as the MCP door sends it
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		return r, st.Steps
	}
	heldOn := func(steps []map[string]any) []string {
		var on []string
		for _, st := range steps {
			if h, ok := st["held"]; ok {
				on = append(on, fmt.Sprintf("%v:%v", st["n"], h))
			}
		}
		return on
	}
	script := `echo hi; ls; cat missing.txt; python3 -c 'open("` + made + `", "w").write("x")'; true`
	r, steps := call(map[string]any{"command": script})
	if on := heldOn(steps); fmt.Sprint(on) != "[4:outside+protected+secret]" || !strings.Contains(r.Text, "\nsandbox: step 4 (`python3") {
		t.Fatalf("held on steps %v; want it on step 4 alone, as the text's sandbox line:\n%s", on, r.Text)
	}
	r, steps = call(map[string]any{"command": script, "with": map[string]any{"access": []string{"outside"}, "reason": "write the report beside the workspace"}})
	if on := heldOn(steps); r.IsError || len(on) != 0 || strings.Contains(r.Text, "sandbox:") || !fileExists(made) {
		t.Fatalf("the call the note suggests: held on %v:\n%s", on, r.Text)
	}
}
