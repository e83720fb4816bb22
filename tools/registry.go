// Package tools owns the one registry of agent tools, the one session type
// every front door opens (Open), and the one mapping of a tool's Result to
// an MCP result (Result.MCP).
//
// A front door (or door) is one of the ways a client reaches tandem: the
// editor's connection (package lspserver, tandem/callTool), an ACP client
// (package acpserver), an MCP client (package mcpserver, `tandem mcp
// serve`) and `tandem tool`. Every door lists and calls tools through this
// package, so the tools behave alike whichever door a call came through.
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/edits"
	"github.com/tandemdev/tandem/refusal"
)

// Result is what a model sees of one call; the shape of an MCP CallToolResult.
type Result struct {
	Text       string
	IsError    bool
	Code       refusal.Code // set on refusals
	Structured any          // optional structured content
	// Changes are the files the call changed (edit, write), with their
	// bytes before and after: for the agent's diffs and checkpoints. They
	// are not part of the MCP result and no client gets them as they are.
	Changes []edits.FileChange
	// Images are pictures the call gives besides its text (a read of a
	// png): the agent sends them to a model that takes images, the MCP
	// door as image content.
	Images []documents.Image
}

// Handler runs one call. args is the raw JSON object the caller sent.
type Handler func(ctx context.Context, s *Session, args json.RawMessage) Result

// Tool is one tool's definition: all that the front doors and the agent
// know of it. Each tool's file writes it as a spec, with the tool's
// argument struct, and registers it in init.
type Tool struct {
	Name string
	// DisplayName is what a person reads of the tool (MCP's title).
	DisplayName string
	Description string // written for a model
	// Examples are argument objects a model may send; a test checks each
	// against the schema and decodes it into the argument struct.
	Examples []json.RawMessage
	// ReadOnly tools change nothing, and ask nothing but what a read or a
	// fetch would (a secret, the network outside the auto set): plan mode
	// names them, the agent runs consecutive calls of them side by side,
	// and MCP clients are told so (readOnlyHint).
	ReadOnly bool
	// Destructive tools may delete or overwrite what was there (MCP's
	// destructiveHint).
	Destructive bool
	// Idempotent tools that change something change nothing more when
	// called again with the same arguments (MCP's idempotentHint; a
	// read-only tool is so anyway).
	Idempotent bool
	// OpenWorld tools reach beyond the workspace and tandem's own state:
	// the network, other programs, the user's servers (MCP's
	// openWorldHint).
	OpenWorld bool
	// Kind is what a call does, in ACP's words.
	Kind Kind
	// Aliases are other agents' names for what this tool does: a call of
	// one is refused pointing at this tool.
	Aliases []string
	Handler Handler
	// Available reports whether the tool can work in this session; a tool
	// that cannot is hidden, not failing. Nil means always.
	Available func(*Session) bool

	// schema derives the arguments' JSON Schema from the argument struct
	// once, when a call is first checked for its required keys;
	// inputSchema is its JSON, made once a front door lists the tool (a
	// one-call tandem's call never does). Both nil for a name no tool has.
	schema      func() *jsonschema.Schema
	inputSchema func() json.RawMessage
	check       func(args json.RawMessage) error // decodes as a call does
	title       func(args json.RawMessage) string
	paths       func(args json.RawMessage) []string
}

// Kind is what a call does, as ACP names a tool call's kind; an editor
// picks its icon by it.
type Kind string

// The kinds of tandem's tools.
const (
	KindRead    Kind = "read"
	KindSearch  Kind = "search"
	KindEdit    Kind = "edit"
	KindExecute Kind = "execute"
	KindFetch   Kind = "fetch"
	KindOther   Kind = "other"
)

// Title is what a person reads of a call with args: "Read main.go (lines
// 1-9)"; the tool's name when it has no better one.
func (t Tool) Title(args json.RawMessage) string {
	if t.title == nil {
		return t.Name
	}
	return t.title(args)
}

// Paths are the files and directories a call with args reads or changes,
// as the model wrote them.
func (t Tool) Paths(args json.RawMessage) []string {
	if t.paths == nil {
		return nil
	}
	return t.paths(args)
}

// InputSchema is the arguments' JSON Schema, as every front door lists it.
func (t Tool) InputSchema() json.RawMessage {
	if t.inputSchema == nil {
		return nil // a name no tool has
	}
	return t.inputSchema()
}

