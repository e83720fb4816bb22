package edits

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// fiveFiles is a workspace of five files the session has read whole, and
// the edit that changes each one.
func fiveFiles(t *testing.T) (*ws, []string, string) {
	t.Helper()
	files := map[string]string{}
	var names []string
	for i := 1; i <= 5; i++ {
		name := fmt.Sprintf("d%d/f%d.txt", i, i) // one directory each: five directory syncs
		files[name] = fmt.Sprintf("head %d\nbody %d\ntail %d\n", i, i, i)
		names = append(names, name)
	}
	w := newWS(t, files)
	var entries []string
	for i, name := range names {
		tag := w.read(name, "")
		entries = append(entries, fmt.Sprintf(`{"path":%q,"tag":%q,"ops":[{"replace":"2","text":"NEW %d"}]}`, name, tag, i+1))
	}
	return w, names, `{"files":[` + strings.Join(entries, ",") + `]}`
}

func oldOf(i int) string { return fmt.Sprintf("head %d\nbody %d\ntail %d\n", i, i, i) }
func newOf(i int) string { return fmt.Sprintf("head %d\nNEW %d\ntail %d\n", i, i, i) }

var appliedRE = regexp.MustCompile(`(?m)^(Applied to ([^;\n]*?))?(; )?(NOT applied to ([^;\n]*?))?(; nothing was written)?\.$`)

// landedIn parses the first line of a reply: the files it says were applied
// and those it says were not.
func landedIn(t *testing.T, text string) (applied, not map[string]bool) {
	t.Helper()
	first := strings.SplitN(strings.TrimPrefix(text, "NOT applied; nothing was written. "), "\n", 2)[0]
	m := appliedRE.FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("reply does not start with Applied/NOT applied: %q", first)
	}
	split := func(s string) map[string]bool {
		out := map[string]bool{}
		for _, n := range strings.Split(s, ", ") {
			if n != "" {
				out[n] = true
			}
		}
		return out
	}
	return split(m[2]), split(m[5])
}

func replyText(out string, err error) string {
	if err != nil {
		return err.Error()[strings.Index(err.Error(), ": ")+2:]
	}
	return out
}

// faultFS fails the n-th call of one step with an I/O error.
type faultFS struct {
	OS
	step  string
	n     int
	calls map[string]int
}

func (f *faultFS) fail(step string) error {
	f.calls[step]++
	if step == f.step && f.calls[step] == f.n {
		return fmt.Errorf("injected %s fault: %w", step, unix.EIO)
	}
	return nil
}

func (f *faultFS) Write(file *os.File, b []byte) error {
	if err := f.fail("write"); err != nil {
		// A failing write may leave part of the data behind.
		file.Write(b[:len(b)/2])
		return err
	}
	return f.OS.Write(file, b)
}
func (f *faultFS) Sync(file *os.File) error {
	if err := f.fail("fsync"); err != nil {
		return err
	}
	return f.OS.Sync(file)
}
func (f *faultFS) Rename(a, b string) error {
	if err := f.fail("rename"); err != nil {
		return err
	}
	return f.OS.Rename(a, b)
}
func (f *faultFS) SyncDir(d string) error {
	if err := f.fail("dirsync"); err != nil {
		return err
	}
	return f.OS.SyncDir(d)
}

