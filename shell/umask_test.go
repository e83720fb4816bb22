package shell

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/refusal"
	"github.com/tandemdev/tandem/third_party/mvdan-sh/interp"
)

// umask reports the mask every program of the script gets; a umask that
// would change it is refused before anything after it runs, naming the
// chmod that does the same, since going on would make a file meant for
// `umask 077` readable by all.
func TestUmaskChangeIsRefusedNamingChmod(t *testing.T) {
	sb := newTestbed(t)
	cur := fmt.Sprintf("%04o", interp.ProcessUmask())
	res := runScript(t, "umask; umask "+cur+"; echo same $?", sb.opts(approvals.DefaultAuto, nil))
	if res.End != Finished || res.Output.Text != cur+"\nsame 0\n" {
		t.Errorf("umask with the current mask: %s", Render(res))
	}
	for _, mode := range []string{"077", "u=rwx,g=,o=", "0"} {
		want, _ := interp.ParseUmask(interp.ProcessUmask(), mode)
		if want == interp.ProcessUmask() {
			continue
		}
		res := runScript(t, "echo made > before; umask "+mode+"; echo secret > key", sb.opts(approvals.DefaultAuto, nil))
		if res.End != Refused || res.Refusal == nil || res.Refusal.Code != refusal.Unsupported {
			t.Fatalf("umask %s: %s", mode, Render(res))
		}
		if !strings.Contains(res.Refusal.Text, "chmod ") || !strings.HasSuffix(res.Refusal.Text, "without umask.") {
			t.Errorf("umask %s: the refusal names no chmod and no next step: %s", mode, res.Refusal.Text)
		}
		if _, err := os.Stat(filepath.Join(sb.root, "key")); err == nil {
			t.Errorf("umask %s: the step after the refused umask ran", mode)
		}
		os.Remove(filepath.Join(sb.root, "before"))
	}
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
