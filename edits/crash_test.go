package edits

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tandemdev/tandem/documents"
)

// The crash harness: a re-executed test binary commits a mixed edit — four
// files replaced, one created, one moved with a change, one deleted, in
// seven directories — and is killed with SIGKILL, either by itself just
// before the n-th filesystem call of the commit (every step boundary in
// turn) or by this process after a random delay while it commits large
// files. Then this process, a fresh start, opens the workspace (Recover),
// and every run must leave the whole edit old or the whole edit new, with
// no temporary file and no record left.

// crashSpec is what the helper process commits.
type crashSpec struct {
	Root, Journal string
	Size          int // bytes of each replaced file
	KillAt        int // kill before this filesystem call; 0: never
	// StallAt stops before this filesystem call, says "stalled", and goes
	// on when its standard input ends; 0: never.
	StallAt int
}

const crashHelper = "commit:"

var crashReplaced = []string{"r1/a.txt", "r2/b.txt", "r3/c.txt", "r4/d.txt"}

const (
	crashCreated = "n1/new.txt"
	crashMoveSrc = "m1/from.txt"
	crashMoveDst = "m2/to.txt"
	crashDeleted = "x1/gone.txt"
)

func crashOld(name string, size int) string {
	line := fmt.Sprintf("old line of %s\n", name)
	return strings.Repeat(line, max(1, size/len(line)))
}

// crashNew is what the edit makes of an old file: its first line replaced.
func crashNew(old string) string {
	_, rest, _ := strings.Cut(old, "\n")
	return "EDITED\n" + rest
}

// crashWorkspace makes the files of a run in dir/w and returns the spec.
func crashWorkspace(t *testing.T, size, killAt int) crashSpec {
	dir := t.TempDir()
	sp := crashSpec{Root: filepath.Join(dir, "w"), Journal: filepath.Join(dir, "journal"), Size: size, KillAt: killAt}
	files := map[string]string{crashMoveSrc: crashOld(crashMoveSrc, 64), crashDeleted: crashOld(crashDeleted, 64)}
	for _, n := range crashReplaced {
		files[n] = crashOld(n, size)
	}
	for n, content := range files {
		p := filepath.Join(sp.Root, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(sp.Root, filepath.Dir(crashCreated)), 0o755)
	os.MkdirAll(filepath.Join(sp.Root, filepath.Dir(crashMoveDst)), 0o755)
	return sp
}

// crashCommit is the helper process: it stages the edit, says "ready",
// commits, and says how long the commit took.
func crashCommit(specPath string) {
	var sp crashSpec
	b, err := os.ReadFile(specPath)
	if err != nil || json.Unmarshal(b, &sp) != nil {
		os.Exit(3)
	}
	env := &Env{Roots: []string{sp.Root}, Seen: documents.NewStore(), Buffers: documents.NewOverlay(), Journal: sp.Journal}
	var fe []FileEdit
	one := Anchor("1")
	edited := "EDITED"
	for _, n := range append(append([]string{}, crashReplaced...), crashMoveSrc, crashDeleted) {
		if _, err := documents.Read(context.Background(), env.Seen, env.Buffers, env.Roots, n, ""); err != nil {
			fmt.Println("read:", err)
			os.Exit(3)
		}
		switch n {
		case crashMoveSrc:
			fe = append(fe, FileEdit{Path: n, Ops: []Op{{Replace: &one, Text: &edited}}, MoveTo: crashMoveDst})
		case crashDeleted:
			fe = append(fe, FileEdit{Path: n, DeleteFile: true})
		default:
			fe = append(fe, FileEdit{Path: n, Ops: []Op{{Replace: &one, Text: &edited}}})
		}
	}
	created := crashOld(crashCreated, sp.Size)
	fe = append(fe, FileEdit{Path: crashCreated, Create: &created})
	kfs := &killFS{at: sp.KillAt, stall: sp.StallAt}
	env.FS = kfs
	fmt.Println("ready")
	start := time.Now()
	if _, err := Edit(context.Background(), env, Args{Files: fe}); err != nil {
		fmt.Println("edit:", err)
		os.Exit(3)
	}
	fmt.Println("done", time.Since(start).Nanoseconds(), kfs.n)
	os.Exit(0)
}

// killFS kills its process just before its at-th call, or stalls before
// its stall-th until its standard input ends.
type killFS struct {
	OS
	n, at, stall int
}

func (k *killFS) tick() {
	k.n++
	switch k.n {
	case k.at:
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	case k.stall:
		fmt.Println("stalled")
		io.Copy(io.Discard, os.Stdin)
	}
}

func (k *killFS) CreateTemp(p string, perm fs.FileMode) (*os.File, error) {
	k.tick()
	return k.OS.CreateTemp(p, perm)
}
func (k *killFS) Write(f *os.File, b []byte) error { k.tick(); return k.OS.Write(f, b) }
func (k *killFS) Sync(f *os.File) error            { k.tick(); return k.OS.Sync(f) }
func (k *killFS) Rename(a, b string) error         { k.tick(); return k.OS.Rename(a, b) }
func (k *killFS) Link(a, b string) error           { k.tick(); return k.OS.Link(a, b) }
func (k *killFS) Remove(p string) error            { k.tick(); return k.OS.Remove(p) }
func (k *killFS) SyncDir(d string) error           { k.tick(); return k.OS.SyncDir(d) }

// crashRun is one run of the helper: it starts it, waits for "ready", and
// kills it after delay (never when delay is negative). It returns how long
// the commit took and how many filesystem calls it made when it finished,
// and whether it did.
func crashRun(t *testing.T, sp crashSpec, delay time.Duration) (took time.Duration, calls int, finished bool) {
	t.Helper()
	specPath := filepath.Join(filepath.Dir(sp.Root), "spec.json")
	b, _ := json.Marshal(sp)
	if err := os.WriteFile(specPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+crashHelper+specPath)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() || lines.Text() != "ready" {
		cmd.Wait()
		t.Fatalf("the helper did not get ready: %q", lines.Text())
	}
	if delay >= 0 {
		time.Sleep(delay) // chooses the kill point; nothing is judged by time
		cmd.Process.Kill()
	}
	var ns int64
	if lines.Scan() {
		if _, err := fmt.Sscanf(lines.Text(), "done %d %d", &ns, &calls); err != nil {
			t.Fatalf("the helper said %q", lines.Text())
		}
	}
	err = cmd.Wait()
	if ns > 0 && err != nil && delay < 0 {
		t.Fatalf("the helper: %v", err)
	}
	return time.Duration(ns), calls, ns > 0
}

// crashPhase names what a killed run left before recovery.
func crashPhase(t *testing.T, sp crashSpec) string {
	records, _ := filepath.Glob(filepath.Join(sp.Journal, "*"+recordExt))
	old, fresh := 0, 0
	for _, n := range crashReplaced {
		switch readOr(filepath.Join(sp.Root, n)) {
		case crashOld(n, sp.Size):
			old++
		case crashNew(crashOld(n, sp.Size)):
			fresh++
		}
	}
	switch {
	case len(records) == 0 && fresh == 0:
		return "before the record was made"
	case len(records) == 0:
		return "after the commit"
	case fresh == 0:
		return "record written, no file renamed yet"
	case old > 0:
		return "between two renames"
	}
	return "every file renamed, record not yet removed"
}

func readOr(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return "<none>"
	}
	return string(b)
}

