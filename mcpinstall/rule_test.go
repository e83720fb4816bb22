package mcpinstall

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorkingRuleIsOneBlockBetweenItsMarkers(t *testing.T) {
	if !strings.HasPrefix(workingRule, ruleBegin+"\n## tandem\n") || !strings.HasSuffix(workingRule, "\n"+ruleEnd+"\n") {
		t.Fatalf("the rule is not a block between its markers:\n%s", workingRule)
	}
	for _, want := range []string{"`tandem mcp serve`", "`[path#TAG]`", "`tandem mcp call SERVER/TOOL '{...}' > FILE`"} {
		if !strings.Contains(workingRule, want) {
			t.Errorf("the rule does not say %s:\n%s", want, workingRule)
		}
	}
}

func TestMergeRuleAppendsOnceReplacesBetweenMarkersKeepsTheRest(t *testing.T) {
	merge := func(text string) string {
		t.Helper()
		out, err := mergeRule(text, workingRule)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		return out
	}
	first := merge("# Project\n\nOur rules.\n")
	if want := "# Project\n\nOur rules.\n\n" + workingRule; first != want {
		t.Fatalf("appended:\n%q\nwant:\n%q", first, want)
	}
	if again := merge(first); again != first {
		t.Errorf("a second merge changed the text:\n%q", again)
	}
	old := strings.Replace(first, workingRule, ruleBegin+"\nold rule\n"+ruleEnd+"\n", 1) + "After.\n"
	if got, want := merge(old), first+"After.\n"; got != want {
		t.Errorf("replaced:\n%q\nwant:\n%q", got, want)
	}
	if got := merge(""); got != workingRule {
		t.Errorf("a new file:\n%q", got)
	}
	if got, want := merge("Trailing blank lines.\n\n\n"), "Trailing blank lines.\n\n"+workingRule; got != want {
		t.Errorf("appended after blank lines:\n%q\nwant:\n%q", got, want)
	}
}

func TestMergeRuleRefusesBrokenMarkers(t *testing.T) {
	for _, bad := range []string{ruleBegin + "\nx\n", ruleEnd + "\n" + ruleBegin + "\n", ruleBegin + ruleEnd + ruleBegin + ruleEnd} {
		if out, err := mergeRule(bad, workingRule); err == nil {
			t.Errorf("%q was merged instead of refused:\n%q", bad, out)
		}
	}
}

func TestApplyRuleCreatesUpdatesAndLeavesAlone(t *testing.T) {
	e := testEnv(t)
	p := filepath.Join(e.Root, RuleFile)
	applyRule := func(want Action) Result {
		t.Helper()
		r := ApplyRule(e)
		if r.Action != want {
			t.Fatalf("%s (%s), want %s", r.Action, r.Reason, want)
		}
		return r
	}
	applyRule(Created)
	if got := read(t, p); got != workingRule {
		t.Fatalf("a new AGENTS.md:\n%s", got)
	}
	applyRule(Unchanged)

	mine := "# Our rules\n\nBe kind.\n"
	if err := os.WriteFile(p, []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	applyRule(Updated)
	if got := read(t, p); got != mine+"\n"+workingRule {
		t.Fatalf("the user's AGENTS.md:\n%s", got)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode was not kept: %v %v", fi.Mode(), err)
	}

	broken := mine + ruleBegin + "\n"
	if err := os.WriteFile(p, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	r := applyRule(Skipped)
	if !strings.Contains(r.Reason, "markers are broken; leave exactly one pair") {
		t.Errorf("the reason: %s", r.Reason)
	}
	if got := read(t, p); got != broken {
		t.Errorf("a file with broken markers was changed:\n%s", got)
	}
}
