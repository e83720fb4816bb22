package approvals

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The credential stores users have, by where they live. The list was
// checked against firejail's disable-common.inc (its "top secret", history
// and cloud lists), the agent profiles of agent-safehouse, and the stores
// each tool documents; docs/settings.md names them. The kernel's view also
// keeps away what no list names (see readable.go); this list words the
// questions and is what a secret grant opens.

// homeSecrets are stores under the home directory, files or trees.
var homeSecrets = []string{
	// keys and keyrings
	".ssh", ".gnupg", ".password-store", ".pki", ".1password", ".gnome2/keyrings",
	// git and its forges
	".git-credentials", ".git-credential-cache",
	// package registries and container registries
	".npmrc", ".yarnrc.yml", ".pypirc", ".gem/credentials", ".m2/settings.xml",
	".m2/settings-security.xml", ".gradle/gradle.properties", ".docker/config.json",
	// clouds, clusters, infrastructure
	".aws", ".azure", ".azd", ".oci", ".kube", ".boto", ".s3cfg", ".passwd-s3fs",
	".terraform.d/credentials.tfrc.json", ".terraformrc", ".vault-token",
	// databases, mail, shares
	".pgpass", ".my.cnf", ".mylogin.cnf", ".netrc", ".smbcredentials", ".fetchmailrc", ".msmtprc",
	// AI agents: their logins, and the transcripts of what they read
	".claude/.credentials.json", ".claude/projects", ".claude.json", ".codex/auth.json",
	".codex/sessions", ".gemini/oauth_creds.json", ".copilot",
	// what the user typed: shell and REPL histories (commands with tokens in them)
	".bash_history", ".zsh_history", ".zhistory", ".histfile", ".history", ".sh_history",
	".python_history", ".python-history", ".pythonhist", ".node_repl_history", ".psql_history",
	".mysql_history", ".sqlite_history", ".irb_history", ".rediscli_history", ".dbshell",
	".lesshst", ".viminfo",
}

// configSecrets are stores under the XDG config home (~/.config).
var configSecrets = []string{"gcloud", "gh", "hub", "glab-cli", "git/credentials", "github-copilot",
	"rclone", "doctl", "hcloud", "containers/auth.json", "keybase"}

// dataSecrets are stores under the XDG data home (~/.local/share).
var dataSecrets = []string{"keyrings", "kwalletd", "fish/fish_history", "atuin", "opencode/auth.json"}

// envSecrets are variables that name a store (a file or a tree).
var envSecrets = []string{"AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "CLOUDSDK_CONFIG",
	"AZURE_CONFIG_DIR", "GNUPGHOME", "PASSWORD_STORE_DIR", "GH_CONFIG_DIR", "NPM_CONFIG_USERCONFIG",
	"PGPASSFILE", "MYSQL_TEST_LOGIN_FILE", "TF_CLI_CONFIG_FILE", "RCLONE_CONFIG", "REGISTRY_AUTH_FILE",
	"HISTFILE"}

// envDirSecrets are variables that move a program's directory, and the
// stores in it.
var envDirSecrets = map[string][]string{
	"DOCKER_CONFIG":     {"config.json"},
	"CLAUDE_CONFIG_DIR": {".credentials.json", "projects"},
	"CODEX_HOME":        {"auth.json", "sessions"},
	"GRADLE_USER_HOME":  {"gradle.properties"},
}

// agentSockets are the sockets of the agents and daemons that hold or use
// the user's keys: the ssh agent, gpg-agent, the D-Bus session bus (the
// secret service), the keyring daemons, and docker's and podman's daemons
// (which can mount any file of the host). Connecting to one is using what
// it holds. Those named by tandem's environment count, and the usual places
// under the runtime directory ($XDG_RUNTIME_DIR, else /run/user/UID), the
// home and /run.
func agentSockets(home string, env map[string]string, memo lstatMemo) []entry {
	var out []entry
	add := func(path string) {
		if filepath.IsAbs(path) {
			out = append(out, entries(path, tree, memo)...)
		}
	}
	add(env["SSH_AUTH_SOCK"])
	add(unixSocket(env["DOCKER_HOST"], "unix://"))
	for _, a := range strings.Split(env["DBUS_SESSION_BUS_ADDRESS"], ";") {
		add(unixSocket(a, "unix:"))
	}
	run := env["XDG_RUNTIME_DIR"]
	if !filepath.IsAbs(run) {
		run = "/run/user/" + strconv.Itoa(os.Getuid())
	}
	for _, s := range []string{"gnupg", "bus", "keyring", "gcr", "ssh-agent.socket", "docker.sock",
		"podman", "containers"} {
		add(filepath.Join(run, s))
	}
	if home != "" {
		for _, s := range []string{".docker/run", ".docker/desktop", ".colima", ".rd/docker.sock"} {
			add(filepath.Join(home, s))
		}
	}
	for _, s := range []string{"/run/docker.sock", "/var/run/docker.sock", "/run/podman", "/run/containerd"} {
		add(s)
	}
	return out
}

// unixSocket returns the path of a socket address written scheme+path
// (unix:///run/x.sock), or scheme+"path=…" among comma-separated keys
// (D-Bus: unix:path=/run/user/1000/bus,guid=…); "" for any other address.
func unixSocket(addr, scheme string) string {
	rest, ok := strings.CutPrefix(addr, scheme)
	if !ok {
		return ""
	}
	if filepath.IsAbs(rest) {
		return rest
	}
	for _, kv := range strings.Split(rest, ",") {
		if p, ok := strings.CutPrefix(kv, "path="); ok {
			return p
		}
	}
	return ""
}
