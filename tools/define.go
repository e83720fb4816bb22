package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tandemdev/tandem/edits"
)

// spec is a tool's definition as its file writes it: the Tool's facts, and
// what depends on its argument struct A, whose fields' json and jsonschema
// tags give the schema's names, required keys (those without omitempty)
// and descriptions.
type spec[A any] struct {
	Tool
	// run does a call whose arguments decoded into A.
	run func(ctx context.Context, s *Session, a A) Result
	// title is what a person reads of a call; the tool's name when nil.
	title func(A) string
	// paths are the files and directories a call reads or changes.
	paths func(A) []string
	// refine adds to the derived schema what Go's types cannot say:
	// enums, bounds.
	refine func(*jsonschema.Schema)
	// reshape turns arguments of another shape into A's before they are
	// decoded; nil takes them as they are.
	reshape func(json.RawMessage) (json.RawMessage, error)
	// examplesInSchema shows the model the examples in the schema.
	examplesInSchema bool
}

// define makes the Tool of sp: its schema derived from A, its handler
// decoding each call's arguments strictly into A.
func (sp spec[A]) define() Tool {
	t := sp.Tool
	// The schema is derived for a call's check of required keys; its JSON,
	// which costs four times as much, only for a front door's list.
	schema := sync.OnceValue(func() *jsonschema.Schema {
		schema := schemaFor[A]()
		if sp.refine != nil {
			sp.refine(schema)
		}
		if sp.examplesInSchema {
			for _, e := range t.Examples {
				var v any
				if err := json.Unmarshal(e, &v); err != nil {
					panic("tools: an example of " + t.Name + " is not JSON: " + err.Error())
				}
				schema.Examples = append(schema.Examples, v)
			}
		}
		return schema
	})
	raw := sync.OnceValue(func() json.RawMessage {
		raw, err := json.Marshal(schema())
		if err != nil {
			panic("tools: the schema of " + t.Name + ": " + err.Error())
		}
		return raw
	})
	t.schema, t.inputSchema = schema, raw
	if t.Kind == "" {
		t.Kind = KindOther
	}
	name := t.Name
	args := func(raw json.RawMessage) (A, error) {
		var a A
		if sp.reshape != nil {
			var err error
			if raw, err = sp.reshape(raw); err != nil {
				return a, err
			}
		}
		return a, decode(name, raw, &a)
	}
	t.check = func(raw json.RawMessage) error {
		_, err := args(raw)
		return err
	}
	t.Handler = func(ctx context.Context, s *Session, raw json.RawMessage) Result {
		a, err := args(raw)
		if err != nil {
			return Refused(err)
		}
		return sp.run(ctx, s, a)
	}
	// A title and paths are shown as a call starts, before it is judged:
	// they take what fits of arguments that may not.
	loose := func(raw json.RawMessage) A {
		var a A
		if sp.reshape != nil {
			if r, err := sp.reshape(raw); err == nil {
				raw = r
			}
		}
		_ = json.Unmarshal(raw, &a)
		return a
	}
	if sp.title != nil {
		t.title = func(raw json.RawMessage) string { return sp.title(loose(raw)) }
	}
	if sp.paths != nil {
		t.paths = func(raw json.RawMessage) []string { return sp.paths(loose(raw)) }
	}
	return t
}

// argTypes are the schemas of argument types whose Go type says too
// little: rows to read and an edit's anchors are strings (a bare number
// still decodes, but a schema with a union of types is one strict clients
// such as Gemini CLI warn about); a raw JSON argument is an object.
var argTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[selector]():        {Type: "string"},
	reflect.TypeFor[edits.Anchor]():    {Type: "string"},
	reflect.TypeFor[json.RawMessage](): {Type: "object"},
}

// schemaFor derives the schema of A's JSON. A field a call may leave out
// is a pointer or a slice, which the derivation lets be null too; a model
// is not told to send null, so null is dropped.
func schemaFor[A any]() *jsonschema.Schema {
	s, err := jsonschema.For[A](&jsonschema.ForOptions{TypeSchemas: argTypes})
	if err != nil {
		panic("tools: " + err.Error())
	}
	dropNull(s)
	return s
}

func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	var types []string
	for _, t := range s.Types {
		if t != "null" {
			types = append(types, t)
		}
	}
	s.Types = types
	if len(types) == 1 {
		s.Type, s.Types = types[0], nil
	}
	dropNull(s.Items)
	for _, p := range s.Properties {
		dropNull(p)
	}
}

// examples are a tool's example argument objects.
func examples(objects ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(objects))
	for i, o := range objects {
		out[i] = json.RawMessage(o)
	}
	return out
}
