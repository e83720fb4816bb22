package shell

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tandemdev/tandem/approvals"
)

// A step that reads a secret with a variable that changes what its program
// loads is asked naming that variable with its value, however the script
// set it: an assignment prefix, export, declare -x (written so, reached
// through a variable or an alias, or with declare -l), printf -v, env
// NAME=…, an earlier export seen by a wrapper, xargs, find -exec or sh -c.
// Denied, nothing is read.
func TestQuestionNamesWhatTheProgramLoads(t *testing.T) {
	sb := newTestbed(t)
	for _, script := range []string{
		`LD_PRELOAD=./evil.so cat ~/.ssh/id_ed25519`,
		`export LD_PRELOAD=./evil.so; cat ~/.ssh/id_ed25519`,
		`declare -x LD_PRELOAD=./evil.so; cat ~/.ssh/id_ed25519`,
		`env LD_PRELOAD=./evil.so cat ~/.ssh/id_ed25519`,
		`export LD_PRELOAD=./evil.so; timeout 5 nice cat ~/.ssh/id_ed25519`,
		`LD_PRELOAD=./evil.so sh -c 'cat ~/.ssh/id_ed25519'`,
		// The path comes escaped, so only xargs's cat names it.
		`printf '` + escaped(filepath.Join(sb.home, ".ssh", "id_ed25519")) + `\n' | LD_PRELOAD=./evil.so xargs cat`,
		`LD_PRELOAD=./evil.so find ~/.ssh -name id_ed25519 -exec cat {} \;`,
		`f() { cat ~/.ssh/id_ed25519; }; LD_PRELOAD=./evil.so f`,
		// declaration builtins reached as commands, and printf -v into
		// an exported name
		`e=export; $e LD_PRELOAD=./evil.so; cat ~/.ssh/id_ed25519`,
		"shopt -s expand_aliases; alias e=export\ne LD_PRELOAD=./evil.so; cat ~/.ssh/id_ed25519",
		`FOO=1 declare -x LD_PRELOAD=./evil.so; cat ~/.ssh/id_ed25519`,
		`export LD_PRELOAD; printf -v LD_PRELOAD %s ./evil.so; cat ~/.ssh/id_ed25519`,
		`declare -lx LD_PRELOAD=./EVIL.so; cat ~/.ssh/id_ed25519`,
	} {
		a := answering(approvals.Deny)
		res := runScript(t, script, sb.opts(approvals.DefaultAuto, a))
		if strings.Contains(res.Output.Text, "PRIVATE") {
			t.Errorf("%s: the secret was read:\n%s", script, Render(res))
		}
		named := false
		for _, q := range a.asked() {
			for _, s := range q.Steps {
				if s.Effects.Has(approvals.Secret) {
					named = strings.Contains(strings.ToLower(s.Text), "ld_preload=./evil.so") && s.Effects.Has(approvals.Exec)
				}
			}
		}
		if !named {
			t.Errorf("%s: no question names LD_PRELOAD on the secret's step: %+v", script, a.asked())
		}
	}
}

// escaped is s as printf's \xHH escapes.
func escaped(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, `\x%02x`, s[i])
	}
	return b.String()
}
