package tools

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/agnivade/levenshtein"
)

// Arguments are judged against the tool's own JSON Schema, so a refusal
// names the place in the call the model wrote (files[0].ops[0]) and what
// that place may hold — in the schema's words, the ones the model was
// given — and costs one corrected call, not a guess.

// schemaNode is the part of a JSON Schema tandem's tools use.
type schemaNode struct {
	Properties  map[string]*schemaNode `json:"properties"`
	Items       *schemaNode            `json:"items"`
	Required    []string               `json:"required"`
	Description string                 `json:"description"`
}

// schemas is each tool's schema, parsed once when a call first needs it
// (missingRequired reads it on every call), not at every process start.
var schemas = sync.OnceValue(func() map[string]*schemaNode {
	out := map[string]*schemaNode{}
	for name, t := range builtin {
		var schema schemaNode
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			panic("tools: invalid schema for " + name)
		}
		out[name] = &schema
	}
	return out
})

func toolSchema(name string) *schemaNode {
	if n := schemas()[name]; n != nil {
		return n
	}
	return &schemaNode{}
}

// keys are an object's property names, sorted.
func (n *schemaNode) keys() []string {
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
func walk(v any, n *schemaNode, at string, visit func(obj map[string]any, n *schemaNode, at string) bool) bool {
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
	walk(v, toolSchema(name), "", func(obj map[string]any, n *schemaNode, at string) bool {
		if _, ok := obj[key]; !ok || n.Properties[key] != nil {
			return true
		}
		if at == "" {
			problem = fmt.Sprintf("there is no argument %q; the arguments are %s", key, strings.Join(n.keys(), ", "))
		} else {
			problem = fmt.Sprintf("%s has no key %q; it may hold %s", at, key, strings.Join(n.keys(), ", "))
		}
		return false
	})
	if problem == "" { // not found where the schema reaches: name the top level
		problem = fmt.Sprintf("there is no argument %q; the arguments are %s", key, strings.Join(toolSchema(name).keys(), ", "))
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
	walk(v, toolSchema(name), "", func(obj map[string]any, n *schemaNode, at string) bool {
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

// otherNames are other agents' tool names for what a tandem tool does, so
// a model used to them is pointed at the right one.
var otherNames = map[string]string{
	"view": "read", "cat": "read", "ls": "read", "list_dir": "read", "listdirectory": "read", "read_file": "read",
	"multiedit": "edit", "str_replace": "edit", "str_replace_editor": "edit", "apply_patch": "edit", "replace": "edit", "edit_file": "edit",
	"search": "grep", "find": "glob", "run": "bash", "shell": "bash", "exec": "bash", "write_file": "write", "create_file": "write",
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
	if alias, ok := otherNames[lower]; ok {
		lower = alias
	}
	best, bestDist := "", 3
	for _, n := range names {
		if d := levenshtein.ComputeDistance(lower, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best
}