// argSchema is the arguments' JSON Schema, to judge arguments against.
func (t Tool) argSchema() *jsonschema.Schema {
	if t.schema == nil {
		return &jsonschema.Schema{}
	}
	return t.schema()
}

// definitions are every tool's, in the order their files registered them.
var definitions []interface{ define() Tool }

// register adds a tool's definition; each tool's file calls it in init.
func register(d interface{ define() Tool }) { definitions = append(definitions, d) }

// builtin is every tool by name, made when first needed.
var builtin = sync.OnceValue(func() map[string]Tool {
	out := map[string]Tool{}
	for _, d := range definitions {
		t := d.define()
		if _, dup := out[t.Name]; dup {
			panic("tools: duplicate tool " + t.Name)
		}
		out[t.Name] = t
	}
	return out
})

// Lookup returns the tool named name, available in a session or not. For a
// name no tool has, it returns a Tool that knows only its name, and false.
func Lookup(name string) (Tool, bool) {
	t, ok := builtin()[name]
	if !ok {
		return Tool{Name: name, Kind: KindOther}, false
	}
	return t, true
}

// List returns the tools available in s, sorted by name.
func List(s *Session) []Tool {
	out := make([]Tool, 0, len(builtin()))
	for _, t := range builtin() {
		if t.Available == nil || t.Available(s) {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Call runs the named tool. Unknown or hidden tools and malformed arguments
// are refusals, never panics.
func Call(ctx context.Context, s *Session, name string, args json.RawMessage) (res Result) {
	t, ok := builtin()[name]
	if !ok || (t.Available != nil && !t.Available(s)) {
		return Refused(refusal.New(refusal.Unknown, unknownTool(s, name)))
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	ctx, stop := s.bind(ctx)
	defer stop()
	defer func() {
		if p := recover(); p != nil {
			res = Refused(refusal.New(refusal.Failed,
				fmt.Sprintf("The %s tool failed internally (%v); nothing further ran. Report this and try a different approach.", name, p)))
		}
	}()
	res = t.Handler(ctx, s, args)
	if note := s.takeRecovered(); note != "" {
		res.Text = note + "\n\n" + res.Text
	}
	if ends := s.takeJobEnds(); ends != "" {
		res.Text = ends + "\n\n" + res.Text
	}
	return res
}

// Refused turns an error into a model-facing error result. A *refusal.Error keeps
// its code; any other error is a failure with its message.
func Refused(err error) Result {
	var r *refusal.Error
	if errors.As(err, &r) {
		return Result{Text: r.Text, IsError: true, Code: r.Code}
	}
	return Result{Text: err.Error(), IsError: true, Code: refusal.Failed}
}

// decode unmarshals args strictly into v; unknown fields, wrong types and
// missing required fields are an `invalid` refusal that names the place in
// the schema's terms, never Go's.
func decode(name string, args json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return refusal.New(refusal.Invalid,
			fmt.Sprintf("The arguments of %s do not fit its schema: %s. Fix the arguments and call again.", name, argumentProblem(name, args, err)))
	}
	if missing := missingRequired(name, args); missing != "" {
		return refusal.New(refusal.Invalid,
			fmt.Sprintf("The arguments of %s do not fit its schema: %s. Add it and call again.", name, missing))
	}
	return nil
}

// argumentProblem says what is wrong with a tool's arguments in words a
// model can act on.
func argumentProblem(name string, args json.RawMessage, err error) string {
	if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		key, uerr := strconv.Unquote(field)
		if uerr != nil {
			key = field
		}
		return unknownKey(name, args, key)
	}
	return DecodeProblem("they", err)
}

// DecodeProblem says in JSON terms, never Go's, why a JSON object did not
// decode: which field has the wrong type, or that the whole — named by
// whole, a plural such as "they" or "the params" — is not an object or not
// JSON. Every front door that decodes a caller's JSON words it this way.
func DecodeProblem(whole string, err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return fmt.Sprintf("%s must be one JSON object, not %s", whole, typeErr.Value)
	case errors.As(err, &typeErr):
		return fmt.Sprintf("%q must be %s, not %s", typeErr.Field, jsonKind(typeErr.Type.Kind()), typeErr.Value)
	case errors.As(err, &syntaxErr):
		return fmt.Sprintf("%s are not valid JSON (at byte %d)", whole, syntaxErr.Offset)
	}
	return err.Error()
}

// jsonKind names a Go kind as the JSON type a caller should send.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}
