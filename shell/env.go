package shell

import (
	"slices"
	"sort"
	"strings"
)

// credentialParts are parts of a name that make it a credential wherever
// they stand (DB_PASSWORD, PGPASSWORD, GOOGLE_APPLICATION_CREDENTIALS,
// GITHUB_TOKEN, AWS_SESSION_TOKEN, CLIENTSECRET).
var credentialParts = []string{"PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "TOKEN", "SECRET"}

// credentialLastWords make a name a credential as its last word:
// NPM_CONFIG__AUTH (but not SSH_AUTH_SOCK), AZURE_DEVOPS_EXT_PAT,
// SESSION_COOKIE, and ANTHROPIC_CUSTOM_HEADERS or OTEL_EXPORTER_OTLP_HEADERS,
// which carry bearer tokens.
var credentialLastWords = []string{"AUTH", "PAT", "COOKIE", "COOKIES", "HEADERS"}

// IsCredential reports whether a variable named name is a credential by its
// name alone: a part of it says password, passphrase, credential, token or
// secret; a word of it (split at '_') is or ends in KEY or KEYS (Codex drops
// *KEY*, *SECRET* and *TOKEN*; words keep KEYBOARD); or its last word is
// one of credentialLastWords.
func IsCredential(name string) bool {
	up := strings.ToUpper(name)
	for _, p := range credentialParts {
		if strings.Contains(up, p) {
			return true
		}
	}
	words := strings.FieldsFunc(up, func(r rune) bool { return r == '_' })
	for _, w := range words {
		if strings.HasSuffix(w, "KEY") || strings.HasSuffix(w, "KEYS") {
			return true
		}
	}
	return len(words) > 0 && slices.Contains(credentialLastWords, words[len(words)-1])
}

// EnvRule says which variables of the session's environment a run's
// processes get, beyond the rule of names (IsCredential).
type EnvRule struct {
	// Keys are the variables the user's settings use as keys (a
	// provider's apiKeyEnv, a variable an MCP server is handed). They are
	// dropped, whatever their names.
	Keys []string
	// Pass are the variables the user's own settings pass by name
	// (shell.passEnv). They are kept, whatever their names, and their
	// values are still hidden from what the run shows.
	Pass []string
}

// minHidden is the shortest value hidden from a run's output: a shorter
// one ("1", "true") is too common a string to replace without garbling
// the output.
const minHidden = 8

// ChildEnv returns the environment a step's process gets: base without
// every credential and key that rule does not pass, then extra (which may
// name credentials on purpose, such as the bridge's per-call token, and
// wins over base). Entries are KEY=VALUE; an entry without '=' is dropped.
// The result is sorted for stable output. hidden maps the value of every
// credential and key of base and extra, dropped or passed, to its name, so
// that what the run shows never holds one of them.
func ChildEnv(base, extra []string, rule EnvRule) (env []string, hidden map[string]string) {
	m := make(map[string]string, len(base)+len(extra))
	hidden = map[string]string{}
	secret := func(k, v string) bool {
		s := IsCredential(k) || slices.Contains(rule.Keys, k)
		if s && len(v) >= minHidden {
			hidden[v] = k
		}
		return s
	}
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || secret(k, v) && !slices.Contains(rule.Pass, k) {
			continue
		}
		m[k] = v
	}
	for _, kv := range extra {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		secret(k, v)
		m[k] = v
	}
	env = make([]string, 0, len(m))
	for k, v := range m {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env, hidden
}