// checkWhole recovers the workspace as a fresh start does and checks that
// the edit is whole or absent, and nothing of the commit is left.
func checkWhole(t *testing.T, sp crashSpec, what string) (forward bool) {
	t.Helper()
	Recover(sp.Journal, []string{sp.Root})
	state := map[string]string{}
	oldState, newState := map[string]string{}, map[string]string{}
	for _, n := range crashReplaced {
		oldState[n], newState[n] = crashOld(n, sp.Size), crashNew(crashOld(n, sp.Size))
	}
	oldState[crashCreated], newState[crashCreated] = "<none>", crashOld(crashCreated, sp.Size)
	oldState[crashMoveSrc], newState[crashMoveSrc] = crashOld(crashMoveSrc, 64), "<none>"
	oldState[crashMoveDst], newState[crashMoveDst] = "<none>", crashNew(crashOld(crashMoveSrc, 64))
	oldState[crashDeleted], newState[crashDeleted] = crashOld(crashDeleted, 64), "<none>"
	isOld, isNew := true, true
	for n := range oldState {
		state[n] = readOr(filepath.Join(sp.Root, n))
		isOld = isOld && state[n] == oldState[n]
		isNew = isNew && state[n] == newState[n]
	}
	if !isOld && !isNew {
		var mixed []string
		for n, s := range state {
			which := "partial content"
			switch s {
			case oldState[n]:
				which = "old"
			case newState[n]:
				which = "new"
			}
			mixed = append(mixed, n+": "+which)
		}
		t.Errorf("%s: the edit is neither whole nor absent after recovery: %s", what, strings.Join(mixed, ", "))
	}
	filepath.WalkDir(sp.Root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), documents.TempPrefix) {
			t.Errorf("%s: temporary file left: %s", what, p)
		}
		return nil
	})
	if left, _ := os.ReadDir(sp.Journal); len(left) > 0 {
		t.Errorf("%s: records left in the journal: %v", what, left)
	}
	return isNew
}

