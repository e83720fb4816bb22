package providers_test

import (
	"context"
	"errors"
	"testing"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/scripted"
)

// Both wire formats list a server's models for a user choosing one, with
// the key sent as each provider wants it; a refusal is the provider's
// error with its status.
func TestModelsAreListedInBothWires(t *testing.T) {
	for _, format := range []scripted.Format{scripted.Anthropic, scripted.OpenAIChat} {
		t.Run(string(format), func(t *testing.T) {
			srv, err := scripted.Start(scripted.Script{Format: format, Models: []string{"small-1", "big-2"}})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			var p providers.Provider
			if format == scripted.Anthropic {
				p = providers.NewAnthropic(providers.AnthropicOptions{URL: srv.URL(), APIKey: "k-1"})
			} else {
				p = providers.NewOpenAIChat(providers.OpenAIOptions{URL: srv.URL(), APIKey: "k-1"})
			}
			got, err := p.(providers.ModelLister).Models(context.Background())
			if err != nil || len(got) != 2 || got[0].ID != "small-1" || got[1].ID != "big-2" || got[0].Name == "" {
				t.Fatalf("models: %+v %v", got, err)
			}
			h := srv.Requests()[0].Header
			if format == scripted.Anthropic && (h.Get("X-Api-Key") != "k-1" || h.Get("Anthropic-Version") == "") {
				t.Errorf("Anthropic's listing was sent without its key or version: %v", h)
			}
			if format == scripted.OpenAIChat && h.Get("Authorization") != "Bearer k-1" {
				t.Errorf("the listing was sent without the key: %v", h)
			}
		})
	}
	// A server without the listing (or refusing the key) says so.
	srv, err := scripted.Start(scripted.Script{Format: scripted.Gemini})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, err = providers.NewOpenAIChat(providers.OpenAIOptions{URL: srv.URL()}).(providers.ModelLister).Models(context.Background())
	var pe *providers.Error
	if !errors.As(err, &pe) || pe.Status != 404 {
		t.Errorf("a server without a listing: %v", err)
	}
}
