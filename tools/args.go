package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/google/jsonschema-go/jsonschema"
)

// Arguments are judged against the tool's own JSON Schema, so a refusal
// names the place in the call the model wrote (files[0].ops[0]) and what
// that place may hold — in the schema's words, the ones the model was
// given — and costs one corrected call, not a guess.

// toolSchema is the named tool's schema; an empty one for a name no tool
// has.
func toolSchema(name string) *jsonschema.Schema {
	t, _ := builtin()[name]
	return t.argSchema()
}

// propertyNames are an object's property names, sorted.
func propertyNames(n *jsonschema.Schema) []string {
	out := make([]string, 0, len(n.Properties))
	for k := range n.Properties {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// where is a place in the arguments as the model reads it: files[0].ops[1].
func where(parent, key string, index int) string {
	switch {
	case key == "":
		return parent + "[" + strconv.Itoa(index) + "]"
	case parent == "":
		return key
	}
	return parent + "." + key
}

// walk visits every object of v with the schema node that describes it and
// its place; visit returns false to stop.
func walk(v any, n *jsonschema.Schema, at string, visit func(obj map[string]any, n *jsonschema.Schema, at string) bool) bool {
	if n == nil {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		if !visit(x, n, at) {
			return false
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !walk(x[k], n.Properties[k], where(at, k, 0), visit) {
				return false
			}
		}
	case []any:
		for i, item := range x {
			if !walk(item, n.Items, where(at, "", i), visit) {
				return false
			}
		}
	}
	return true
}

// unknownKey says where key, which the schema does not allow, sits in args
// and what that object may hold.
func unknownKey(name string, args json.RawMessage, key string) string {
	var v any
	_ = json.Unmarshal(args, &v)
	problem := ""
	walk(v, toolSchema(name), "", func(obj map[string]any, n *jsonschema.Schema, at string) bool {
		if _, ok := obj[key]; !ok || n.Properties[key] != nil {
			return true
		}
		if at == "" {
			problem = fmt.Sprintf("there is no argument %q; the arguments are %s", key, strings.Join(propertyNames(n), ", "))
		} else {
			problem = fmt.Sprintf("%s has no key %q; it may hold %s", at, key, strings.Join(propertyNames(n), ", "))
		}
		return false
	})
	if problem == "" { // not found where the schema reaches: name the top level
		problem = fmt.Sprintf("there is no argument %q; the arguments are %s", key, strings.Join(propertyNames(toolSchema(name)), ", "))
	}
	return problem
}

// missingRequired names the first required key args lack, with what it is
// for; "" when none is missing.
func missingRequired(name string, args json.RawMessage) string {
	var v any
	if json.Unmarshal(args, &v) != nil {
		return ""
	}
	problem := ""
	walk(v, toolSchema(name), "", func(obj map[string]any, n *jsonschema.Schema, at string) bool {
		for _, k := range n.Required {
			if _, ok := obj[k]; ok {
				continue
			}
			what := ""
			if p := n.Properties[k]; p != nil && p.Description != "" {
				what = " (" + strings.TrimSuffix(p.Description, ".") + ")"
			}
			if at == "" {
				problem = fmt.Sprintf("%s needs %q%s", name, k, what)
			} else {
				problem = fmt.Sprintf("%s needs %q%s", at, k, what)
			}
			return false
		}
		return true
	})
	return problem
}

// unknownTool refuses a call of a tool s does not have, naming the ones it
// has and the one meant when that is clear.
func unknownTool(s *Session, name string) string {
	var names []string
	for _, t := range List(s) {
		names = append(names, t.Name)
	}
	text := fmt.Sprintf("There is no tool %q here; the tools are %s.", name, strings.Join(names, ", "))
	if meant := meantTool(name, names); meant != "" {
		return text + fmt.Sprintf(" Call %s instead (its arguments are in its schema).", meant)
	}
	return text + " Call one of them."
}

// meantTool is the tool of names that name most likely means: the same
// name in another case, another agent's name for it, or one a typo away.
func meantTool(name string, names []string) string {
	lower := strings.ToLower(name)
	for _, t := range builtin() {
		if slices.Contains(t.Aliases, lower) {
			lower = t.Name
		}
	}
	best, bestDist := "", 3
	for _, n := range names {
		if d := levenshtein.ComputeDistance(lower, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}
