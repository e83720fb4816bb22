package shell

import (
	"net"
	"os"
	"testing"
	"time"

	"github.com/tandemdev/tandem/approvals"
)

// bash's /dev/tcp/HOST/PORT is a connection: a step with net alone, run
// unasked where net is in the auto set, asked as net where it is not.
func TestTCPRedirectionIsNetAlone(t *testing.T) {
	hostname, err := os.ReadFile("/etc/hostname")
	if err != nil || len(hostname) == 0 {
		t.Skip("no /etc/hostname to send")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			b := make([]byte, 4096)
			var all []byte
			for {
				n, err := c.Read(b)
				all = append(all, b[:n]...)
				if err != nil {
					break
				}
			}
			c.Close()
			got <- string(all)
		}
	}()
	host, port, err := net.SplitHostPort(ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	script := "cat /etc/hostname > /dev/tcp/" + host + "/" + port
	sb := newTestbed(t)

	a := answering(approvals.Deny)
	res := runScript(t, script, sb.opts(approvals.DefaultAuto, a))
	if qs := a.asked(); len(qs) > 0 || res.End != Finished || res.Status != 0 {
		t.Fatalf("with net in the auto set, %q asked %d question(s) and ended %s %d:\n%s", script, len(qs), res.End, res.Status, Render(res))
	}
	select {
	case s := <-got:
		if s != string(hostname) {
			t.Fatalf("the listener got %q, want %q", s, hostname)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the listener got nothing")
	}

	a = answering(approvals.Deny)
	res = runScript(t, script, sb.opts(approvals.Of(approvals.Read, approvals.Write, approvals.Exec), a))
	qs := a.asked()
	if len(qs) != 1 || len(qs[0].Steps) != 1 || qs[0].Steps[0].Effects != approvals.Of(approvals.Net) || res.End != Refused {
		t.Fatalf("without net in the auto set, want one question about one step with net alone; got %+v, ended %s", qs, res.End)
	}
	select {
	case s := <-got:
		t.Fatalf("denied, yet the listener got %q", s)
	case <-time.After(200 * time.Millisecond):
	}
}

// The functions a sourced file declares are read from the very code the
// interpreter runs: one that shadows a builtin runs as the function.
func TestSourcedFunctionsShadowBuiltins(t *testing.T) {
	sb := newTestbed(t)
	script := `printf 'echo() { printf "mine %%s\\n" "$*"; }\n' > lib.sh; source ./lib.sh; echo hi`
	res := runScript(t, script, sb.opts(approvals.DefaultAuto, answering(approvals.Deny)))
	if res.End != Finished || res.Output.Text != "mine hi\n" {
		t.Fatalf("the sourced echo did not run: %s %q", res.End, res.Output.Text)
	}
}
