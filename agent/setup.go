package agent

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"unicode"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/config"
)

// A first run set up from the editor, without editing JSON: the editor
// lists a provider's models (_tandem/models), hands over the key the user
// pasted (_tandem/setKey), and sets the model (_tandem/setModel), which the
// session takes at once.

// heldKeys are the keys the user gave this process from the editor, by the
// name of the variable their provider reads: held in memory only — never
// written, logged, or put in the environment, so no step or server tandem
// starts inherits one.
var heldKeys sync.Map

// keyOf is a provider key variable's value: the one the user gave from the
// editor, else the environment's.
func keyOf(name string) string {
	if v, ok := heldKeys.Load(name); ok {
		return v.(string)
	}
	return os.Getenv(name)
}

// ProviderSetup is a provider the setup names: a known one by Name alone,
// or a new one with its wire, URL and key variable.
type ProviderSetup struct {
	Name      string `json:"name"`
	API       string `json:"api,omitempty"`
	URL       string `json:"url,omitempty"`
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
}

var (
	providerName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`) })
	envName      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z_][A-Z0-9_]{0,63}$`) })
)

// check refuses a new provider that is not one tandem can reach.
func (p ProviderSetup) check() error {
	switch {
	case !providerName().MatchString(p.Name):
		return fmt.Errorf("the provider name %q is not lower-case letters, digits, - or _; choose another", p.Name)
	case p.API == "" && p.URL == "" && p.APIKeyEnv == "":
		return nil // a known one, named
	case p.API != APIAnthropic && p.API != APIOpenAIChat:
		return fmt.Errorf("the provider's api %q is neither %q nor %q; choose one", p.API, APIAnthropic, APIOpenAIChat)
	case p.APIKeyEnv != "" && !envName().MatchString(p.APIKeyEnv):
		return fmt.Errorf("apiKeyEnv %q is not an environment variable's name (A-Z, 0-9, _); give one such as MY_PROVIDER_KEY", p.APIKeyEnv)
	}
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("the provider's url %q is not an http(s) URL; give one such as http://127.0.0.1:8080/v1", p.URL)
	}
	return nil
}

// Models lists the models of provider p (a known name, or a new one) as
// its server offers them, with the key held or in the environment.
func (s *Service) Models(ctx context.Context, id acp.SessionId, p ProviderSetup) ([]providers.Listing, error) {
	sv, err := s.session(id)
	if err != nil {
		return nil, err
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	e, err := endpointOf(sv.chat.opts.Session.Settings(), p)
	if err != nil {
		return nil, err
	}
	lister, ok := NewProvider(e, 0).(providers.ModelLister)
	if !ok {
		return nil, fmt.Errorf("provider %q cannot list its models; type the model's name", p.Name)
	}
	list, err := lister.Models(ctx)
	var refused *providers.Error
	switch {
	case errors.As(err, &refused) && errors.Is(err, providers.ErrAuth):
		return nil, fmt.Errorf("%s refused the API key (HTTP %d: %s); paste the right key for %s, then list the models again", p.Name, refused.Status, refused.Message, p.Name)
	case err != nil:
		return nil, fmt.Errorf("%s did not list its models (%v); check its URL and key, or type the model's name", p.Name, err)
	}
	return list, nil
}

// endpointOf is where p is reached: a new provider as given, a known one
// from the settings, with the key held or in the environment.
func endpointOf(st *config.Settings, p ProviderSetup) (Endpoint, error) {
	if p.API != "" {
		e := Endpoint{Provider: p.Name, API: p.API, URL: strings.TrimRight(p.URL, "/"), KeyEnv: p.APIKeyEnv}
		if p.APIKeyEnv != "" {
			e.Key = keyOf(p.APIKeyEnv)
		}
		return e, nil
	}
	return ResolveEndpoint(st, p.Name+"/-", keyOf)
}

// SetKey holds key for provider p (known to the session's settings, or new
// with its apiKeyEnv) in this process's memory. Only a provider's key
// variable can be set so: nothing else of the environment.
func (s *Service) SetKey(id acp.SessionId, p ProviderSetup, key string) error {
	sv, err := s.session(id)
	if err != nil {
		return err
	}
	if err := p.check(); err != nil {
		return err
	}
	name := p.APIKeyEnv
	if p.API == "" {
		known, ok := providerKeyEnv(sv.chat.opts.Session.Settings(), p.Name)
		if !ok {
			return fmt.Errorf("there is no provider %q; add it with its api and url first", p.Name)
		}
		name = known
	}
	if name == "" {
		return fmt.Errorf("provider %q takes no key (it names no apiKeyEnv); set its model without one", p.Name)
	}
	if key == "" || len(key) > 4096 || strings.IndexFunc(key, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return fmt.Errorf("the key for %s is empty, too long or holds spaces or line breaks; paste it again", p.Name)
	}
	heldKeys.Store(name, key)
	return nil
}

// providerKeyEnv is the key variable of the provider named, from the
// built-ins and the user's settings.
func providerKeyEnv(st *config.Settings, name string) (string, bool) {
	if p, ok := builtinProviders[name]; ok {
		return p.APIKeyEnv, true
	}
	var set map[string]providerSetting
	if v, ok := st.User("agent.providers"); ok && v.Decode(&set) == nil {
		if p, ok := set[name]; ok {
			return p.APIKeyEnv, true
		}
	}
	return "", false
}

// SetUserModel makes model ("PROVIDER/MODEL") the user's (agent.model in
// their settings file, with the provider when it is new) and switches
// session id to it at once.
func (s *Service) SetUserModel(id acp.SessionId, model string, p *ProviderSetup) ([]acp.SessionConfigOption, error) {
	sv, err := s.session(id)
	if err != nil {
		return nil, err
	}
	name, modelName, ok := strings.Cut(model, "/")
	if !ok || modelName == "" {
		return nil, fmt.Errorf("the model %q is not \"PROVIDER/MODEL\"; name it as, for example, \"anthropic/claude-sonnet-4-5\"", model)
	}
	st := sv.chat.opts.Session.Settings()
	var sets []config.Setting
	if p != nil && p.API != "" {
		if err := p.check(); err != nil {
			return nil, err
		}
		if p.Name != name {
			return nil, fmt.Errorf("the model %q is not of the provider %q being added; name it %s/MODEL", model, p.Name, p.Name)
		}
		entry := map[string]string{"api": p.API, "url": p.URL}
		if p.APIKeyEnv != "" {
			entry["apiKeyEnv"] = p.APIKeyEnv
		}
		sets = append(sets, config.Setting{Key: "agent.providers." + p.Name, Value: entry})
	}
	if err := config.SetUser(append(sets, config.Setting{Key: "agent.model", Value: model})...); err != nil {
		return nil, err
	}
	if err := st.LoadUser(); err != nil {
		return nil, err
	}
	return s.SetModel(id, model)
}
