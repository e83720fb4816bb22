package scripted

import (
	"io"
	"net/http"
	"strings"
	"testing"
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
