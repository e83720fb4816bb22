package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/edits"
	"github.com/tandemdev/tandem/refusal"
)

func init() { register(editTool) }

var editTool = spec[editArgs]{
	Tool: Tool{
		Name:        "edit",
		DisplayName: "Edit files",
		Description: `Change one or more files in one all-or-nothing call. Each entry of "files" names a path, the tag from the [path#TAG] line of your read or grep, and "ops" anchored on that version's rows, quoted as read showed them ("12:func main() {"; a range its first row, or first|last: "12-14:func main() {|}"), so a miscounted line is refused instead of changed: ` +
			`{"replace":"12-14:row","text":"new lines"}, {"delete":"12-14:row"}, {"insertAfter":"12:row","text":"..."}, {"insertBefore":"12:row","text":"..."}, {"prepend":"..."}, {"append":"..."}, or {"old":"exact text","new":"replacement"} (old must occur exactly once). A bare number ("12") works but nothing checks it. ` +
			`Use the numbers of the version you read; never shift them for earlier ops. ` +
			`"moveTo" moves the file (never over an existing one); "create" makes a new file with exactly that content; "deleteFile": true deletes one you read whole. Instead of files you may send "patch", a unified diff of one or more files. ` +
			`You may only anchor on lines you were shown: otherwise nothing is written and the reply shows those lines. If the file changed since your tag, the edit is carried over when the lines it touches are unchanged; else you get their current text. ` +
			`New lines get the file's line endings. The reply lists the files applied, each with its new tag and a compact diff whose numbered rows you can anchor on next.`,
		// The schema shows the model these: it writes the nested shape right
		// more often with them in front of it.
		Examples: examples(
			`{"files": [{"path": "internal/names/names.go", "tag": "1A2B3C4D", "ops": [{"replace": "12-13:\treturn \"Hi \" + name", "text": "\treturn \"Hello, \" + name\n}"}, {"insertAfter": "3:import (", "text": "\t\"strings\""}]}]}`,
			`{"files": [{"path": "README.md", "tag": "9F00C2E1", "old": "tandem greet", "new": "tandem greet --name"}]}`),
		Destructive: true,
		Kind:        KindEdit,
		Aliases:     []string{"multiedit", "str_replace", "str_replace_editor", "apply_patch", "replace", "edit_file"},
	},
	examplesInSchema: true,
	reshape:          fromOtherEditShape,
	run: func(ctx context.Context, s *Session, args editArgs) Result {
		a := args.edits()
		s.pull(ctx, a.Paths()...)
		return s.commitWatched(ctx, func(env *edits.Env) (string, error) { return edits.Edit(ctx, env, a) })
	},
	title: func(a editArgs) string { return "Edit " + strings.Join(a.edits().Paths(), ", ") },
	paths: func(a editArgs) []string { return a.edits().Paths() },
}

// editArgs are edit's arguments: edits.Args, described for a model.
type editArgs struct {
	Files []editFile `json:"files,omitempty" jsonschema:"The files to change, each once. All land, or on a conflict none does."`
	Patch string     `json:"patch,omitempty" jsonschema:"Instead of files: a unified diff (---/+++ headers, @@ hunks) of one or more files you read. Its context and removed lines must be the lines you saw."`
}

// editFile is edits.FileEdit, described for a model.
type editFile struct {
	Path       string   `json:"path" jsonschema:"File path: relative to the workspace root, absolute, or repo://PATH."`
	Tag        string   `json:"tag,omitempty" jsonschema:"The 8 hex digits after # in the [path#TAG] line of your read or grep. Omitted: the version you saw last."`
	Ops        []editOp `json:"ops,omitempty" jsonschema:"Operations on line numbers of the tagged version; they must not touch the same line."`
	Old        *string  `json:"old,omitempty" jsonschema:"Shorthand for one op {old, new}."`
	New        *string  `json:"new,omitempty" jsonschema:"Shorthand for one op {old, new}."`
	MoveTo     string   `json:"moveTo,omitempty" jsonschema:"Move the file to this new path (after its ops). Never replaces a file."`
	Create     *string  `json:"create,omitempty" jsonschema:"Create this new file with exactly this content (it must not exist). Takes no tag or ops."`
	DeleteFile bool     `json:"deleteFile,omitempty" jsonschema:"Delete the file; you must have seen all of its current version."`
}

// editOp is edits.Op, described for a model.
type editOp struct {
	Replace      *edits.Anchor `json:"replace,omitempty" jsonschema:"Lines to replace, as a row \"12:text\" or \"12-14:first row|last row\"; needs text."`
	Delete       *edits.Anchor `json:"delete,omitempty" jsonschema:"Lines to delete, as a row \"12:text\" or \"12-14:first row|last row\"."`
	InsertAfter  *edits.Anchor `json:"insertAfter,omitempty" jsonschema:"Insert text after this row \"12:text\" (0 = at the start)."`
	InsertBefore *edits.Anchor `json:"insertBefore,omitempty" jsonschema:"Insert text before this row \"12:text\"."`
	Prepend      *string       `json:"prepend,omitempty" jsonschema:"Text to insert at the start of the file."`
	Append       *string       `json:"append,omitempty" jsonschema:"Text to add at the end of the file."`
	Text         *string       `json:"text,omitempty" jsonschema:"The new lines for replace, insertAfter and insertBefore, separated by newlines."`
	Old          *string       `json:"old,omitempty" jsonschema:"Exact text to replace (without row prefixes); must occur once."`
	New          *string       `json:"new,omitempty" jsonschema:"Replacement for old."`
}

