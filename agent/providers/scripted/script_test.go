package scripted

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	s, err := Parse([]byte(`{
		"format": "openai-chat",
		"responses": [
			{"status": 429, "retryAfter": "1"},
			{"parts": [{"thinking": "hm", "signature": "s"}, {"text": "hi"}, {"tool": {"name": "read", "input": {"path": "a"}}}],
			 "stop": "tool_use", "usage": {"input": 1, "output": 2, "cacheRead": 3, "cacheCreate": 4},
			 "zeroIndex": true, "noId": true, "delayMs": 5}
		]
	}`))
	if err != nil {
		t.Fatal(err)
	}
	r := s.Responses[1]
	if s.Format != OpenAIChat || r.Parts[2].Tool.Name != "read" || !r.ZeroIndex || !r.NoID || r.DelayMs != 5 || r.Usage.CacheCreate != 4 {
		t.Errorf("parsed %+v", s)
	}
	for src, want := range map[string]string{
		`{"format": "anthropic", "responses": [{"cutAftr": 1}]}`: "unknown field",
		`{"format": "palm"}`: "format",
		`{"format": "anthropic", "responses": [{"parts": [{"text": "a", "ping": true}]}]}`:                         "exactly one",
		`{"format": "gemini", "responses": [{"parts": [{"tool": {"name": "read", "namespace": "mcp__tandem"}}]}]}`: "namespace",
	} {
		if _, err := Parse([]byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", src, err, want)
		}
	}
}

// Gemini names the model in the path, not the body: the stream says which
// model answered, and a path the format does not answer is refused in
// Google's error shape.
func TestGeminiServesTheModelOfThePath(t *testing.T) {
	srv, err := Start(Script{Format: Gemini, Responses: []Response{{Parts: []Part{{Text: "hi"}}}, {Parts: []Part{{Text: "hi"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	post := func(path string) (int, string) {
		resp, err := http.Post(srv.URL()+path, "application/json", strings.NewReader(`{"contents":[]}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"); code != 200 ||
		!strings.Contains(body, `"modelVersion":"gemini-2.5-pro"`) || !strings.Contains(body, `"finishReason":"STOP"`) {
		t.Errorf("streamGenerateContent answered %d:\n%s", code, body)
	}
	if code, body := post("/v1beta/models/gemini-2.5-pro:generateContent"); code != 404 || !strings.Contains(body, `"status":"NOT_FOUND"`) {
		t.Errorf("generateContent answered %d: %s; want 404 in Google's shape", code, body)
	}
}

// A script with a key refuses every request without it as a provider
// refuses a wrong key: 401 in the wire's error shape, listing or streaming,
// and a refused request takes no response of the script.
func TestAScriptsKeyRefusesOtherKeys(t *testing.T) {
	for _, c := range []struct {
		format        Format
		header, value string
		shape         string
	}{
		{Anthropic, "X-Api-Key", "sk-right", `"type":"authentication_error"`},
		{OpenAIChat, "Authorization", "Bearer sk-right", `"message":"scripted: invalid API key"`},
	} {
		srv, err := Start(Script{Format: c.format, Key: "sk-right", Models: []string{"m-1"}, Responses: []Response{{Parts: []Part{{Text: "first"}}}}})
		if err != nil {
			t.Fatal(err)
		}
		do := func(method, path, value string) (int, string) {
			req, _ := http.NewRequest(method, srv.URL()+path, strings.NewReader(`{"model":"m-1","stream":true}`))
			if value != "" {
				req.Header.Set(c.header, value)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b)
		}
		list, stream := "/models", "/chat/completions"
		if c.format == Anthropic {
			list, stream = "/v1/models", "/v1/messages"
		}
		wrong := strings.Replace(c.value, "sk-right", "sk-wrong", 1)
		for _, try := range []struct{ method, path, value string }{{"GET", list, ""}, {"GET", list, wrong}, {"POST", stream, wrong}} {
			if code, body := do(try.method, try.path, try.value); code != http.StatusUnauthorized || !strings.Contains(body, c.shape) {
				t.Errorf("%s %s %s with %q: %d %s", c.format, try.method, try.path, try.value, code, body)
			}
		}
		if code, body := do("GET", list, c.value); code != http.StatusOK || !strings.Contains(body, `"m-1"`) {
			t.Errorf("%s: the listing with the key: %d %s", c.format, code, body)
		}
		if code, body := do("POST", stream, c.value); code != http.StatusOK || !strings.Contains(body, "first") {
			t.Errorf("%s: the first response after refusals: %d %s", c.format, code, body)
		}
		srv.Close()
	}
}

// An openai-chat script stands in for a local Ollama: GET /api/tags lists
// its models in Ollama's shape (docs.ollama.com/api/tags) without taking
// a response, so the chat that follows gets the script's first answer.
func TestChatCompletionsStandsInForOllama(t *testing.T) {
	srv, err := Listen(Script{Format: OpenAIChat, Models: []string{"qwen2.5-coder:7b"}, Responses: []Response{{Parts: []Part{{Text: "hi from ollama"}}}}}, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	host := strings.TrimSuffix(srv.URL(), "/v1")
	resp, err := http.Get(host + "/api/tags")
	if err != nil {
		t.Fatal(err)
	}
	var tags struct {
		Models []struct {
			Name       string `json:"name"`
			Model      string `json:"model"`
			ModifiedAt string `json:"modified_at"`
			Size       int64  `json:"size"`
			Digest     string `json:"digest"`
			Details    struct {
				Format            string   `json:"format"`
				Family            string   `json:"family"`
				Families          []string `json:"families"`
				ParameterSize     string   `json:"parameter_size"`
				QuantizationLevel string   `json:"quantization_level"`
			} `json:"details"`
		} `json:"models"`
	}
	err = json.NewDecoder(resp.Body).Decode(&tags)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /api/tags: %d %s, %v", resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	if len(tags.Models) != 1 {
		t.Fatalf("GET /api/tags listed %+v", tags)
	}
	m := tags.Models[0]
	if _, err := time.Parse(time.RFC3339Nano, m.ModifiedAt); err != nil || m.Name != "qwen2.5-coder:7b" || m.Model != m.Name ||
		m.Size <= 0 || len(m.Digest) != 64 || m.Details.Format != "gguf" || m.Details.Family == "" || len(m.Details.Families) == 0 ||
		m.Details.ParameterSize == "" || m.Details.QuantizationLevel == "" {
		t.Errorf("GET /api/tags listed %+v (modified_at: %v)", m, err)
	}
	chat, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"qwen2.5-coder:7b","stream":true,"messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(chat.Body)
	chat.Body.Close()
	if chat.StatusCode != 200 || !strings.Contains(string(body), "hi from ollama") {
		t.Errorf("the chat after the listing answered %d:\n%s", chat.StatusCode, body)
	}
	// Where something already listens, the stand-in says so rather than serving elsewhere.
	if other, err := Listen(Script{Format: OpenAIChat}, strings.TrimPrefix(host, "http://")); err == nil {
		other.Close()
		t.Error("a second server listened at a taken address")
	} else if !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("a taken address: %v", err)
	}
}

// Only the formats whose servers have it answer Ollama's listing.
func TestOnlyChatCompletionsAnswersOllamasListing(t *testing.T) {
	srv, err := Start(Script{Format: Anthropic, Models: []string{"claude-small-1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Get(srv.URL() + "/api/tags")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("an Anthropic script answered GET /api/tags with %d", resp.StatusCode)
	}
}
