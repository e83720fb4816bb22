package shell

import (
	"sort"
	"strings"
)

// credentialMarks are the parts of a variable name (upper-cased) that make it
// a credential: a child process never sees such a variable, whatever its
// provider.
var credentialMarks = []string{
	"API_KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD",
	"PASSPHRASE", "CREDENTIAL", "PRIVATE_KEY", "ACCESS_KEY",
}

// providerCredentials are the model providers' credential variables whose
// names do not carry one of the marks.
var providerCredentials = map[string]bool{
	"ANTHROPIC_KEY":    true,
	"OPENAI_KEY":       true,
	"OPENROUTER_KEY":   true,
	"GEMINI_KEY":       true,
	"GOOGLE_GENAI_KEY": true,
	"AZURE_OPENAI_KEY": true,
	"MISTRAL_KEY":      true,
	"GROQ_KEY":         true,
	"DEEPSEEK_KEY":     true,
	"XAI_KEY":          true,
	"COHERE_KEY":       true,
	"HF_HUB_KEY":       true,
}

// IsCredential reports whether a variable named name is a credential: a
// provider credential, or a name whose upper case contains one of the marks.
func IsCredential(name string) bool {
	up := strings.ToUpper(name)
	if providerCredentials[up] {
		return true
	}
	for _, m := range credentialMarks {
		if strings.Contains(up, m) {
			return true
		}
	}
	return false
}

// ChildEnv is the environment a step's process gets: base minus every
// credential, then extra (which may name credentials on purpose, such as
// the bridge's per-call token, and wins over base). Entries are KEY=VALUE;
// an entry without '=' is dropped. The result is sorted for stable output.
func ChildEnv(base, extra []string) []string {
	m := make(map[string]string, len(base)+len(extra))
	for _, kv := range base {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || IsCredential(k) {
			continue
		}
		m[k] = v
	}
	for _, kv := range extra {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
