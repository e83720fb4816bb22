package agent

import (
	"slices"
	"testing"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/tools"
)

// A chat's model picker offers the user's own agent.models beside the
// built-in table, in a stable order, so a model the user named can be
// picked.
func TestModelPickerOffersTheUsersModels(t *testing.T) {
	st := config.New()
	if err := st.Set(config.SourceUserFile, []byte(`{"agent": {"models": {"local/mine": {"window": 1000}}}}`)); err != nil {
		t.Fatal(err)
	}
	names := ModelNames(st)
	if !slices.Contains(names, "local/mine") || !slices.Contains(names, "anthropic/claude-sonnet-4-5") || !slices.IsSorted(names) {
		t.Fatalf("names: %v", names)
	}
	store, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	svc := NewService(func(o Opening) (*tools.Session, error) {
		return tools.Open(tools.Options{ID: o.ID, Roots: []string{o.Cwd}, Settings: st}), nil
	}, func(*config.Settings, string) (providers.Provider, Endpoint, error) {
		return &fake.Model{}, Endpoint{Provider: "test", Model: "m"}, nil
	}, store)
	t.Cleanup(svc.CloseAll)
	res, err := svc.New(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	var offered []string
	for _, o := range *res.ConfigOptions[0].Select.Options.Ungrouped {
		offered = append(offered, string(o.Value))
	}
	if offered[0] != "test/m" || !slices.Contains(offered, "local/mine") {
		t.Fatalf("the picker offers %v", offered)
	}
}
