package classify

import (
	"slices"
	"testing"
)

// A read-only git init copies no template: init.templateDir comes from the
// user's config, which the step does not name (it could name ~/.ssh).
func TestGitInitCopiesNoTemplate(t *testing.T) {
	args, _ := RunArgs([]string{"git", "init", "sub"})
	i := slices.Index(args, "init.templateDir=")
	if i < 1 || args[i-1] != "-c" || slices.Index(args, "init") < i {
		t.Fatalf("git init runs as %q, want -c init.templateDir= before init", args)
	}
	if args, _ := RunArgs([]string{"git", "log"}); slices.Contains(args, "init.templateDir=") {
		t.Fatalf("git log runs as %q", args)
	}
}
