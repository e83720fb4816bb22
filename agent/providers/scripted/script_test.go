package scripted

import (
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
		`{"format": "gemini"}`: "format",
		`{"format": "anthropic", "responses": [{"parts": [{"text": "a", "ping": true}]}]}`: "exactly one",
	} {
		if _, err := Parse([]byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one saying %q", src, err, want)
		}
	}
}
