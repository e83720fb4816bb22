package agent

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/config"
)

// Endpoint is where a chat's model is reached: a provider's wire format, its
// URL, the key from the process environment, and the model's name there.
type Endpoint struct {
	Provider string // the provider's name in settings, e.g. "anthropic"
	API      string // APIAnthropic or APIOpenAIChat
	URL      string
	Key      string // never logged, written or shown to a model
	KeyEnv   string // the variable Key came from, named in messages
	Model    string // the model's name at the provider
}

// The wire formats a provider may speak.
const (
	APIAnthropic  = "anthropic"   // POST {url}/v1/messages
	APIOpenAIChat = "openai-chat" // POST {url}/chat/completions
)

// providerSetting is one entry of the setting agent.providers.
type providerSetting struct {
	API       string `json:"api"`
	URL       string `json:"url"`
	APIKeyEnv string `json:"apiKeyEnv"`
}

// builtinProviders are known without configuration.
var builtinProviders = map[string]providerSetting{
	"anthropic": {API: APIAnthropic, URL: "https://api.anthropic.com", APIKeyEnv: "ANTHROPIC_API_KEY"},
	"openai":    {API: APIOpenAIChat, URL: "https://api.openai.com/v1", APIKeyEnv: "OPENAI_API_KEY"},
	"ollama":    {API: APIOpenAIChat, URL: "http://127.0.0.1:11434/v1"},
}

// NoModelError is the error of a prompt when no model is set. It says what
// to set and that the prompt can then be sent again, which holds in every
// front door; a door that takes a model of its own (`tandem chat
// --model`) says so beside it.
type NoModelError struct{ File string }

func (e *NoModelError) Error() string {
	return fmt.Sprintf("no model is set: set agent.model in %s to \"PROVIDER/MODEL\" (for example \"anthropic/claude-sonnet-4-5\" with ANTHROPIC_API_KEY in the environment, or \"ollama/qwen3-coder\"), then send the prompt again", e.File)
}

// ResolveEndpoint finds where model ("PROVIDER/MODEL"; empty: the setting
// agent.model) is reached. Providers and the model are read from the
// user's own settings only: a workspace must never redirect the user's key
// to another URL. getenv reads a key variable: the process environment, or
// the key the editor gave (keyOf). Every error is one sentence saying what
// to set.
func ResolveEndpoint(st *config.Settings, model string, getenv func(string) string) (Endpoint, error) {
	if model == "" {
		if v, ok := st.User("agent.model"); ok {
			if err := v.Decode(&model); err != nil {
				return Endpoint{}, fmt.Errorf("agent.model must be a string \"PROVIDER/MODEL\": %w", err)
			}
		}
	}
	if model == "" {
		return Endpoint{}, &NoModelError{File: config.UserFile()}
	}
	name, modelName, ok := strings.Cut(model, "/")
	if !ok || name == "" || modelName == "" {
		return Endpoint{}, fmt.Errorf("the model %q is not \"PROVIDER/MODEL\"; name it as, for example, \"anthropic/claude-sonnet-4-5\"", model)
	}
	known := map[string]providerSetting{}
	for n, p := range builtinProviders {
		known[n] = p
	}
	if v, ok := st.User("agent.providers"); ok {
		var set map[string]providerSetting
		if err := v.Decode(&set); err != nil {
			return Endpoint{}, fmt.Errorf("agent.providers must map names to {\"api\", \"url\", \"apiKeyEnv\"}: %w", err)
		}
		for n, p := range set {
			known[n] = p
		}
	}
	p, ok := known[name]
	if !ok {
		names := make([]string, 0, len(known))
		for n := range known {
			names = append(names, n)
		}
		sort.Strings(names)
		return Endpoint{}, fmt.Errorf("there is no provider %q: use one of %s, or add it to agent.providers in %s", name, strings.Join(names, ", "), config.UserFile())
	}
	if p.API != APIAnthropic && p.API != APIOpenAIChat {
		return Endpoint{}, fmt.Errorf("provider %q has api %q; it must be %q or %q", name, p.API, APIAnthropic, APIOpenAIChat)
	}
	if p.URL == "" {
		return Endpoint{}, fmt.Errorf("provider %q has no url; set agent.providers.%s.url", name, name)
	}
	e := Endpoint{Provider: name, API: p.API, URL: strings.TrimRight(p.URL, "/"), KeyEnv: p.APIKeyEnv, Model: modelName}
	if p.APIKeyEnv != "" {
		if e.Key = getenv(p.APIKeyEnv); e.Key == "" {
			return Endpoint{}, fmt.Errorf("provider %q needs its API key in the environment variable %s; set it where tandem is started (your editor passes it from its secret storage)", name, p.APIKeyEnv)
		}
	}
	return e, nil
}

// String names the endpoint without its key.
func (e Endpoint) String() string { return e.Provider + "/" + e.Model }

// MarshalJSON leaves the key out, wherever an endpoint is written.
func (e Endpoint) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]string{"provider": e.Provider, "api": e.API, "url": e.URL, "model": e.Model})
}

// NewProvider is the client for e's wire format; a call receiving nothing
// for idle counts as dropped (0 is providers.DefaultIdleTimeout).
func NewProvider(e Endpoint, idle time.Duration) providers.Provider {
	if e.API == APIAnthropic {
		return providers.NewAnthropic(providers.AnthropicOptions{URL: e.URL, APIKey: e.Key, IdleTimeout: idle})
	}
	return providers.NewOpenAIChat(providers.OpenAIOptions{URL: e.URL, APIKey: e.Key, IdleTimeout: idle})
}

// Connect is the Connector every front door uses: the endpoint from the
// user's own settings, its key given from the editor or in the process
// environment, the idle
// timeout from agent.idleTimeoutSeconds.
func Connect(st *config.Settings, model string) (providers.Provider, Endpoint, error) {
	e, err := ResolveEndpoint(st, model, keyOf)
	if err != nil {
		return nil, Endpoint{}, err
	}
	idle, _ := idleTimeout(st) // a bad value is SettingsProblems' to report
	return NewProvider(e, idle), e, nil
}
