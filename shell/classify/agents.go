package classify

import (
	"path/filepath"
	"strings"

	"github.com/tandemdev/tandem/approvals"
)

// Programs that use the user's keys without naming them: ssh-add,
// ssh-keygen -Y sign, ssh, scp and sftp talk to the ssh agent and read
// ~/.ssh; gpg talks to gpg-agent over its home's sockets; docker, podman
// and nerdctl drive a daemon that can mount any file of the host; git's
// credential helpers hand out stored passwords. Each row names the socket
// or store the program reaches, so the step is secret and its question
// says where. What such a program does beyond that (it may run programs)
// stays exec.

// stepEnv is a variable as the step sees it: its own environment's value
// when that sets one, else the session's.
func (c *classifier) stepEnv(name string) string {
	if c.env != nil {
		if v := c.env.Get(name); v.IsSet() {
			return v.String()
		}
	}
	return c.p.Env(name)
}

// sshKeys names what an ssh program signs with: the agent's socket and
// ~/.ssh.
func (c *classifier) sshKeys() {
	c.read("/", c.stepEnv("SSH_AUTH_SOCK"))
	c.secretFile(".ssh", true)
}

// sshAddRow classifies ssh-add, which lists, adds, removes or uses the
// agent's keys, and reads the key files it is given (~/.ssh's by default).
// -s, -e and -S load a PKCS#11 or FIDO provider library: exec.
func sshAddRow(c *classifier, args []string, dir string) {
	p := opts{short: "cCDdEHkKLlqTvXxe:s:S:t:h:"}.parse(args)
	c.add(approvals.Read)
	if p.set("-s") || p.set("-e") || p.set("-S") {
		c.add(approvals.Exec)
	}
	c.sshKeys()
	c.words(dir, p.ops, false)
	c.words(dir, p.vals, false)
}

// sshKeygenReads are ssh-keygen's modes that only read the files they are
// given; every other mode writes a key, a certificate or known_hosts.
var sshKeygenReads = []string{"-l", "-y", "-B", "-e", "-i", "-L", "-Q"}

// sshKeygenRow classifies ssh-keygen, which writes the key it makes (-f FILE
// and FILE.pub) or the known_hosts it edits; without -f it works on ~/.ssh.
// -Y sign signs with the agent's keys or a key file; -Y verify and the other
// read modes read only what they name. -D and -w load a provider library:
// exec.
func sshKeygenRow(c *classifier, args []string, dir string) {
	p := opts{short: "AcgHKkLlpQqUuvyBeia:b:C:D:E:F:f:I:J:j:M:m:N:n:O:P:R:r:s:t:V:w:Y:Z:z:"}.parse(args)
	c.add(approvals.Read)
	if p.set("-D") || p.set("-w") {
		c.add(approvals.Exec)
	}
	action := p.val("-Y")
	reads := action == "verify" || action == "check-novalidate" || action == "find-principals" || action == "match-principals"
	for _, o := range sshKeygenReads {
		reads = reads || p.set(o)
	}
	files := p.has["-f"]
	if action == "sign" || len(files) == 0 {
		c.sshKeys()
	}
	if reads || action != "" {
		c.words(dir, files, false)
	} else {
		c.add(approvals.Write) // without -f, into ~/.ssh
		for _, f := range files {
			c.write(dir, f)
			c.write(dir, f+".pub")
		}
	}
	for _, k := range []string{"-s", "-I", "-n", "-O", "-P", "-N"} {
		c.words(dir, p.has[k], false)
	}
	if action == "sign" {
		// Each file is signed into FILE.sig.
		for _, o := range p.ops {
			c.read(dir, o)
			c.write(dir, o+".sig")
		}
		return
	}
	c.words(dir, p.ops, !reads)
}

// sshRow classifies ssh, scp and sftp. They sign in with the agent's keys
// or ~/.ssh's and talk to the network, and they are always exec (a -o
// ProxyCommand or a remote command runs a program). Their options and
// operands are judged as any program's.
func sshRow(c *classifier, args []string, dir string) {
	c.add(approvals.Net, approvals.Exec)
	c.sshKeys()
	c.anyWords(dir, args)
}

// gpgRow classifies gpg and its tools, which use the keys of their home
// (GNUPGHOME, --homedir, else ~/.gnupg) through that home's agent, and can
// run other programs (keyserver helpers, photo viewers): read and exec.
// Only --version and --help alone touch no key.
func gpgRow(c *classifier, args []string, dir string) {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "--help" || args[0] == "-h") {
		return
	}
	c.add(approvals.Read, approvals.Exec)
	home := c.stepEnv("GNUPGHOME")
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--homedir="); ok {
			home = v
		} else if a == "--homedir" && i+1 < len(args) {
			home = args[i+1]
		}
	}
	if home == "" {
		c.secretFile(".gnupg", true)
		if run := c.stepEnv("XDG_RUNTIME_DIR"); run != "" {
			c.read("/", filepath.Join(run, "gnupg"))
		}
	} else {
		c.read(dir, home)
	}
	c.anyWords(dir, args)
}

