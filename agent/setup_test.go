package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers/scripted"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/tools"
)

// A first run set up from the editor, as a user does it: no model, then
// the provider's models listed with the key they pasted, the model chosen
// — and the same session answers the next prompt through it, with no
// restart. The key is in no file and not in the environment.
func TestFirstRunSetUpFromTheEditor(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("SCRIPTED_TEST_KEY", "")
	srv, err := scripted.Start(scripted.Script{Format: scripted.Anthropic, Models: []string{"small-1", "big-2"},
		Responses: []scripted.Response{{Parts: []scripted.Part{{Text: "set up"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	svc := NewService(func(o Opening) (*tools.Session, error) {
		st := config.New()
		if err := st.LoadUser(); err != nil {
			return nil, err
		}
		return tools.Open(tools.Options{ID: o.ID, Roots: []string{o.Cwd}, Settings: st}), nil
	}, Connect, nil)
	defer svc.CloseAll()
	res, err := svc.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	id := res.SessionId
	if _, err := svc.Prompt(context.Background(), id, textPrompt("hi"), func(acp.SessionUpdate) {}); err == nil || !strings.Contains(err.Error(), "no model is set") {
		t.Fatalf("the first prompt: %v", err)
	}
	call := func(method string, params any) (any, error) {
		b, _ := json.Marshal(params)
		return svc.Extension(context.Background(), method, b)
	}
	p := map[string]any{"name": "scripted", "api": "anthropic", "url": srv.URL(), "apiKeyEnv": "SCRIPTED_TEST_KEY"}
	const key = "sk-test-4711"
	if _, err := call(MethodSetKey, map[string]any{"sessionId": id, "provider": p, "key": key}); err != nil {
		t.Fatal(err)
	}
	listed, err := call(MethodModels, map[string]any{"sessionId": id, "provider": p})
	if b, _ := json.Marshal(listed); err != nil || !strings.Contains(string(b), `"id":"small-1"`) || !strings.Contains(string(b), `"id":"big-2"`) {
		t.Fatalf("models: %s %v", b, err)
	}
	if got := srv.Requests()[0].Header.Get("X-Api-Key"); got != key {
		t.Errorf("the listing was sent with key %q", got)
	}
	if _, err := call(MethodSetModel, map[string]any{"sessionId": id, "model": "scripted/big-2", "provider": p}); err != nil {
		t.Fatal(err)
	}
	resp, err := svc.Prompt(context.Background(), id, textPrompt("hi"), func(acp.SessionUpdate) {})
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the prompt after the setup: %+v %v", resp, err)
	}
	b, _ := os.ReadFile(filepath.Join(cfg, "tandem", "config.json"))
	var saved struct {
		Agent struct {
			Model     string
			Providers map[string]providerSetting
		}
	}
	if err := json.Unmarshal(b, &saved); err != nil || saved.Agent.Model != "scripted/big-2" ||
		saved.Agent.Providers["scripted"] != (providerSetting{API: "anthropic", URL: srv.URL(), APIKeyEnv: "SCRIPTED_TEST_KEY"}) || strings.Contains(string(b), key) {
		t.Errorf("the user's settings file (%v):\n%s", err, b)
	}
	if os.Getenv("SCRIPTED_TEST_KEY") != "" {
		t.Error("the key was put in the environment, where every step would inherit it")
	}
	// Only a provider's key variable can be set.
	if _, err := call(MethodSetKey, map[string]any{"sessionId": id, "provider": map[string]any{"name": "ollama"}, "key": "x"}); err == nil || !strings.Contains(err.Error(), "takes no key") {
		t.Errorf("a key for a provider without one: %v", err)
	}
	if _, err := call(MethodSetKey, map[string]any{"sessionId": id, "provider": map[string]any{"name": "x", "api": "anthropic", "url": "http://h", "apiKeyEnv": "LD_PRELOAD x"}, "key": "x"}); err == nil {
		t.Error("a key variable that is no variable's name was taken")
	}
}

// A key the provider refuses is said as such when the models are listed,
// with what to do: the editor's setup card shows it.
func TestModelsSayARefusedKey(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	srv, err := scripted.Start(scripted.Script{Format: scripted.OpenAIChat, Key: "sk-right", Models: []string{"m-1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	svc := NewService(func(o Opening) (*tools.Session, error) {
		return tools.Open(tools.Options{ID: o.ID, Roots: []string{o.Cwd}, Settings: config.New()}), nil
	}, Connect, nil)
	defer svc.CloseAll()
	res, err := svc.New(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := ProviderSetup{Name: "local", API: APIOpenAIChat, URL: srv.URL(), APIKeyEnv: "LOCAL_TEST_KEY"}
	if err := svc.SetKey(res.SessionId, p, "sk-wrong"); err != nil {
		t.Fatal(err)
	}
	defer heldKeys.Delete("LOCAL_TEST_KEY")
	if _, err := svc.Models(context.Background(), res.SessionId, p); err == nil || !strings.Contains(err.Error(), "local refused the API key (HTTP 401") ||
		!strings.HasSuffix(err.Error(), "paste the right key for local, then list the models again") {
		t.Errorf("a wrong key: %v", err)
	}
	if err := svc.SetKey(res.SessionId, p, "sk-right"); err != nil {
		t.Fatal(err)
	}
	if list, err := svc.Models(context.Background(), res.SessionId, p); err != nil || len(list) != 1 || list[0].ID != "m-1" {
		t.Errorf("the right key: %v %v", list, err)
	}
}