// edits is the edit the arguments ask for.
func (a editArgs) edits() edits.Args {
	out := edits.Args{Patch: a.Patch}
	for _, f := range a.Files {
		var ops []edits.Op
		for _, op := range f.Ops {
			ops = append(ops, edits.Op(op))
		}
		out.Files = append(out.Files, edits.FileEdit{Path: f.Path, Tag: f.Tag, Ops: ops, Old: f.Old, New: f.New,
			MoveTo: f.MoveTo, Create: f.Create, DeleteFile: f.DeleteFile})
	}
	return out
}

// Restore puts files back as edits.Restore does, through the session's
// gate and editor, and reports the files it changed (so a restore can be
// restored). With around, a file changed since the agent wrote it is
// restored around those changes where they do not touch the agent's. It is
// the user's action, not a tool the model calls.
func (s *Session) Restore(ctx context.Context, reverts []edits.Revert, around bool) Result {
	ctx, stop := s.bind(ctx)
	defer stop()
	for _, r := range reverts {
		s.pull(ctx, r.Path)
	}
	return s.commit(func(env *edits.Env) (string, error) { return edits.Restore(ctx, env, reverts, around) })
}

// Hunks lists the hunks of the change of path from before to after, each
// with where it stands in what path holds now (see edits.Hunks).
func (s *Session) Hunks(path string, before, after []byte) ([]edits.Hunk, error) {
	return edits.Hunks(s.edits(), path, before, after)
}

// commit runs an edit or a write and returns its reply with the files it
// changed.
func (s *Session) commit(run func(*edits.Env) (string, error)) Result {
	env := s.edits()
	var changes []edits.FileChange
	env.Landed = func(fc edits.FileChange) { changes = append(changes, fc) }
	text, err := run(env)
	if err != nil {
		res := Refused(err)
		res.Changes = changes // a partial commit still changed these
		return res
	}
	return Result{Text: text, Changes: changes}
}

// commitWatched is commit for the model's own edit or write: when the
// editor's language servers are reachable, the reply also says which
// problems the change brought and fixed, so the model sees what it broke
// in the same turn.
func (s *Session) commitWatched(ctx context.Context, run func(*edits.Env) (string, error)) Result {
	w := s.watchDiagnostics(ctx)
	res := s.commit(run)
	if w == nil || res.IsError || len(res.Changes) == 0 {
		return res
	}
	changed := make([]string, 0, len(res.Changes))
	for _, c := range res.Changes {
		if c.After != nil {
			changed = append(changed, c.Path)
		}
	}
	if note := w.report(ctx, s.Roots, changed); note != "" {
		res.Text = strings.TrimRight(res.Text, "\n") + "\n\n" + note
	}
	return res
}

// edits is the environment edits and writes of this session work in: every
// path they write passes the session's gate first (a secret always asks).
func (s *Session) edits() *edits.Env {
	return &edits.Env{Roots: s.Roots, Seen: s.Seen, Buffers: s.Buffers, Editor: s.opts.Editor, Journal: s.journal,
		Allow: func(ctx context.Context, abs string) error {
			_, err := s.Gate().Access(ctx, approvals.AccessWrite, filepath.Dir(abs), abs)
			return err
		}}
}

// otherEdit is the edit shape of other agents' tools: {file_path | path,
// old_string, new_string, replace_all}, or several as "edits".
type otherEdit struct {
	Path       string  `json:"path"`
	FilePath   string  `json:"file_path"`
	OldString  *string `json:"old_string"`
	NewString  *string `json:"new_string"`
	ReplaceAll bool    `json:"replace_all"`
	Edits      []struct {
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	} `json:"edits"`
}

// fromOtherEditShape turns the edit shape a model knows from other agents
// into tandem's own — the same edit under the same guards (the file must
// have been read, old must occur once) — so a model used to it loses no
// turn. Other arguments pass as they are.
func fromOtherEditShape(args json.RawMessage) (json.RawMessage, error) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(args, &keys) != nil {
		return args, nil
	}
	_, hasOld := keys["old_string"]
	_, hasEdits := keys["edits"]
	if !hasOld && !hasEdits {
		return args, nil
	}
	var o otherEdit
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf(`The arguments look like another tool's edit ({file_path, old_string, new_string}) but do not fit it: %s. Send tandem's shape: {"files":[{"path":"…","ops":[{"old":"exact text","new":"replacement"}]}]}.`, DecodeProblem("they", err)))
	}
	path := o.FilePath
	if path == "" {
		path = o.Path
	}
	type op struct {
		Old string `json:"old"`
		New string `json:"new"`
	}
	var ops []op
	all := o.ReplaceAll
	if o.OldString != nil {
		ops = append(ops, op{Old: *o.OldString, New: valueOr(o.NewString)})
	}
	for _, e := range o.Edits {
		ops = append(ops, op{Old: e.OldString, New: e.NewString})
		all = all || e.ReplaceAll
	}
	if path == "" || len(ops) == 0 {
		return nil, refusal.New(refusal.Invalid, `The edit names no file or no change. Send {"files":[{"path":"…","ops":[{"old":"exact text","new":"replacement"}]}]}.`)
	}
	if all {
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf(`replace_all has no tandem equivalent: each op replaces one exact occurrence, so every change is one you chose. Find the rows with grep {"pattern":%q,"path":%q,"literal":true}, then send one op per row: {"files":[{"path":%q,"ops":[{"replace":"ROW:text as shown","text":"new line"}]}]}.`, ops[0].Old, path, path))
	}
	return json.Marshal(map[string]any{"files": []any{map[string]any{"path": path, "ops": ops}}})
}

func valueOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
