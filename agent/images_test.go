package agent

import "testing"

// The built-in rule knows the common models that take images and is
// conservative about the rest: a name it does not know takes none.
func TestImagesByName(t *testing.T) {
	for model, want := range map[string]bool{
		"anthropic/claude-sonnet-4-5":            true,
		"anthropic/claude-3-opus-20240229":       true,
		"openrouter/anthropic/claude-opus-4-1":   true,
		"anthropic/claude-3-5-haiku-latest":      false,
		"anthropic/claude-2.1":                   false,
		"openai/gpt-4o-mini":                     true,
		"openai/gpt-4.1":                         true,
		"openai/gpt-5":                           true,
		"openai/gpt-4o-audio-preview":            false,
		"openai/gpt-3.5-turbo":                   false,
		"openrouter/google/gemini-2.5-pro":       true,
		"ollama/llava:13b":                       true,
		"ollama/qwen2.5-vl:7b":                   true,
		"ollama/llama3.2-vision":                 true,
		"ollama/qwen2.5-coder:7b":                false,
		"ollama/llama3.1:8b":                     false,
		"openai/text-embedding-3-small":          false,
		"openrouter/google/gemini-embedding-001": false,
		"fake/m1":                                false,
	} {
		if got := imagesByName(model); got != want {
			t.Errorf("imagesByName(%q) = %v, want %v", model, got, want)
		}
	}
}
