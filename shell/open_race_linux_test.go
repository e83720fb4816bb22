//go:build linux

package shell

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/refusal"
)

// swapCase is a script whose interpreter opens a name in tandem's own
// process, and the name a step beside it swaps for a link into ~/.ssh.
type swapCase struct {
	name, script string
	swapped      string // the name swapped: "s.sh", "f" or "d" (a directory)
	write        bool   // the open writes: the key must not change
	// askedAs is how the step that opens the name begins, where an earlier
	// step names it too: the swap waits for that question.
	askedAs string
}

// Every kind of file the interpreter opens itself.
var swapCases = []swapCase{
	{name: "sh", script: "sh s.sh", swapped: "s.sh"},
	{name: "bash", script: "bash s.sh", swapped: "s.sh"},
	{name: "dash-in-a-directory", script: "dash d/id_ed25519", swapped: "d"},
	{name: "timeout-sh", script: "timeout 20 sh s.sh", swapped: "s.sh"},
	{name: "no-shebang", script: "./s.sh", swapped: "s.sh", askedAs: "sh "},
	{name: "env-bash", script: "env X=1 bash s.sh", swapped: "s.sh"},
	{name: "source", script: "source ./s.sh", swapped: "s.sh"},
	{name: "dot", script: ". s.sh", swapped: "s.sh"},
	{name: "input", script: "cat < f", swapped: "f"},
	{name: "input-in-a-directory", script: "cat < d/id_ed25519", swapped: "d"},
	{name: "read", script: `read -r l < f; echo "$l"`, swapped: "f"},
	{name: "mapfile", script: `mapfile -t a < f; echo "${a[@]}"`, swapped: "f"},
	{name: "command-substitution", script: `echo "$(< f)"`, swapped: "f"},
	{name: "here-document", script: "cat <<EOF\n$(< f)\nEOF", swapped: "f"},
	{name: "descriptor", script: "exec 3< f; cat <&3", swapped: "f"},
	{name: "process-substitution", script: "while read -r l; do echo \"$l\"; done < <(echo \"$(< f)\")", swapped: "f"},
	{name: "output", script: "echo planted > f", swapped: "f", write: true},
	{name: "append", script: "echo planted >> f", swapped: "f", write: true},
	{name: "read-write", script: "exec 3<> f; echo planted >&3", swapped: "f", write: true},
	{name: "output-in-a-directory", script: "echo planted > d/id_ed25519", swapped: "d", write: true},
}

// swapBed is a workspace where s.sh, f and d/id_ed25519 hold a harmless
// script (with no #!, run as one), and the home's key.
type swapBed struct {
	*testbed
	key string
}

const harmless = "echo harmless\n"

