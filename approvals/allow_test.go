package approvals

import (
	"context"
	"testing"
)

// "Allow for this session" allows the step it was given: the same text and
// effects judged to the same real paths. A link retargeted since (x now
// leads to the private key, not the public one) asks again.
func TestAllowSessionRemembersTheRealPaths(t *testing.T) {
	asked := 0
	g := NewGate("s", DefaultAuto, nil, AskerFunc(func(context.Context, Question) Answer {
		asked++
		return AllowSession
	}))
	step := func(real string) Step {
		return Step{Text: "cat x", Effects: Of(Read, Secret),
			Paths: []StepPath{{Path: "x", Real: real, Class: PathSecret, HoldsSecret: true}}}
	}
	ctx := context.Background()
	for i, real := range []string{"/home/me/.ssh/id_ed25519.pub", "/home/me/.ssh/id_ed25519.pub", "/home/me/.ssh/id_ed25519"} {
		if err := g.Check(ctx, KindShell, step(real)); err != nil {
			t.Fatalf("check %d: %v", i, err)
		}
	}
	if asked != 2 {
		t.Fatalf("asked %d times, want 2: once for the public key (then allowed for the session), once for the private key", asked)
	}
}