// containerRow returns the row of a container engine's client, which drives
// a daemon that can run anything and mount any file of the host, reached
// through a socket (the host given by -H/--host/--url or hostVar, else the
// engine's usual socket): exec, and secret through the socket. Only
// --version and --help alone reach no daemon.
func containerRow(hostVar, socket string) row {
	return func(c *classifier, args []string, dir string) {
		if len(args) == 1 && (args[0] == "--version" || args[0] == "-v" || args[0] == "--help") {
			return
		}
		c.add(approvals.Exec, approvals.Net)
		host := c.stepEnv(hostVar)
		for i, a := range args {
			if _, v, ok := strings.Cut(a, "="); ok && (strings.HasPrefix(a, "--host=") || strings.HasPrefix(a, "--url=")) {
				host = v
			} else if (a == "-H" || a == "--host" || a == "--url") && i+1 < len(args) {
				host = args[i+1]
			}
		}
		// The row's own socket is each step's start: a step's host or
		// runtime directory is its own, never the next step's.
		sock := socket
		if path, ok := strings.CutPrefix(host, "unix://"); ok {
			sock = path
		}
		if strings.HasPrefix(sock, "$XDG_RUNTIME_DIR/") {
			sock = filepath.Join(c.stepEnv("XDG_RUNTIME_DIR"), strings.TrimPrefix(sock, "$XDG_RUNTIME_DIR/"))
		}
		c.read("/", sock)
		c.anyWords(dir, args)
	}
}

// gitCredentials names the stores git's credential helpers read: the
// store helper's files; the cache helper's socket and the keyrings are
// other helpers' ways to the same passwords.
func (c *classifier) gitCredentials() {
	c.add(approvals.Read)
	c.secretFile(".git-credentials", true)
}

// gitCredentialRow classifies a git-credential-* helper run by its own
// name.
func gitCredentialRow(c *classifier, args []string, dir string) {
	c.add(approvals.Exec)
	c.gitCredentials()
	c.anyWords(dir, args)
}

// socatRow classifies socat, which joins two addresses. An address's first
// parameter is a path for the file and socket types
// (UNIX-CONNECT:$SSH_AUTH_SOCK, OPEN:f, CREATE:f), and a bare path is opened
// as it is. It can run programs (EXEC:, SYSTEM:) and reach the network: exec
// and net.
func socatRow(c *classifier, args []string, dir string) {
	c.add(approvals.Exec, approvals.Net)
	for _, a := range args {
		if a == "-" || strings.HasPrefix(a, "-") && len(a) > 1 {
			continue
		}
		kind, rest, ok := strings.Cut(a, ":")
		if !ok {
			c.write(dir, a)
			continue
		}
		path, _, _ := strings.Cut(rest, ",")
		switch strings.ToUpper(kind) {
		case "UNIX-CONNECT", "UNIX-CLIENT", "UNIX-SENDTO", "UNIX", "LOCAL", "UNIX-RECV", "UNIX-RECVFROM":
			c.read(dir, path)
		case "UNIX-LISTEN", "OPEN", "GOPEN", "CREATE", "CREAT", "PIPE":
			c.write(dir, path)
		}
	}
}

// agentRows adds these programs to the command table.
func agentRows() {
	table["ssh-add"] = sshAddRow
	table["ssh-keygen"] = sshKeygenRow
	for _, n := range []string{"ssh", "scp", "sftp"} {
		table[n] = sshRow
	}
	for _, n := range []string{"gpg", "gpg2", "gpgsm", "gpg-agent", "gpg-connect-agent", "gpgconf"} {
		table[n] = gpgRow
	}
	table["docker"] = containerRow("DOCKER_HOST", "/var/run/docker.sock")
	table["docker-compose"] = table["docker"]
	table["podman"] = containerRow("CONTAINER_HOST", "$XDG_RUNTIME_DIR/podman/podman.sock")
	table["nerdctl"] = containerRow("CONTAINERD_ADDRESS", "/run/containerd/containerd.sock")
	for _, n := range []string{"store", "cache", "libsecret", "manager", "manager-core", "osxkeychain",
		"gnome-keyring", "netrc", "oauth"} {
		table["git-credential-"+n] = gitCredentialRow
	}
	table["socat"] = socatRow
}
