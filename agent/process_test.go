package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/fsnotify/fsnotify"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/internal/lawhit"
	"github.com/tandemdev/tandem/tools"
)

// chatProcess is the name under which this test binary runs a chat in a
// process of its own (see child): a link to the test binary, so the hook
// needs no environment variable a real tandem would read.
const chatProcess = "tandem-chat-process"

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == chatProcess {
		os.Exit(child(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// chatBinary links this test binary as chatProcess.
func chatBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), chatProcess)
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// child runs one of the processes of the tests below: MODE STORE WS ID ARGS….
func child(args []string) int {
	store, err := OpenStore(args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ws, id := args[2], args[3]
	m := &fake.Model{}
	opts := Options{Session: tools.Open(tools.Options{ID: id, Roots: []string{ws}}), Provider: m, Endpoint: Endpoint{Provider: "test", Model: "m"}, Store: store}
	switch args[0] {
	case "turns":
		return turnsChild(opts, m, id, args[4:])
	case "edit":
		return editChild(opts, m, ws, args[4])
	case "restore":
		return restoreChild(opts, ws, id, args[4])
	}
	return 2
}

// waitFor waits for the file another process makes.
func waitFor(path string) {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	fmt.Fprintf(os.Stderr, "%s never came\n", path)
	os.Exit(3)
}

// turnsChild loads chat id and runs turns of it, each writing a file:
// NAME TURNS SYNC. The process "first" waits, in its first turn, until
// "second" was refused a turn of its own; the others retry a refused turn
// until it runs. It prints how often it was refused and brought up to date.
func turnsChild(opts Options, m *fake.Model, id string, args []string) int {
	name, sync := args[0], args[2]
	turns, _ := strconv.Atoi(args[1])
	c, err := ResumeChat(opts, id)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer c.Close()
	refused, caughtUp := 0, 0
	for k := range turns {
		file := fmt.Sprintf("%s-%d.txt", name, k)
		m.Responses = []func(providers.Request) providers.Response{
			func(req providers.Request) providers.Response {
				if name == "first" && k == 0 {
					_ = os.WriteFile(filepath.Join(sync, "first-in-turn"), nil, 0o600)
					waitFor(filepath.Join(sync, "second-refused"))
				}
				return fake.Call(fake.Use(name+strconv.Itoa(k), "write", map[string]any{"path": file, "content": name + "\n"}))(req)
			},
			fake.Say("wrote " + file),
		}
		if name == "second" && k == 0 {
			waitFor(filepath.Join(sync, "first-in-turn"))
		}
		for {
			_, err := c.Prompt(context.Background(), textPrompt("write "+file), func(u acp.SessionUpdate) {
				if u.AgentThoughtChunk != nil && strings.Contains(u.AgentThoughtChunk.Content.Text.Text, "went on in another tandem") {
					caughtUp++
				}
			})
			if errors.Is(err, errChatBusy) {
				if refused++; refused == 1 && name == "second" {
					_ = os.WriteFile(filepath.Join(sync, "second-refused"), nil, 0o600)
				}
				time.Sleep(time.Millisecond)
				continue
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			break
		}
	}
	fmt.Printf("refused %d caught-up %d\n", refused, caughtUp)
	return 0
}

// Two processes on one chat (two editors, or avante's two `tandem acp`)
// take turns: a turn started while the other process runs one is refused
// with what to do, and each turn goes on from every turn the file holds.
// The history is one valid conversation: every tool call answered in the
// next message, never two answers or two prompts in a row, each turn
// numbered once.
func TestTwoProcessesOnOneChatTakeTurns(t *testing.T) {
	const id, turns = "00000000000000e1", 4
	bin := chatBinary(t)
	s := newStoredChat(t, filepath.Join(t.TempDir(), "chats"))
	s.turn(id, "start", fake.Say("started"))
	sync := t.TempDir()
	type run struct {
		cmd *exec.Cmd
		out bytes.Buffer
	}
	var runs []*run
	for _, name := range []string{"first", "second"} {
		r := &run{cmd: exec.Command(bin, "turns", s.store.dir, s.ws, id, name, strconv.Itoa(turns), sync)}
		r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.out
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	for _, r := range runs {
		if err := r.cmd.Wait(); err != nil {
			t.Fatalf("%v: %v\n%s", r.cmd.Args[5], err, r.out.String())
		}
	}
	var refused, caughtUp int
	if _, err := fmt.Sscanf(runs[1].out.String(), "refused %d caught-up %d", &refused, &caughtUp); err != nil || refused < 1 || caughtUp < 1 {
		t.Fatalf("the second process was refused %d times and brought up to date %d times (%q)", refused, caughtUp, runs[1].out.String())
	}

	c, err := ResumeChat(s.options(id), id)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msgs := c.Messages()
	wellFormed(t, []providers.Request{{Messages: msgs}})
	for i := 1; i < len(msgs); i++ {
		if msgs[i].Role == msgs[i-1].Role {
			t.Fatalf("messages %d and %d are both the %s's", i-1, i, msgs[i].Role)
		}
	}
	var numbers []int
	for i, turn := range c.turnOf {
		if turn >= 0 {
			if msgs[i].Blocks[0].Kind != providers.Text {
				t.Fatalf("turn %d opens with %+v", turn, msgs[i].Blocks[0])
			}
			numbers = append(numbers, turn)
		}
	}
	if want := 1 + 2*turns; len(numbers) != want || len(msgs) != 2+4*2*turns {
		t.Fatalf("%d prompts (turns %v) in %d messages, want %d prompts", len(numbers), numbers, len(msgs), want)
	}
	for i, n := range numbers {
		if n != i {
			t.Fatalf("the turns are numbered %v", numbers)
		}
	}
	if cps := c.Checkpoints(); len(cps) != 2*turns {
		t.Fatalf("%d checkpoints, want one per writing turn: %+v", len(cps), cps)
	}
}

// The avante pattern: one process loads a chat and stays idle, a second
// loads it and runs turns, then the first runs one. The first process's
// turn starts from the second's: the client is told, and shown them.
func TestIdleProcessGoesOnFromTheOthersTurns(t *testing.T) {
	const id = "00000000000000e2"
	s := newStoredChat(t, filepath.Join(t.TempDir(), "chats"))
	s.turn(id, "start", fake.Say("started"))
	idle, err := ResumeChat(s.options(id), id)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	s.turn(id, "in the other editor", fake.Call(fake.Use("w1", "write", map[string]any{"path": "x.txt", "content": "x\n"})), fake.Say("wrote x"))
	s.m.Responses = []func(providers.Request) providers.Response{fake.Say("seen")}
	var u updates
	if _, err := idle.Prompt(context.Background(), textPrompt("back here"), u.emit); err != nil {
		t.Fatal(err)
	}
	if got := thoughtText(u.all); !strings.Contains(got, "this chat went on in another tandem since it was opened here; it now has 6 messages, 2 before") {
		t.Fatalf("the client was told %q", got)
	}
	var shown []string
	for _, x := range u.all {
		if x.UserMessageChunk != nil {
			shown = append(shown, x.UserMessageChunk.Content.Text.Text)
		}
	}
	if strings.Join(shown, "|") != "in the other editor" {
		t.Fatalf("the client was shown the prompts %q", shown)
	}
	if n := len(s.m.Requests[len(s.m.Requests)-1].Messages); n != 7 {
		t.Fatalf("the idle process's turn sent %d messages, want the 6 in the file and its prompt", n)
	}
	if cps := idle.Checkpoints(); len(cps) != 1 || cps[0].Turn != 1 {
		t.Fatalf("the other process's checkpoint is not restorable here: %+v", cps)
	}
}

// editFiles are the files the edit turn changes, with what they hold
// first: large enough that a kill lands between one file and the next.
var editFiles = func() map[string]string {
	out := map[string]string{}
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		var b strings.Builder
		for i := 1; i <= 20000; i++ {
			fmt.Fprintf(&b, "line %d of %s\n", i, name)
		}
		out[name] = b.String()
	}
	return out
}()

// tagOf is the tag a read's result shows.
func tagOf(req providers.Request, id string) string {
	r := lastResult(req, id)
	return r[strings.Index(r, "#")+1 : strings.Index(r, "]")]
}

// killer arms the kill points KILL names in a process working on ws:
// "emit:N" at the Nth call of die(emitted, "emit"), "landed:N" once the
// Nth file change (a file made, written or removed) is seen in ws. The
// process kills itself with SIGKILL there.
// settle waits until every file change before it is counted: inotify
// reports changes in order, so once its own mark is seen, all are.
func killer(ws, kill string) (emitted, landed *atomic.Int64, die func(*atomic.Int64, string), settle func()) {
	kind, nth, _ := strings.Cut(kill, ":")
	at, _ := strconv.Atoi(nth)
	emitted, landed = &atomic.Int64{}, &atomic.Int64{}
	die = func(n *atomic.Int64, k string) {
		if v := n.Add(1); kind == k && v == int64(at) {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil || w.Add(ws) != nil {
		fmt.Fprintln(os.Stderr, "watch:", err)
		os.Exit(2)
	}
	mark, settled := filepath.Join(ws, ".settled"), make(chan struct{})
	go func() {
		for ev := range w.Events {
			if ev.Name == mark && ev.Has(fsnotify.Create) {
				close(settled)
			}
			if !strings.HasPrefix(filepath.Base(ev.Name), ".") && (ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write) || ev.Has(fsnotify.Remove)) {
				die(landed, "landed")
			}
		}
	}()
	settle = func() {
		if err := os.WriteFile(mark, nil, 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		<-settled
		_ = os.Remove(mark)
	}
	return emitted, landed, die, settle
}

// restoreChild loads chat id and restores its turn 0, killing itself at
// the point KILL names (see killer); "" restores whole and prints how many
// file changes there were.
func restoreChild(opts Options, ws, id, kill string) int {
	_, landed, _, settle := killer(ws, kill)
	c, err := ResumeChat(opts, id)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	res, err := c.Restore(context.Background(), 0, false)
	c.Close()
	if err != nil || res.IsError {
		fmt.Fprintln(os.Stderr, err, res.Text)
		return 2
	}
	settle()
	fmt.Printf("landed %d\n", landed.Load())
	return 0
}

// editChild runs one turn that edits three files in one call, creates a
// fourth and edits one again, and kills itself with SIGKILL at the point
// KILL names: "emit:N", at the Nth update the client is sent, or
// "landed:N", once the Nth file change of the turn is seen on disk; "" runs
// the turn whole and prints how many of each there were.
func editChild(opts Options, m *fake.Model, ws, kill string) int {
	emitted, landed, die, settle := killer(ws, kill)
	replace := func(name, tag string, line int) map[string]any {
		return map[string]any{"path": name, "tag": tag, "ops": []any{map[string]any{"replace": fmt.Sprintf("%d:line %d of %s", line, line, name), "text": "changed " + name}}}
	}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("r1", "read", map[string]any{"path": "a.txt", "lines": "1-10"}), fake.Use("r2", "read", map[string]any{"path": "b.txt", "lines": "1-10"}), fake.Use("r3", "read", map[string]any{"path": "c.txt", "lines": "1-10"})),
		func(req providers.Request) providers.Response {
			return fake.Call(fake.Use("e1", "edit", map[string]any{"files": []any{replace("a.txt", tagOf(req, "r1"), 1), replace("b.txt", tagOf(req, "r2"), 1), replace("c.txt", tagOf(req, "r3"), 1)}}))(req)
		},
		fake.Call(fake.Use("w1", "write", map[string]any{"path": "d.txt", "content": "a new file\n"})),
		func(req providers.Request) providers.Response {
			return fake.Call(fake.Use("e2", "edit", map[string]any{"files": []any{replace("b.txt", tagOf(m.Requests[1], "r2"), 2)}}))(req)
		},
		fake.Say("done"),
	}
	c := NewChat(opts)
	_, err := c.Prompt(context.Background(), textPrompt("change the files"), func(acp.SessionUpdate) { die(emitted, "emit") })
	c.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	settle()
	fmt.Printf("emit %d landed %d\n", emitted.Load(), landed.Load())
	return 0
}

// writeEditFiles lays the edit turn's workspace.
func writeEditFiles(t *testing.T, ws string) {
	t.Helper()
	for name, text := range editFiles {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runChild runs a chat process to its end, or its SIGKILL.
func runChild(t *testing.T, bin string, args ...string) (out []byte, killed bool) {
	t.Helper()
	out, err := exec.Command(bin, args...).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL {
		return out, true
	}
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return out, false
}

// resumed loads chat id from the store in dir on ws, as a fresh tandem.
func resumed(t *testing.T, dir, ws, id string) *Chat {
	t.Helper()
	store, err := OpenStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ResumeChat(Options{Session: tools.Open(tools.Options{ID: id, Roots: []string{ws}}), Provider: &fake.Model{}, Endpoint: Endpoint{Provider: "test", Model: "m"}, Store: store}, id)
	if err != nil {
		t.Fatalf("the chat does not load: %v", err)
	}
	return c
}

// snapshot is what the files of ws hold, but tandem's temporary files.
func snapshot(ws string) map[string]string {
	out := map[string]string{}
	es, _ := os.ReadDir(ws)
	for _, e := range es {
		if !strings.HasPrefix(e.Name(), ".tandem-tmp") {
			b, _ := os.ReadFile(filepath.Join(ws, e.Name()))
			out[e.Name()] = string(b)
		}
	}
	return out
}

// A restore killed -9 at any point can itself be undone: after a fresh
// load, restoring the restore's turn puts back every file as the agent's
// turn left it.
func TestLaw_killed_restore_can_be_undone(t *testing.T) {
	bin := chatBinary(t)
	const id = "00000000000000f2"
	prepare := func() (ws, dir string, agentLeft map[string]string) {
		ws, dir = t.TempDir(), filepath.Join(t.TempDir(), "chats")
		writeEditFiles(t, ws)
		if out, killed := runChild(t, bin, "edit", dir, ws, id, ""); killed || !strings.HasPrefix(string(out), "emit") {
			t.Fatalf("the edit turn: %s", out)
		}
		return ws, dir, snapshot(ws)
	}
	ws, dir, _ := prepare()
	out, _ := runChild(t, bin, "restore", dir, ws, id, "")
	var landings int
	if _, err := fmt.Sscanf(string(out), "landed %d", &landings); err != nil || landings < 4 {
		t.Fatalf("the whole restore: %q", out)
	}
	hits := lawhit.New(t, map[string]int{"undone after files changed": 2})
	for n := 1; n <= landings; n++ {
		point := fmt.Sprintf("landed:%d", n)
		ws, dir, agentLeft := prepare()
		if _, killed := runChild(t, bin, "restore", dir, ws, id, point); !killed {
			t.Fatalf("the restore was not killed at %s", point)
		}
		if fmt.Sprint(snapshot(ws)) != fmt.Sprint(agentLeft) {
			hits.Hit("undone after files changed")
		}
		c := resumed(t, dir, ws, id)
		if cps := c.Checkpoints(); len(cps) == 2 {
			if res, err := c.Restore(context.Background(), cps[1].Turn, false); err != nil || res.IsError {
				t.Fatalf("%s: undoing the restore: %v %+v", point, err, res)
			}
		}
		c.Close()
		if got := snapshot(ws); fmt.Sprint(got) != fmt.Sprint(agentLeft) {
			t.Fatalf("restore killed at %s, then undone: the files are not as the agent left them", point)
		}
	}
}

// Durable checkpoints: a turn that edits files, killed -9 at every point
// of it — each update it sends and each file change it makes — is
// restored by a fresh tandem: after `restore` of the turn every file holds
// what it held before, and the file the turn created is gone.
func TestLaw_crashed_turn_is_restorable(t *testing.T) {
	bin := chatBinary(t)
	const id = "00000000000000f1"
	// A point "after:D" is a kill from outside, D into the process's life:
	// wherever it lands, a write of the chat's file included.
	run := func(point string) (ws, store string, out []byte, killed bool) {
		ws, store = t.TempDir(), filepath.Join(t.TempDir(), "chats")
		writeEditFiles(t, ws)
		after, err := time.ParseDuration(strings.TrimPrefix(point, "after:"))
		if err != nil {
			out, killed = runChild(t, bin, "edit", store, ws, id, point)
			return ws, store, out, killed
		}
		cmd := exec.Command(bin, "edit", store, ws, id, "")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(after, func() { _ = cmd.Process.Kill() })
		err = cmd.Wait()
		timer.Stop()
		var exit *exec.ExitError
		return ws, store, nil, errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL
	}
	start := time.Now()
	_, _, out, _ := run("")
	whole := time.Since(start)
	var emits, landings int
	if _, err := fmt.Sscanf(string(out), "emit %d landed %d", &emits, &landings); err != nil || emits < 10 || landings < 4 {
		t.Fatalf("the whole turn: %q", out)
	}
	hits := lawhit.New(t, map[string]int{"nothing had changed": 1, "restored a turn cut short": 10, "restored a whole turn": 1})
	points := []string{""} // the whole turn, then every kill point
	for n := 1; n <= emits; n++ {
		points = append(points, fmt.Sprintf("emit:%d", n))
	}
	for n := 1; n <= landings; n++ {
		points = append(points, fmt.Sprintf("landed:%d", n))
	}
	const outside = 16
	for n := 1; n <= outside; n++ {
		points = append(points, fmt.Sprintf("after:%v", whole*time.Duration(n)/outside))
	}
	temps := 0
	for _, point := range points {
		ws, dir, out, killed := run(point)
		if !killed {
			hits.Hit("restored a whole turn")
		}
		changed, same := false, false
		for name, text := range editFiles {
			if b, _ := os.ReadFile(filepath.Join(ws, name)); string(b) != text {
				changed = true
			} else {
				same = true
			}
		}
		if killed && changed && same {
			hits.Hit("killed between the files of one commit") // counted, not required: where a kill lands is the kernel's
		}
		if _, err := os.Stat(filepath.Join(ws, "d.txt")); err == nil {
			changed = true
		}
		if raw, err := os.ReadFile(filepath.Join(dir, id+".jsonl")); err == nil {
			if !bytes.HasSuffix(raw, []byte("\n")) {
				hits.Hit("killed while writing the chat's file") // counted, not required
			}
			c := resumed(t, dir, ws, id)
			if cps := c.Checkpoints(); len(cps) > 0 {
				res, err := c.Restore(context.Background(), 0, false)
				if err != nil || res.IsError {
					t.Fatalf("%s: restore: %v %+v", point, err, res)
				}
			}
			c.Close()
		}
		for name, text := range editFiles {
			if b, _ := os.ReadFile(filepath.Join(ws, name)); string(b) != text {
				t.Fatalf("killed at %s (%s), restored: %s holds %q…", point, out, name, b[:min(40, len(b))])
			}
		}
		if _, err := os.Stat(filepath.Join(ws, "d.txt")); err == nil {
			t.Fatalf("killed at %s, restored: the file the turn made is still there", point)
		}
		es, _ := os.ReadDir(ws)
		for _, e := range es {
			if strings.HasPrefix(e.Name(), ".tandem-tmp") {
				temps++
			}
		}
		switch {
		case killed && changed:
			hits.Hit("restored a turn cut short")
		case killed:
			hits.Hit("nothing had changed")
		}
	}
	t.Logf("%d kill points; %d temporary files left by kills inside a commit", len(points), temps)
}
