package classify

import (
	"testing"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/shell/internal/corpus"
)

// The programs that reach the user's agents and credential stores without
// naming them are secret and say where; their harmless forms ask nothing
// about a secret.
func TestAgentsAndStoresWithoutAName(t *testing.T) {
	f := corpus.NewFixture(t)
	sock := f.Policy.Env("SSH_AUTH_SOCK")
	cases := []struct {
		argv  []string
		want  string
		names string // a path the step names, "" for none required
	}{
		{[]string{"ssh-add", "-L"}, "read+secret", sock},
		{[]string{"ssh-add", "-D"}, "read+secret", sock},
		{[]string{"ssh-add", "-s", "/usr/lib/opensc-pkcs11.so"}, "read+exec+secret", sock},
		{[]string{"ssh-keygen", "-Y", "sign", "-n", "file", "-f", "keys/id_ed25519", "README.md"}, "read+write+secret", sock},
		{[]string{"ssh-keygen", "-R", "example.com"}, "read+write+secret", f.Home + "/.ssh"},
		{[]string{"ssh-keygen", "-t", "ed25519", "-N", "", "-f", "src/k"}, "read+write", ""},
		{[]string{"ssh-keygen", "-l", "-f", "src/a.go"}, "read", ""},
		{[]string{"ssh-keygen", "-Y", "verify", "-f", "src/a.go", "-I", "x", "-n", "file", "-s", "src/b.go"}, "read", ""},
		{[]string{"ssh", "-T", "git@example.com"}, "net+exec+secret", sock},
		{[]string{"gpg", "--export-secret-keys"}, "read+exec+secret", f.Home + "/.gnupg"},
		{[]string{"gpg", "--homedir", "src", "--verify", "src/a.go"}, "read+exec", ""},
		{[]string{"gpg", "--version"}, "none", ""},
		{[]string{"docker", "ps"}, "exec+net+secret", "/var/run/docker.sock"},
		{[]string{"docker", "-H", "unix:///run/docker.sock", "ps"}, "exec+net+secret", "/run/docker.sock"},
		{[]string{"docker", "ps"}, "exec+net+secret", "/var/run/docker.sock"}, // a step's -H was its own
		{[]string{"docker", "--version"}, "none", ""},
		{[]string{"podman", "ps"}, "exec+net", ""}, // the fixture names no runtime directory
		{[]string{"git", "credential", "fill"}, "read+exec+secret", f.Home + "/.git-credentials"},
		{[]string{"git-credential-libsecret", "get"}, "read+exec+secret", f.Home + "/.git-credentials"},
		{[]string{"socat", "-", "UNIX-CONNECT:" + sock}, "exec+net+secret", sock},
		{[]string{"socat", "-", "OPEN:src/x,creat"}, "exec+net+write", ""},
		{[]string{"socat", "TCP-LISTEN:8080,fork", "TCP:127.0.0.1:80"}, "exec+net", ""},
		{[]string{"nc", "-U", sock}, "exec+secret", sock},
	}
	for _, c := range cases {
		st := classifyIn(f, c.argv...)
		if want := corpus.Effects(t, c.want); st.Effects != want {
			t.Errorf("%q: %v, want %v", c.argv, st.Effects, want)
		}
		named := c.names == ""
		for _, p := range st.Paths {
			named = named || p.Path == c.names && (p.Class == approvals.PathSecret || p.HoldsSecret)
		}
		if !named {
			t.Errorf("%q must name %s as secret: %+v", c.argv, c.names, st.Paths)
		}
	}
	// The step's own SSH_AUTH_SOCK is the agent it reaches.
	env := envOf(append(append([]string(nil), f.Env...), "SSH_AUTH_SOCK="+f.Home+"/.ssh/agent.sock"))
	st := Command([]string{"ssh-add", "-l"}, f.WS, env, f.Policy)
	if st.Paths[0].Path != f.Home+"/.ssh/agent.sock" {
		t.Errorf("ssh-add judged %+v, want the step's own SSH_AUTH_SOCK", st.Paths)
	}
}
