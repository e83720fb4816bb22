package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/tools"
)

func testService(t *testing.T, m *fake.Model, connErr error) (*Service, string) {
	t.Helper()
	ws := t.TempDir()
	store, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	svc := NewService(func(o Opening) (*tools.Session, error) {
		return tools.Open(tools.Options{ID: o.ID, Roots: []string{o.Cwd}}), nil
	},
		func(_ *config.Settings, model string) (providers.Provider, Endpoint, error) {
			if connErr != nil && model == "" {
				return nil, Endpoint{}, connErr
			}
			if model == "" {
				model = "test/m"
			}
			prov, name, _ := strings.Cut(model, "/")
			return m, Endpoint{Provider: prov, Model: name}, nil
		}, store)
	t.Cleanup(svc.CloseAll)
	return svc, ws
}

// A session without a reachable model opens, and each prompt says what to
// set; switching the model fixes it, the next turn uses the new one, and
// the options a client shows follow.
func TestServiceSaysWhatToSetAndSwitchesModels(t *testing.T) {
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{fake.Say("hi")}
	svc, ws := testService(t, m, errors.New("no model is set: set agent.model"))
	res, err := svc.New(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Prompt(context.Background(), res.SessionId, textPrompt("hello"), func(acp.SessionUpdate) {}); err == nil || !strings.Contains(err.Error(), "set agent.model") {
		t.Fatalf("prompt without a model: %v", err)
	}
	opts, err := svc.SetModel(res.SessionId, "other/big")
	if err != nil || opts[0].Select.CurrentValue != "other/big" {
		t.Fatalf("set model: %+v %v", opts, err)
	}
	if resp, err := svc.Prompt(context.Background(), res.SessionId, textPrompt("hello"), func(acp.SessionUpdate) {}); err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", resp, err)
	}
	if got := m.Requests[0].Model; got != "big" {
		t.Fatalf("the turn used model %q", got)
	}
	opts, _ = svc.SetPlanMode(res.SessionId, true)
	if !opts[1].Boolean.CurrentValue {
		t.Fatal("plan mode is not shown on")
	}
}

// One turn at a time: a second prompt is refused while one runs; cancel
// ends the running one with cancelled; then the session takes prompts
// again. Closed sessions are unknown; stored chats list, load and delete.
func TestServiceTurnsCancelAndStoredChats(t *testing.T) {
	m := &fake.Model{Block: true}
	m.Responses = []func(providers.Request) providers.Response{fake.Say("partial")}
	svc, ws := testService(t, m, nil)
	res, _ := svc.New(ws, nil)
	id := res.SessionId
	done := make(chan acp.StopReason, 1)
	streaming := make(chan struct{})
	go func() {
		var once sync.Once
		resp, _ := svc.Prompt(context.Background(), id, textPrompt("first"), func(u acp.SessionUpdate) {
			if u.AgentMessageChunk != nil {
				once.Do(func() { close(streaming) })
			}
		})
		done <- resp.StopReason
	}()
	<-streaming // the model has answered its first text and now waits
	if _, err := svc.Prompt(context.Background(), id, textPrompt("second"), func(acp.SessionUpdate) {}); err == nil || !strings.Contains(err.Error(), "is running") {
		t.Fatalf("a second prompt: %v", err)
	}
	svc.Cancel(id)
	if stop := <-done; stop != acp.StopReasonCancelled {
		t.Fatalf("stop %q", stop)
	}
	m.Mu.Lock()
	m.Block, m.Responses = false, append(m.Responses, fake.Say("done"))
	m.Mu.Unlock()
	resp, err := svc.Prompt(context.Background(), id, textPrompt("third"), func(acp.SessionUpdate) {})
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("after cancel: %+v %v", resp, err)
	}
	// The cancelled first prompt was turn 0: the third is turn 1.
	if turn := resp.Meta["tandem"].(map[string]any)["turn"]; turn != 1 {
		t.Fatalf("the third prompt names turn %v, want 1", turn)
	}
	list, err := svc.List()
	if err != nil || len(list) != 1 || list[0].SessionId != id || *list[0].Title != "first" {
		t.Fatalf("list: %+v %v", list, err)
	}
	if _, err := svc.Load(ws, string(id), nil, func(acp.SessionUpdate) {}); err == nil {
		t.Fatal("loading an open chat twice")
	}
	svc.Close(id)
	if _, err := svc.Prompt(context.Background(), id, textPrompt("x"), func(acp.SessionUpdate) {}); err == nil {
		t.Fatal("a closed session took a prompt")
	}
	var replayed []acp.SessionUpdate
	opts, err := svc.Load(ws, string(id), nil, func(u acp.SessionUpdate) { replayed = append(replayed, u) })
	if err != nil || len(opts) != 2 || opts[0].Select == nil || opts[0].Select.Id != ConfigModel {
		t.Fatalf("load: %+v %v", opts, err)
	}
	if len(replayed) == 0 || replayed[0].UserMessageChunk == nil {
		t.Fatalf("replay: %+v", replayed)
	}
	if err := svc.Delete(id); err != nil {
		t.Fatal(err)
	}
	if list, _ := svc.List(); len(list) != 0 {
		t.Fatalf("after delete: %+v", list)
	}
}

// A reopened chat goes on with the model it last used, not the settings'
// default, and its options say so.
func TestLoadGoesOnWithTheChatsLastModel(t *testing.T) {
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{fake.Say("hi")}
	svc, ws := testService(t, m, nil)
	res, err := svc.New(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SetModel(res.SessionId, "other/big"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Prompt(context.Background(), res.SessionId, textPrompt("hello"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	svc.Close(res.SessionId)
	opts, err := svc.Load(ws, string(res.SessionId), nil, func(acp.SessionUpdate) {})
	if err != nil || opts[0].Select.CurrentValue != "other/big" {
		t.Fatalf("load: %+v %v; want the model other/big", opts, err)
	}
}

// A session opened before a model was set takes one set since: its next
// prompt connects again instead of repeating what to set.
func TestPromptConnectsOnceTheSettingsHaveAModel(t *testing.T) {
	m := &fake.Model{}
	m.Responses = []func(providers.Request) providers.Response{fake.Say("hi")}
	connErr := errors.New("no model is set: set agent.model")
	svc, ws := testService(t, m, connErr)
	res, err := svc.New(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Prompt(context.Background(), res.SessionId, textPrompt("hello"), func(acp.SessionUpdate) {}); err == nil {
		t.Fatal("a prompt without a model ran")
	}
	// The user sets a model: the connector now succeeds.
	svc.connect = func(*config.Settings, string) (providers.Provider, Endpoint, error) {
		return m, Endpoint{Provider: "test", Model: "m"}, nil
	}
	resp, err := svc.Prompt(context.Background(), res.SessionId, textPrompt("hello"), func(acp.SessionUpdate) {})
	if err != nil || resp.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("the prompt after the model was set: %+v %v", resp, err)
	}
}