func newSwapBed(t *testing.T) swapBed {
	sb := newTestbed(t)
	b := swapBed{testbed: sb, key: filepath.Join(sb.home, ".ssh", "id_ed25519")}
	if err := os.Mkdir(filepath.Join(sb.root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"s.sh", "f", "d/id_ed25519"} {
		if err := os.WriteFile(filepath.Join(sb.root, n), []byte(harmless), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// plant puts a link into ~/.ssh beside name: to the key for a file, to
// ~/.ssh for the directory d.
func (b swapBed) plant(name string) error {
	target := b.key
	if name == "d" {
		target = filepath.Dir(b.key)
	}
	return os.Symlink(target, filepath.Join(b.root, name+".link"))
}

// swap exchanges name and the link beside it, atomically: at every moment
// one of them is at name. Swapped twice, name is what it was.
func (b swapBed) swap(name string) error {
	at := filepath.Join(b.root, name)
	return unix.Renameat2(unix.AT_FDCWD, at, unix.AT_FDCWD, at+".link", unix.RENAME_EXCHANGE)
}

// real is the path the file judged is at after one swap.
func (b swapBed) real(name string) string {
	if name == "d" {
		return filepath.Join(b.root, "d.link", "id_ed25519")
	}
	return filepath.Join(b.root, name+".link")
}

// leaked says how the key got out or changed, "" when it did not.
func (b swapBed) leaked(res Result) string {
	if strings.Contains(res.Output.Text, "PRIVATE") {
		return "the key is in the output: " + res.Output.Text
	}
	if got, err := os.ReadFile(b.key); err != nil || string(got) != "PRIVATE\n" {
		return "the key changed: " + string(got)
	}
	return ""
}

// The swap made at the worst moment: after the judgement, while the step
// is asked. The user says yes to what was judged; what is opened must be
// that, or nothing.
func TestJudgedFileSwappedWhileAskedIsNotOpened(t *testing.T) {
	for _, c := range swapCases {
		t.Run(c.name, func(t *testing.T) {
			b := newSwapBed(t)
			if err := b.plant(c.swapped); err != nil {
				t.Fatal(err)
			}
			judged := filepath.Join(b.root, c.swapped)
			var swapped atomic.Bool
			a := &asker{answer: func(q approvals.Question) approvals.Answer {
				for _, s := range q.Steps {
					if !strings.HasPrefix(s.Text, c.askedAs) {
						continue
					}
					for _, p := range s.Paths {
						if (p.Real == judged || filepath.Dir(p.Real) == judged) && !swapped.Swap(true) {
							if err := b.swap(c.swapped); err != nil {
								t.Error(err)
							}
						}
					}
				}
				return approvals.AllowOnce
			}}
			res := runScript(t, c.script, b.opts(0, a))
			if why := b.leaked(res); why != "" {
				t.Fatalf("%q: %s", c.script, why)
			}
			if !swapped.Load() {
				t.Fatalf("%q: no question named %s; questions: %+v", c.script, judged, a.asked())
			}
			if res.End != Refused || res.Refusal == nil || res.Refusal.Code != refusal.Swapped {
				t.Fatalf("%q: %s %+v, want refused as swapped; output %q", c.script, res.End, res.Refusal, res.Output.Text)
			}
			if text := res.Refusal.Text; !strings.Contains(text, c.swapped) || !strings.Contains(text, "run the script again") {
				t.Errorf("the refusal does not say what was swapped and what to do: %s", text)
			}
			if c.write {
				if real, err := os.ReadFile(b.real(c.swapped)); err != nil || string(real) != harmless {
					t.Errorf("the file judged was written, though nothing was opened: %q %v", real, err)
				}
			}
		})
	}
}

// The same race with no question to wait on (the default auto set): a
// goroutine swaps the name for a link into ~/.ssh and back as fast as it
// can while the script opens it again and again. Every open finds the file
// judged, a link judged secret (asked, and no one answers), or a swap it
// refuses; the key never comes out.
func TestJudgedFileSwappedInALoopNeverLeaks(t *testing.T) {
	const opens = 100
	for _, c := range swapCases {
		t.Run(c.name, func(t *testing.T) {
			b := newSwapBed(t)
			if err := b.plant(c.swapped); err != nil {
				t.Fatal(err)
			}
			ctx, stop := context.WithCancel(context.Background())
			var swaps atomic.Int64
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					if err := b.swap(c.swapped); err != nil {
						t.Error(err)
						return
					}
					swaps.Add(1)
				}
			}()
			loop := "for i in $(seq " + strconv.Itoa(opens) + "); do " + c.script + "\necho :op:; done"
			ends := map[string]int{}
			deadline := time.Now().Add(5 * time.Second)
			for done := 0; done < opens && time.Now().Before(deadline); {
				res := runScript(t, loop, b.opts(approvals.DefaultAuto, &asker{}))
				if why := b.leaked(res); why != "" {
					stop()
					wg.Wait()
					t.Fatalf("%q: %s", c.script, why)
				}
				end := string(res.End)
				if res.Refusal != nil {
					end += " " + string(res.Refusal.Code)
				}
				ends[end]++
				done += 1 + strings.Count(res.Output.Text, ":op:")
			}
			stop()
			wg.Wait()
			if swaps.Load() < 10 {
				t.Fatalf("only %d swaps were made", swaps.Load())
			}
			t.Logf("%q: %d swaps; runs ended %v", c.script, swaps.Load(), ends)
		})
	}
}

// The race as a script runs it: a sibling stage of the pipeline (a program
// the gate cannot see into, run unasked) swaps s.sh for a link to the key
// and back in a loop while the next stage runs it with every kind of shell.
func TestSiblingStageSwapsTheScript(t *testing.T) {
	b := newSwapBed(t)
	swapper := `import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
os.symlink(os.path.expanduser("~/.ss") + "h/id_ed25519", "s.link")
end = time.time() + float(sys.argv[1])
print("swapping", flush=True)
while time.time() < end:
    # renameat2(AT_FDCWD, "s.sh", AT_FDCWD, "s.link", RENAME_EXCHANGE)
    if libc.renameat2(-100, b"s.sh", -100, b"s.link", 2) != 0:
        sys.exit(os.strerror(ctypes.get_errno()))
`
	if err := os.WriteFile(filepath.Join(b.root, "swap.py"), []byte(swapper), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `python3 swap.py 2 | { read -r started; for i in $(seq 300); do sh s.sh; bash s.sh; timeout 20 sh s.sh; . ./s.sh; done; }`
	ends := map[string]int{}
	var sampled []string
	for deadline := time.Now().Add(4 * time.Second); time.Now().Before(deadline); {
		res := runScript(t, script, b.opts(approvals.DefaultAuto, &asker{}))
		if why := b.leaked(res); why != "" {
			t.Fatalf("%s", why)
		}
		end := string(res.End)
		if res.Refusal != nil {
			end += " " + string(res.Refusal.Code)
		}
		if ends[end]++; ends[end] == 1 && res.Refusal != nil {
			sampled = append(sampled, res.Refusal.Text)
		}
	}
	if ends["refused unanswered"]+ends["refused swapped"] == 0 {
		t.Fatalf("no run met the link the sibling stage put in: %v", ends)
	}
	t.Logf("runs ended %v; refusals %q", ends, sampled)
}

// A file test looks at what was judged too: [[ -e d/NAME ]], d swapped for
// a link to ~/.ssh after the judgement, tells nothing of ~/.ssh/NAME.
func TestFileTestOfASwappedNameTellsNothing(t *testing.T) {
	b := newSwapBed(t)
	if err := os.WriteFile(filepath.Join(b.home, ".ssh", "only_in_ssh"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := b.plant("d"); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			if err := b.swap("d"); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	defer func() { stop(); wg.Wait() }()
	script := `for i in $(seq 300); do [[ -e d/only_in_ssh ]] && echo EXISTS; [[ -r d/only_in_ssh ]] && echo READABLE; done`
	ends := map[string]int{}
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		res := runScript(t, script, b.opts(approvals.DefaultAuto, &asker{}))
		if strings.Contains(res.Output.Text, "EXISTS") || strings.Contains(res.Output.Text, "READABLE") {
			t.Fatalf("a file test saw behind the link swapped in: %q", res.Output.Text)
		}
		end := string(res.End)
		if res.Refusal != nil {
			end += " " + string(res.Refusal.Code)
		}
		ends[end]++
	}
	t.Logf("runs ended %v", ends)
	if ends["refused unanswered"]+ends["refused swapped"] == 0 {
		t.Fatalf("no run met the link: %v", ends)
	}
}

// A swapped file's refusal quotes the step's words: a credential's value
// in them is hidden there too, as everywhere the model sees.
func TestSwappedRefusalHidesCredentials(t *testing.T) {
	const token = "bridge-token-swap-0123456789"
	b := newSwapBed(t)
	name := "f-" + token
	if err := os.WriteFile(filepath.Join(b.root, name), []byte(harmless), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.plant(name); err != nil {
		t.Fatal(err)
	}
	var swapped atomic.Bool
	a := &asker{answer: func(q approvals.Question) approvals.Answer {
		if !swapped.Swap(true) {
			if err := b.swap(name); err != nil {
				t.Error(err)
			}
		}
		return approvals.AllowOnce
	}}
	o := b.opts(0, a)
	o.ExtraEnv = append(o.ExtraEnv, "TANDEM_MCP_TOKEN="+token)
	res := runScript(t, `cat < "f-$TANDEM_MCP_TOKEN"`, o)
	if res.Refusal == nil || res.Refusal.Code != refusal.Swapped {
		t.Fatalf("want refused as swapped: %s %+v", res.End, res.Refusal)
	}
	if shown := Render(res); strings.Contains(shown, token) || !strings.Contains(res.Refusal.Text, "[hidden: $TANDEM_MCP_TOKEN]") {
		t.Errorf("the refusal shows the token:\n%s", shown)
	}
}