// Killed before each filesystem call of the commit in turn, then recovered:
// whole or nothing every time; a kill after the record is complete rolls
// forward.
func TestLaw_commit_whole_after_kill(t *testing.T) {
	probe := crashWorkspace(t, 64, 0)
	_, calls, done := crashRun(t, probe, -1)
	if !done {
		t.Fatal("the commit did not finish without a kill")
	}
	checkWhole(t, probe, "no kill")
	phases := map[string]int{}
	forward := 0
	for at := 1; at <= calls; at++ {
		sp := crashWorkspace(t, 64, at)
		if _, _, done := crashRun(t, sp, -1); done {
			t.Fatalf("kill at call %d of %d: the commit finished", at, calls)
		}
		phases[crashPhase(t, sp)]++
		if checkWhole(t, sp, fmt.Sprintf("killed before call %d of %d", at, calls)) {
			forward++
		}
	}
	t.Logf("%d kills, one before each filesystem call of the commit: %d rolled forward, %d back; before recovery: %v", calls, forward, calls-forward, phases)
}

// Killed at random moments while it commits files of 256 KiB, 200 times:
// whole or nothing every time.
func TestCommitWholeAfterRandomKills(t *testing.T) {
	const size, runs = 256 << 10, 200
	// The kills are spread over the time a commit takes: the fastest of
	// three.
	took := time.Hour
	for range 3 {
		d, _, done := crashRun(t, crashWorkspace(t, size, 0), -1)
		if !done {
			t.Fatal("the commit did not finish without a kill")
		}
		took = min(took, d)
	}
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 29))
	phases := map[string]int{}
	for i := 0; i < runs; i++ {
		sp := crashWorkspace(t, size, 0)
		delay := time.Duration(r.Int64N(int64(took)))
		crashRun(t, sp, delay)
		phases[crashPhase(t, sp)]++
		checkWhole(t, sp, fmt.Sprintf("killed %v into a commit of %v", delay, took))
	}
	t.Logf("%d random kills into a commit of %v: %v", runs, took, phases)
}

// orderFS records the commit's filesystem calls in order.
type orderFS struct {
	OS
	calls []string
}

func (o *orderFS) log(op, p string) { o.calls = append(o.calls, op+" "+p) }
func (o *orderFS) CreateTemp(p string, perm fs.FileMode) (*os.File, error) {
	o.log("create", p)
	return o.OS.CreateTemp(p, perm)
}
func (o *orderFS) Write(f *os.File, b []byte) error {
	o.log("write", f.Name())
	return o.OS.Write(f, b)
}
func (o *orderFS) Sync(f *os.File) error    { o.log("sync", f.Name()); return o.OS.Sync(f) }
func (o *orderFS) Rename(a, b string) error { o.log("place", b); return o.OS.Rename(a, b) }
func (o *orderFS) Link(a, b string) error   { o.log("place", b); return o.OS.Link(a, b) }
func (o *orderFS) Remove(p string) error    { o.log("remove", p); return o.OS.Remove(p) }
func (o *orderFS) SyncDir(d string) error   { o.log("syncdir", d); return o.OS.SyncDir(d) }

// What a power loss keeps is what was flushed, so the flushes come in the
// journal's order: the record and its directory before any temporary file
// is made; every temporary file before any is put in place; every changed
// directory before the record is removed, and the journal directory after.
// A kill shows none of this; the order is what holds across a power loss.
func TestLaw_commit_flushes_in_journal_order(t *testing.T) {
	w, _, args := fiveFiles(t)
	o := &orderFS{}
	w.env.FS = o
	if _, err := w.edit(args); err != nil {
		t.Fatal(err)
	}
	first := func(pred func(op, p string) bool) int {
		for i, c := range o.calls {
			op, p, _ := strings.Cut(c, " ")
			if pred(op, p) {
				return i
			}
		}
		return -1
	}
	last := func(pred func(op, p string) bool) int {
		n := -1
		for i, c := range o.calls {
			op, p, _ := strings.Cut(c, " ")
			if pred(op, p) {
				n = i
			}
		}
		return n
	}
	isRecord := func(p string) bool { return strings.HasSuffix(p, recordExt) }
	inWS := func(p string) bool { return documents.Inside(w.root, p) }
	recordSync := first(func(op, p string) bool { return op == "sync" && isRecord(p) })
	journalSync := first(func(op, p string) bool { return op == "syncdir" && p == w.env.Journal })
	firstTemp := first(func(op, p string) bool { return op == "create" && inWS(p) })
	lastTempSync := last(func(op, p string) bool { return op == "sync" && inWS(p) })
	firstPlace := first(func(op, p string) bool { return op == "place" })
	lastDirSync := last(func(op, p string) bool { return op == "syncdir" && inWS(p) })
	recordRemove := first(func(op, p string) bool { return op == "remove" && isRecord(p) })
	lastJournalSync := last(func(op, p string) bool { return op == "syncdir" && p == w.env.Journal })
	for _, c := range []struct {
		what   string
		before int
		after  int
	}{
		{"the record is flushed before its directory", recordSync, journalSync},
		{"the journal directory is flushed before the first temporary file", journalSync, firstTemp},
		{"every temporary file is flushed before the first is put in place", lastTempSync, firstPlace},
		{"every changed directory is flushed before the record is removed", lastDirSync, recordRemove},
		{"the journal directory is flushed after the record is removed", recordRemove, lastJournalSync},
	} {
		if c.before < 0 || c.after < 0 || c.before >= c.after {
			t.Errorf("not so: %s (calls %d, %d):\n%s", c.what, c.before, c.after, strings.Join(o.calls, "\n"))
		}
	}
}

