package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Listing is one model a provider offers.
type Listing struct {
	ID   string `json:"id"`   // what a request names
	Name string `json:"name"` // as the provider shows it; the ID when it gives none
}

// ModelLister is a provider that can list its models, for a user choosing
// one: Anthropic's and OpenAI-compatible servers' (OpenAI, OpenRouter,
// Ollama, llama.cpp, vLLM, LM Studio) GET …/models.
type ModelLister interface {
	Models(ctx context.Context) ([]Listing, error)
}

// listWait bounds a listing: it is asked while a user waits for a menu.
const listWait = 15 * time.Second

// maxListPages bounds Anthropic's pages of models.
const maxListPages = 10

func (p *anthropic) Models(ctx context.Context) ([]Listing, error) {
	var out []Listing
	after := ""
	for range maxListPages {
		q := url.Values{"limit": {"1000"}}
		if after != "" {
			q.Set("after_id", after)
		}
		headers := map[string]string{"Anthropic-Version": anthropicVersion}
		if p.key != "" {
			headers["X-Api-Key"] = p.key
		}
		var page struct {
			Data []struct {
				ID          string `json:"id"`
				DisplayName string `json:"display_name"`
			} `json:"data"`
			HasMore bool   `json:"has_more"`
			LastID  string `json:"last_id"`
		}
		if err := getJSON(ctx, p.http, p.url+"/v1/models?"+q.Encode(), headers, &page); err != nil {
			return nil, err
		}
		for _, m := range page.Data {
			out = append(out, Listing{ID: m.ID, Name: cmpOr(m.DisplayName, m.ID)})
		}
		if !page.HasMore || page.LastID == "" {
			break
		}
		after = page.LastID
	}
	return out, nil
}

func (p *openAIChat) Models(ctx context.Context) ([]Listing, error) {
	headers := map[string]string{}
	if p.key != "" {
		headers["Authorization"] = "Bearer " + p.key
	}
	var list struct {
		Data []struct {
			ID   string `json:"id"`
			Name string `json:"name"` // OpenRouter's
		} `json:"data"`
	}
	if err := getJSON(ctx, p.http, p.url+"/models", headers, &list); err != nil {
		return nil, err
	}
	out := make([]Listing, 0, len(list.Data))
	for _, m := range list.Data {
		out = append(out, Listing{ID: m.ID, Name: cmpOr(m.Name, m.ID)})
	}
	return out, nil
}

// getJSON GETs u and decodes its JSON body into v; a status other than 200
// is an *Error with the server's message.
func getJSON(ctx context.Context, client *http.Client, u string, headers map[string]string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, listWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	for k, val := range headers {
		req.Header.Set(k, val)
	}
	resp, err := client.Do(req)
	if err != nil {
		return unwrapURLError(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return &Error{Status: resp.StatusCode, Message: errorMessage(body)}
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("the model list is not the JSON expected: %w", err)
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
