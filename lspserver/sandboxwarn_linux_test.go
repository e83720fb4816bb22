package lspserver

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/internal/denysys"
)

// Where the kernel cannot hold bash steps (no Landlock), or can hold them
// only in part (no user namespaces), the editor is told once, when the
// connection starts, in one sentence that names what is missing.
func TestEditorToldWhereTheKernelCannotHold(t *testing.T) {
	for _, c := range []struct{ deny, want string }{
		{denysys.Landlock, "tandem cannot hold the programs of bash steps in a kernel sandbox here: the kernel has no Landlock"},
		{denysys.UserNamespaces, "tandem's kernel sandbox holds bash steps only in part here: no user namespace can be made here"},
	} {
		t.Run(c.deny, func(t *testing.T) {
			command := func(name string, args ...string) *exec.Cmd { return denysys.Command(c.deny, name, args...) }
			p := startLSPWith(t, t.TempDir(), command)
			p.initialize(t, sample(t), nil)
			p.openSession(t) // after initialized: its warnings were sent
			warnings := 0
			p.mu.Lock()
			for _, n := range p.notes {
				if n.Method == "window/showMessage" && strings.Contains(string(n.Params), "kernel sandbox") {
					warnings++
					if !strings.Contains(string(n.Params), c.want) || !strings.Contains(string(n.Params), "`tandem doctor` says more") {
						t.Errorf("the warning: %s\nwant %q", n.Params, c.want)
					}
				}
			}
			p.mu.Unlock()
			if warnings != 1 {
				t.Errorf("the editor was told %d times, want once", warnings)
			}
		})
	}
	// With both, nothing is said.
	p := startLSP(t)
	p.initialize(t, sample(t), nil)
	p.openSession(t)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, n := range p.notes {
		if strings.Contains(string(n.Params), "kernel sandbox") {
			t.Errorf("a warning where the kernel holds: %s", n.Params)
		}
	}
}
