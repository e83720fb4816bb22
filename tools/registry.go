// Package tools is the one registry of agent tools. Every front door (the
// editor's tandem/callTool, the MCP server, `tandem tool`) lists and calls
// tools through it, so they behave alike.
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
}

// Handler runs one call. args is the raw JSON object the caller sent.
type Handler func(ctx context.Context, s *Session, args json.RawMessage) Result

// Tool is a name, a description written for a model, a JSON Schema for its
// arguments, and a handler.
type Tool struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	Handler     Handler
	// Available reports whether the tool can work in this session; a tool
	// that cannot is hidden, not failing. Nil means always.
	Available func(*Session) bool
}

// builtin is every tool by name. It is filled in init, from the one list
// there, because the tools' handlers refer back to it (argument errors name
// the schema's properties).
var builtin map[string]Tool

func init() {
	builtin = map[string]Tool{}
	for _, t := range []Tool{readTool, grepTool, globTool, editTool, writeTool, bashTool, jobsTool, mcpTool, codeTool} {
		if _, dup := builtin[t.Name]; dup {
			panic("tools: duplicate tool " + t.Name)
		}
		builtin[t.Name] = t
	}
}

// List returns the tools available in s, sorted by name.
func List(s *Session) []Tool {
	out := make([]Tool, 0, len(builtin))
	for _, t := range builtin {
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
	t, ok := builtin[name]
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
	return t.Handler(ctx, s, args)
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
