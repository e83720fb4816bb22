package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The user's own instructions speak to the model in the user's name: they
// are read only from a file nobody else can have written.
func TestUserInstructionsOnlyFromATrustedFile(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	file := filepath.Join(cfg, "tandem", "instructions.md")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("Answer in haiku."), 0o600); err != nil {
		t.Fatal(err)
	}
	if p := SystemPrompt(nil); !strings.Contains(p, "Answer in haiku.") {
		t.Fatalf("the user's private instructions are missing:\n%s", p)
	}
	if err := os.Chmod(file, 0o666); err != nil {
		t.Fatal(err)
	}
	if p := SystemPrompt(nil); strings.Contains(p, "Answer in haiku.") {
		t.Fatalf("instructions anyone could have written reached the prompt:\n%s", p)
	}
}
