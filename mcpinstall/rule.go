package mcpinstall

import (
	_ "embed"
	"fmt"
	"path/filepath"
	"strings"
)

// RuleFile is the instruction file the agents read in the workspace root;
// tandem's working rule goes there.
const RuleFile = "AGENTS.md"

const (
	ruleBegin = "<!-- tandem:begin -->"
	ruleEnd   = "<!-- tandem:end -->"
)

// workingRule is tandem's block in RuleFile. It lives between its markers
// and is replaced there, so the user's own text around it stays theirs.
var workingRule = ruleBegin + "\n" + workingRuleBody + ruleEnd + "\n"

//go:embed working-rule.md
var workingRuleBody string

// Instructions is the working rule as an MCP server's instructions: the
// same lines an agent's rule file gets, without the file's heading.
func Instructions() string {
	_, body, _ := strings.Cut(workingRuleBody, "\n\n")
	return strings.TrimSpace(body)
}

// Rule actions, besides Updated and Skipped.
const (
	Created   Action = "created"
	Unchanged Action = "unchanged"
)

var errBrokenMarkers = fmt.Errorf("its %s … %s markers are broken; leave exactly one pair, then run the command again", ruleBegin, ruleEnd)

// mergeRule is text with block between the markers: in place of the block
// there, or appended after a blank line when text has none. Markers that are
// not exactly one pair in order are refused rather than guessed at.
func mergeRule(text, block string) (string, error) {
	begins, ends := strings.Count(text, ruleBegin), strings.Count(text, ruleEnd)
	switch {
	case begins == 0 && ends == 0:
		if text == "" {
			return block, nil
		}
		return strings.TrimRight(text, "\n") + "\n\n" + block, nil
	case begins == 1 && ends == 1 && strings.Index(text, ruleBegin) < strings.Index(text, ruleEnd):
		from := strings.Index(text, ruleBegin)
		to := strings.Index(text, ruleEnd) + len(ruleEnd)
		if strings.HasPrefix(text[to:], "\n") {
			to++
		}
		return text[:from] + block + text[to:], nil
	default:
		return "", errBrokenMarkers
	}
}

// ApplyRule puts workingRule into RuleFile in the workspace root: Created,
// Updated, Unchanged (the file is not written), or Skipped with the reason.
// The file is written as Apply writes the agents' files.
func ApplyRule(e Env) Result {
	r := Result{Agent: RuleFile, Path: filepath.Join(e.Root, RuleFile)}
	path, src, exists, err := readTarget(r.Path)
	if err != nil {
		return skip(r, err.Error())
	}
	out, err := mergeRule(string(src), workingRule)
	if err != nil {
		return skip(r, err.Error())
	}
	switch {
	case out == string(src):
		r.Action = Unchanged
		return r
	case exists:
		r.Action = Updated
	default:
		r.Action = Created
	}
	if err := commit(path, src, exists, []byte(out), false, Project); err != nil {
		return skip(r, fmt.Sprintf("%s: %v", r.Path, err))
	}
	return r
}