// tempsLeft lists temporary files left in dir.
func tempsLeft(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tandem-tmp-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// Every write, fsync, rename and directory sync of a 5-file commit fails in
// turn, those of its intent record included. The commit lands whole or not
// at all: a failure before every file is in place puts back those that
// were; a failed directory flush after is a landed write with a warning.
// The reply is exactly right, no target holds partial content, no
// temporary file or record is left.
func TestLaw_edit_reports_what_landed(t *testing.T) {
	// A commit of 5 files in 5 directories writes and flushes its record
	// and 5 temporary files, renames 5 times, and flushes the journal
	// directory, the 5 directories, and the journal directory again.
	calls := map[string]int{"write": 6, "fsync": 6, "rename": 5, "dirsync": 7}
	for _, step := range []string{"write", "fsync", "rename", "dirsync"} {
		for n := 1; n <= calls[step]; n++ {
			t.Run(fmt.Sprintf("%s_%d", step, n), func(t *testing.T) {
				w, names, args := fiveFiles(t)
				w.env.FS = &faultFS{step: step, n: n, calls: map[string]int{}}
				out, err := w.edit(args)
				text := replyText(out, err)
				applied, not := landedIn(t, text)
				for i, name := range names {
					got := w.file(name)
					switch got {
					case newOf(i + 1):
						if !applied[name] || not[name] {
							t.Errorf("%s holds the new text, but the reply says otherwise:\n%s", name, text)
						}
					case oldOf(i + 1):
						if applied[name] || !not[name] {
							t.Errorf("%s holds the old text, but the reply says otherwise:\n%s", name, text)
						}
					default:
						t.Errorf("%s holds partial content %q", name, got)
					}
				}
				wantLanded := 0
				if step == "dirsync" && n > 1 {
					wantLanded = 5
					if n <= 6 && !strings.Contains(text, fmt.Sprintf("warning: flushing the directory d%d failed", n-1)) {
						t.Errorf("no warning about the directory sync:\n%s", text)
					}
				}
				if len(applied) != wantLanded {
					t.Errorf("%d files applied, want %d:\n%s", len(applied), wantLanded, text)
				}
				if wantLanded == 0 && err == nil {
					t.Errorf("nothing landed but the reply is not an error")
				}
				if wantLanded > 0 && err != nil {
					t.Errorf("files landed but the reply is an error: %v", err)
				}
				for i := range names {
					if left := tempsLeft(t, filepath.Join(w.root, fmt.Sprintf("d%d", i+1))); len(left) > 0 {
						t.Errorf("temporary files left: %v", left)
					}
				}
				if left, _ := os.ReadDir(w.env.Journal); len(left) > 0 {
					t.Errorf("records left in the journal: %v", left)
				}
			})
		}
	}
}

// stageAll stages an edit's files as the tool does, for tests that act
// between staging and the commit.
func stageAll(t *testing.T, w *ws, args string) []*change {
	t.Helper()
	var a Args
	if err := jsonDecode(args, &a); err != nil {
		t.Fatal(err)
	}
	var cs []*change
	for _, fe := range a.Files {
		c, p := stageFile(w.env, fe)
		if p != nil {
			t.Fatalf("staging %s: %s", fe.Path, p.text)
		}
		cs = append(cs, c)
	}
	return cs
}

// One file changed between staging and the commit: no file lands.
func TestLaw_edit_all_or_nothing_on_conflict(t *testing.T) {
	// Each file is changed under the edit in turn, by a write of another
	// length and by same-length ones (one byte, two lines swapped), which
	// a check that compares sizes or times alone would miss.
	conflicts := []struct {
		name        string
		text, shows func(i int) string
	}{
		{"other text", func(int) string { return "someone else's text\n" }, func(int) string { return "1:someone else's text" }},
		{"one byte", func(i int) string { return fmt.Sprintf("head %d\nbodY %d\ntail %d\n", i, i, i) }, func(i int) string { return fmt.Sprintf("2:bodY %d", i) }},
		{"lines swapped", func(i int) string { return fmt.Sprintf("body %d\nhead %d\ntail %d\n", i, i, i) }, func(i int) string { return fmt.Sprintf("2:head %d", i) }},
	}
	for _, c := range conflicts {
		for k := 0; k < 5; k++ {
			w, names, args := fiveFiles(t)
			cs := stageAll(t, w, args)
			theirs := c.text(k + 1)
			if c.name != "other text" && len(theirs) != len(oldOf(k+1)) {
				t.Fatalf("%s: not a same-length change", c.name)
			}
			w.put(names[k], theirs)
			out, err := run(context.Background(), w.env, cs)
			if codeOf(err) != "conflict" {
				t.Fatalf("%s in %s: want a conflict, got %q %v", c.name, names[k], out, err)
			}
			for i, name := range names {
				want := oldOf(i + 1)
				if i == k {
					want = theirs
				}
				if got := w.file(name); got != want {
					t.Errorf("%s in %s: %s = %q, want %q (nothing may land)", c.name, names[k], name, got, want)
				}
			}
			if !strings.Contains(err.Error(), c.shows(k+1)) {
				t.Errorf("%s: the conflict does not show the current text:\n%v", c.name, err)
			}
		}
	}
}

// No change and no failed write: every file lands, and the reply says so.
func TestLaw_edit_lands_every_file(t *testing.T) {
	w, names, args := fiveFiles(t)
	out, err := w.edit(args)
	if err != nil {
		t.Fatal(err)
	}
	applied, not := landedIn(t, out)
	for i, name := range names {
		if got := w.file(name); got != newOf(i+1) {
			t.Errorf("%s = %q", name, got)
		}
		if !applied[name] || not[name] {
			t.Errorf("reply does not say %s was applied:\n%s", name, out)
		}
	}
}

func TestLaw_move_never_overwrites(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	out, err := w.edit(`{"files":[{"path":"a.txt","moveTo":"b.txt"}]}`)
	if codeOf(err) != "conflict" {
		t.Fatalf("move onto an existing file: %q %v", out, err)
	}
	// The destination appears between staging and the commit.
	cs := stageAll(t, w, `{"files":[{"path":"a.txt","moveTo":"c.txt"}]}`)
	w.put("c.txt", "c\n")
	if _, err := run(context.Background(), w.env, cs); codeOf(err) != "conflict" {
		t.Fatalf("destination created after staging: %v", err)
	}
	// ... or between the check and the link.
	cs = stageAll(t, w, `{"files":[{"path":"a.txt","moveTo":"d.txt"}]}`)
	w.env.FS = linkRace{w}
	out, err = run(context.Background(), w.env, cs)
	if err == nil || !strings.Contains(err.Error(), "appeared meanwhile") {
		t.Fatalf("destination created before the link: %q %v", out, err)
	}
	for name, want := range map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "d.txt": "racer\n"} {
		if got := w.file(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if left := tempsLeft(t, w.root); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// linkRace creates the destination just before the link.
type linkRace struct{ w *ws }

func (linkRace) CreateTemp(p string, perm fs.FileMode) (*os.File, error) {
	return OS{}.CreateTemp(p, perm)
}
func (linkRace) Write(f *os.File, b []byte) error { return OS{}.Write(f, b) }
func (linkRace) Sync(f *os.File) error            { return OS{}.Sync(f) }
func (linkRace) Rename(a, b string) error         { return OS{}.Rename(a, b) }
func (l linkRace) Link(a, b string) error {
	l.w.put(filepath.Base(b), "racer\n")
	return OS{}.Link(a, b)
}
func (linkRace) Remove(p string) error  { return OS{}.Remove(p) }
func (linkRace) SyncDir(d string) error { return OS{}.SyncDir(d) }

func TestLaw_move_moves(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\n"})
	if err := os.Chmod(w.abs("a.txt"), 0o751); err != nil {
		t.Fatal(err)
	}
	tag := w.read("a.txt", "")
	out, err := w.edit(`{"files":[{"path":"a.txt","tag":"` + tag + `","ops":[{"append":"three"}],"moveTo":"sub/dir/b.txt"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.file("sub/dir/b.txt"); got != "one\ntwo\nthree\n" {
		t.Errorf("moved content %q", got)
	}
	if _, err := os.Stat(w.abs("a.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the source stayed: %v", err)
	}
	if info, _ := os.Stat(w.abs("sub/dir/b.txt")); info.Mode().Perm() != 0o751 {
		t.Errorf("mode %v, want the source's 0751", info.Mode().Perm())
	}
	if !strings.Contains(out, "[sub/dir/b.txt#") || !strings.Contains(out, "moved from a.txt") {
		t.Errorf("reply:\n%s", out)
	}
}

// holdTemp creates a temporary file of target and keeps it locked, as a
// live writer does.
func holdTemp(t *testing.T, target string) string {
	t.Helper()
	f, err := createTemp(OS{}, tempName(target), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return filepath.Base(f.Name())
}

func crashedTemp(t *testing.T, target, suffix string) string {
	t.Helper()
	name := tempPrefixOf(target) + suffix
	if err := os.WriteFile(filepath.Join(filepath.Dir(target), name), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func editOnce(t *testing.T, w *ws, name string) {
	t.Helper()
	tag := w.read(name, "")
	if _, err := w.edit(`{"files":[{"path":"` + name + `","tag":"` + tag + `","ops":[{"append":"more"}]}]}`); err != nil {
		t.Fatal(err)
	}
}

func sorted(s []string) []string { sort.Strings(s); return s }

func TestLaw_temp_sweep_never_held(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "a\n"})
	held := holdTemp(t, w.abs("a.txt"))
	// Another process holds one too.
	other := tempPrefixOf(w.abs("a.txt")) + "otherproc"
	os.WriteFile(filepath.Join(w.root, other), nil, 0o644)
	holder := exec.Command(os.Args[0])
	holder.Env = append(os.Environ(), helperEnv+"=hold:"+filepath.Join(w.root, other))
	release, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	said, err := holder.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release.Close(); holder.Wait() })
	if line, _ := bufio.NewReader(said).ReadString('\n'); line != "locked\n" {
		t.Fatalf("the other process did not lock its temporary file: %q", line)
	}
	editOnce(t, w, "a.txt")
	if got, want := tempsLeft(t, w.root), sorted([]string{held, other}); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("temporary files %v, want the held ones %v", got, want)
	}
}

func TestLaw_temp_sweep_only_own(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	theirs := crashedTemp(t, w.abs("b.txt"), "dead1")
	unrelated := ".tandem-tmp-notahash"
	os.WriteFile(w.abs(unrelated), nil, 0o644)
	editOnce(t, w, "a.txt")
	if got, want := tempsLeft(t, w.root), sorted([]string{theirs, unrelated}); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("temporary files %v, want %v (another target's and a foreign name kept)", got, want)
	}
}

func TestLaw_temp_sweep_removes_free(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "a\n"})
	for i := 0; i < 3; i++ {
		crashedTemp(t, w.abs("a.txt"), fmt.Sprintf("dead%d", i))
	}
	held := holdTemp(t, w.abs("a.txt"))
	editOnce(t, w, "a.txt")
	if got := tempsLeft(t, w.root); len(got) != 1 || got[0] != held {
		t.Errorf("temporary files %v, want only the held %s", got, held)
	}
}

// Where the filesystem has no hard links, a rename that refuses an existing
// name puts the file in place: still never over an existing file.
func TestLinkFallbackNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	noLinks := func(string, string) error { return &os.LinkError{Op: "link", Err: unix.EPERM} }
	temp, dest := filepath.Join(dir, "temp"), filepath.Join(dir, "dest")
	os.WriteFile(temp, []byte("new"), 0o644)
	if err := linkOrRename(noLinks, temp, dest); !errors.Is(err, errLinkedByRename) {
		t.Fatalf("fallback: %v", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != "new" {
		t.Errorf("dest %q", b)
	}
	os.WriteFile(temp, []byte("newer"), 0o644)
	if err := linkOrRename(noLinks, temp, dest); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("onto an existing name: %v", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != "new" {
		t.Errorf("dest replaced: %q", b)
	}
}

func (f *faultFS) Link(a, b string) error {
	if err := f.fail("link"); err != nil {
		return err
	}
	return f.OS.Link(a, b)
}

// A commit of edits, a creation and a move across directories, with each
// write, fsync, rename, link and directory sync failing in turn: the reply
// says "applied" exactly for the files whose new state is on disk, nothing
// holds partial content, no temporary file is left.
func TestFaultsInMixedCommit(t *testing.T) {
	for _, step := range []string{"write", "fsync", "rename", "link", "dirsync"} {
		for n := 1; n <= 6; n++ {
			w := newWS(t, map[string]string{"a/one.txt": "one\n", "b/two.txt": "two\n", "c/move.txt": "move\n"})
			t1, t2, t3 := w.read("a/one.txt", ""), w.read("b/two.txt", ""), w.read("c/move.txt", "")
			w.env.FS = &faultFS{step: step, n: n, calls: map[string]int{}}
			out, err := w.edit(`{"files":[` +
				`{"path":"a/one.txt","tag":"` + t1 + `","ops":[{"append":"1"}]},` +
				`{"path":"d/new.txt","create":"new\n"},` +
				`{"path":"c/move.txt","tag":"` + t3 + `","ops":[{"append":"m"}],"moveTo":"e/moved.txt"},` +
				`{"path":"b/two.txt","tag":"` + t2 + `","ops":[{"append":"2"}]}]}`)
			text := replyText(out, err)
			applied, not := landedIn(t, text)
			exists := func(p string) bool { _, err := os.Stat(w.abs(p)); return err == nil }
			states := map[string]bool{ // true: the new state is on disk
				"a/one.txt":   w.file("a/one.txt") == "one\n1\n",
				"d/new.txt":   exists("d/new.txt") && w.file("d/new.txt") == "new\n",
				"e/moved.txt": exists("e/moved.txt") && w.file("e/moved.txt") == "move\nm\n" && !exists("c/move.txt"),
				"b/two.txt":   w.file("b/two.txt") == "two\n2\n",
			}
			if !states["a/one.txt"] && w.file("a/one.txt") != "one\n" ||
				!states["b/two.txt"] && w.file("b/two.txt") != "two\n" ||
				!states["e/moved.txt"] && (exists("e/moved.txt") || w.file("c/move.txt") != "move\n") ||
				!states["d/new.txt"] && exists("d/new.txt") {
				t.Errorf("%s %d: a file holds partial content:\n%s", step, n, text)
			}
			for name, landed := range states {
				if landed != applied[name] || landed == not[name] {
					t.Errorf("%s %d: %s landed %v, but the reply says:\n%s", step, n, name, landed, text)
				}
			}
			for _, d := range []string{"a", "b", "c", "d", "e"} {
				if left := tempsLeft(t, w.abs(d)); len(left) > 0 {
					t.Errorf("%s %d: temporary files left in %s: %v", step, n, d, left)
				}
			}
		}
	}
}

// A conflict shows where the file changed, for changes, insertions and a
// file emptied, and records a version as seen only when it shows its rows.
func TestConflictShowsWhereTheFileChanged(t *testing.T) {
	for _, tc := range []struct{ now, want string }{
		{"one\nTWO\nthree\n", "1:one\n2:TWO\n3:three\n"},
		{"one\ntwo\ninserted\nthree\n", "2:two\n3:inserted\n4:three\n"},
		{"zero\none\ntwo\nthree\n", "1:zero\n2:one\n"},
		{"", ""},
	} {
		w := newWS(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
		tag := w.read("a.txt", "")
		cs := stageAll(t, w, `{"files":[{"path":"a.txt","tag":"`+tag+`","ops":[{"append":"x"}]}]}`)
		w.put("a.txt", tc.now)
		_, err := run(context.Background(), w.env, cs)
		if codeOf(err) != "conflict" {
			t.Fatalf("%q: %v", tc.now, err)
		}
		if tc.want != "" && !strings.Contains(err.Error(), "now reads, where it changed:\n"+tc.want) {
			t.Errorf("%q: %v", tc.now, err)
		}
		if saw := w.env.Seen.SawBytes(w.abs("a.txt"), []byte(tc.now)); saw != (tc.want != "") {
			t.Errorf("%q: recorded as seen %v", tc.now, saw)
		}
	}
}