// A second tandem on the workspace never settles a commit still running:
// its writer holds the record's lock. The helper stalls before each
// filesystem call of its commit in turn; meanwhile this process opens the
// workspace (Recover), which must leave the record, the temporary files
// and every file as they were; then the helper goes on and its edit lands
// whole.
func TestLaw_recovery_leaves_a_running_commit(t *testing.T) {
	probe := crashWorkspace(t, 64, 0)
	_, calls, done := crashRun(t, probe, -1)
	if !done {
		t.Fatal("the commit did not finish")
	}
	for at := 1; at <= calls; at++ {
		sp := crashWorkspace(t, 64, 0)
		sp.StallAt = at
		specPath := filepath.Join(filepath.Dir(sp.Root), "spec.json")
		b, _ := json.Marshal(sp)
		os.WriteFile(specPath, b, 0o644)
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), helperEnv+"="+crashHelper+specPath)
		goOn, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		for lines.Scan() && lines.Text() != "stalled" {
		}
		before := snapshot(sp)
		// Taking the record for a dead one is the bug itself; settling it
		// would then wait for the commit's directory locks, held until the
		// helper goes on.
		if claimed := claimDead(sp.Journal); len(claimed) > 0 {
			for _, f := range claimed {
				f.Close()
			}
			goOn.Close()
			cmd.Wait()
			t.Fatalf("stalled before call %d: a running commit was settled: its record was taken for a dead one", at)
		}
		if rs := Recover(sp.Journal, []string{sp.Root}); len(rs) > 0 {
			t.Errorf("stalled before call %d: a running commit was settled: %v", at, rs)
		}
		if after := snapshot(sp); after != before {
			t.Errorf("stalled before call %d: recovery changed a running commit's files:\nbefore %s\nafter  %s", at, before, after)
		}
		goOn.Close()
		finished := false
		for lines.Scan() {
			finished = finished || strings.HasPrefix(lines.Text(), "done ")
		}
		cmd.Wait()
		if !finished {
			t.Errorf("stalled before call %d: the commit did not finish after the recovery", at)
		}
		if !checkWhole(t, sp, fmt.Sprintf("stalled before call %d", at)) {
			t.Errorf("stalled before call %d: the edit did not land", at)
		}
	}
}

// snapshot names every file of a run's workspace and journal with its
// size.
func snapshot(sp crashSpec) string {
	var b strings.Builder
	for _, d := range []string{sp.Root, sp.Journal} {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				info, _ := e.Info()
				fmt.Fprintf(&b, "%s:%d ", strings.TrimPrefix(p, filepath.Dir(sp.Root)), info.Size())
			}
			return nil
		})
	}
	return b.String()
}

// A record cut short while it was written — its writer died before any
// file was touched — is removed at the next start, and nothing else is
// touched, wherever the cut falls.
func TestTornRecordIsRemoved(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "old\n"})
	s := &step{Op: opReplace, Path: w.abs("a.txt"), Temp: tempName(w.abs("a.txt")), Mode: 0o644, before: []byte("old\n"), After: digestOf([]byte("new\n"))}
	data := (&record{Version: recordVersion, Steps: []*step{s}}).encode()
	if _, err := decodeRecord(data); err != nil {
		t.Fatalf("the whole record does not decode: %v", err)
	}
	os.MkdirAll(w.env.Journal, 0o700)
	for cut := 0; cut < len(data); cut += max(1, len(data)/40) {
		p := filepath.Join(w.env.Journal, "torn"+recordExt)
		os.WriteFile(p, data[:cut], 0o600)
		if rs := Recover(w.env.Journal, w.env.Roots); len(rs) > 0 {
			t.Errorf("cut at %d of %d: reported %v", cut, len(data), rs)
		}
		if _, err := os.Stat(p); err == nil {
			t.Errorf("cut at %d of %d: the record stayed", cut, len(data))
		}
		if got := w.file("a.txt"); got != "old\n" {
			t.Errorf("cut at %d of %d: a.txt = %q", cut, len(data), got)
		}
	}
}
