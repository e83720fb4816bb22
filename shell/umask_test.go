package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/interp"
)

// A script's umask is its own: the files it makes by redirection and by
// the programs it starts (touch, mkdir, a `sh -c` payload's) get the modes
// it gives, a subshell's umask stays in the subshell, and tandem's own mask,
// shared by every goroutine, never changes. With the sandbox and without.
func TestLaw_script_umask_governs_its_files(t *testing.T) {
	sb := newTestbed(t)
	script := `umask 077; echo a > r; touch p; mkdir d; sh -c 'echo b > s'
(umask 0; echo c > open; mkdir od); echo d > after; umask 0 && : >> wide && umask u=rwx,g=rx,o= && touch sym
stat -c '%n %a' r p d s open od after wide sym; umask`
	want := "r 600\np 600\nd 700\ns 600\nopen 666\nod 777\nafter 600\nwide 666\nsym 640\n0027\n"
	for _, box := range []bool{true, false} {
		o := sb.opts(approvals.DefaultAuto, nil)
		if !box {
			o.Sandbox = nil
		}
		dir, err := os.MkdirTemp(sb.root, "made")
		if err != nil {
			t.Fatal(err)
		}
		o.Dir = dir
		res := runScript(t, script, o)
		if res.End != Finished || res.Output.Text != want {
			t.Errorf("sandboxed %v: %s\nwant %q", box, Render(res), want)
		}
		if got := tandemsUmask(t, sb.tmp); got != interp.ProcessUmask() {
			t.Fatalf("sandboxed %v: tandem's own mask became %04o (was %04o)", box, got, interp.ProcessUmask())
		}
	}
}

// tandemsUmask is the mask a file tandem makes gets: that of the thread
// the test runs on, one of those tandem's goroutines share.
func tandemsUmask(t *testing.T, dir string) uint32 {
	f, err := os.CreateTemp(dir, "tandems")
	if err != nil {
		t.Fatal(err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	if err := os.WriteFile(name, nil, 0o777); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(name)
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return 0o777 &^ uint32(fi.Mode().Perm())
}

// ulimit lists the limits every program of the script gets; a ulimit that
// would change one is refused before anything after it runs, naming
// prlimit, since the limits are the tandem process's.
func TestUlimitChangeIsRefusedNamingPrlimit(t *testing.T) {
	sb := newTestbed(t)
	res := runScript(t, "n=$(ulimit -n); ulimit -n $n; echo same $?", sb.opts(approvals.DefaultAuto, nil))
	if res.End != Finished || res.Output.Text != "same 0\n" {
		t.Errorf("ulimit with the current limit: %s", Render(res))
	}
	for _, change := range []string{"ulimit -f 1", "ulimit -S -t 100", "ulimit -n 64"} {
		if !interp.UlimitChanges(strings.Fields(change)[1:]) {
			continue // the limit is that already here: nothing changes
		}
		res := runScript(t, change+"; echo ran > after", sb.opts(approvals.DefaultAuto, nil))
		if res.End != Refused || res.Refusal == nil || res.Refusal.Code != refusal.Unsupported {
			t.Fatalf("%s: %s", change, Render(res))
		}
		if !strings.Contains(res.Refusal.Text, "prlimit --") || !strings.HasSuffix(res.Refusal.Text, "without ulimit.") {
			t.Errorf("%s: the refusal names no prlimit and no next step: %s", change, res.Refusal.Text)
		}
		if _, err := os.Stat(filepath.Join(sb.root, "after")); err == nil {
			t.Errorf("%s: the step after the refused ulimit ran", change)
		}
	}
}
