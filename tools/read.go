package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

func init() { register(readTool) }

var readTool = spec[readArgs]{
	Tool: Tool{
		Name:        "read",
		DisplayName: "Read a file",
		Description: `Read a text file, or list a directory. ` +
			`The first line is [path#TAG]: TAG names the exact content the rows come from; edits quote it. Rows are "N:text", N the 1-based line. ` +
			`"lines" selects rows, e.g. "40-80" or "1-5,120-" ("..." stands where lines are skipped). ` +
			`Only rows you were shown count as seen; edits anchor only on seen lines. A long result keeps head and tail and says how to read the cut. ` +
			`"paths" reads several files or ranges at once, within one read's bound; parts refused or left out are named, with the next call. ` +
			`A directory lists its numbered entries (files with size and lines); "lines" pages them. An unsaved editor buffer is read in place of the file. Files over 4 MiB: only with "lines", no tag. Images (png, jpeg, gif, webp; at most 5 MiB) come as images to models that take them. Other binary or non-UTF-8 files are refused.`,
		Examples: examples(`{"path":"cmd/tandem/main.go"}`, `{"path":"README.md","lines":"40-80"}`, `{"path":"go.mod","lines":"3"}`,
			`{"paths":[{"path":"a.go","lines":"1-5,120-"},{"path":"docs"}]}`),
		ReadOnly: true,
		Kind:     KindRead,
		Aliases:  []string{"view", "cat", "ls", "list_dir", "listdirectory", "read_file"},
	},
	run: func(ctx context.Context, s *Session, a readArgs) Result {
		parts := a.Paths
		switch {
		case a.Path != nil:
			parts = append([]readPart{{*a.Path, a.Lines, a.Columns}}, parts...)
		case a.Lines != "":
			return Refused(refusal.New(refusal.Invalid, `"lines" selects rows of "path", and there is none; each part of "paths" has its own lines. Move lines into the part it is for and call again.`))
		case a.Columns != "":
			return Refused(refusal.New(refusal.Invalid, `"columns" selects bytes of a line of "path", and there is none. Read that line with path, lines and columns alone.`))
		}
		if len(parts) == 0 {
			return Refused(refusal.New(refusal.Invalid, fmt.Sprintf(
				"The arguments of read do not fit its schema: read needs \"path\" (%s) or \"paths\". Add it and call again.", strings.TrimSuffix(toolSchema("read").Properties["path"].Description, "."))))
		}
		if len(parts) == 1 && parts[0].Lines == "" && parts[0].Columns == "" {
			if res, ok := readImage(ctx, s, parts[0].Path); ok {
				return res
			}
		}
		if len(parts) == 1 {
			text, err := parts[0].read(ctx, s, nil)
			if err != nil {
				return Refused(err)
			}
			return Result{Text: text}
		}
		return readParts(ctx, s, parts)
	},
	title: func(a readArgs) string {
		title := "Read " + strings.Join(a.names(), ", ")
		if len(a.Paths) == 0 && a.Lines != "" {
			title += " (lines " + string(a.Lines) + ")"
			if a.Columns != "" {
				title = strings.TrimSuffix(title, ")") + ", columns " + string(a.Columns) + ")"
			}
		}
		return title
	},
	paths: readArgs.names,
}

// readArgs are read's arguments.
type readArgs struct {
	Path    *string    `json:"path,omitempty" jsonschema:"File or directory: relative to the workspace root, absolute, or repo://PATH (confined to it)."` // nil when not given
	Lines   selector   `json:"lines,omitempty" jsonschema:"Rows to read: \"N\", \"N-M\", \"N-\" (to the end), comma-separated."`
	Columns string     `json:"columns,omitempty" jsonschema:"Bytes of that one line: \"A-B\", \"A-\" (from 1)."`
	Paths   []readPart `json:"paths,omitempty" jsonschema:"More parts to read in this call, after path if given."`
}

// names are the paths the call reads, in order.
func (a readArgs) names() []string {
	var out []string
	if a.Path != nil && *a.Path != "" {
		out = append(out, *a.Path)
	}
	for _, p := range a.Paths {
		if p.Path != "" {
			out = append(out, p.Path)
		}
	}
	return out
}

// readPart is one path to read, with its optional rows.
type readPart struct {
	Path  string   `json:"path"`
	Lines selector `json:"lines,omitempty"`
	// Columns comes from the call's own columns: a long line is read
	// alone, so parts do not take it.
	Columns string `json:"-"`
}

// UnmarshalJSON takes a part as {path, lines} or as a bare path, as models
// often send it.
func (p *readPart) UnmarshalJSON(b []byte) error {
	if json.Unmarshal(b, &p.Path) == nil {
		return nil
	}
	type plain readPart // without this method
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode((*plain)(p))
}

// read gates and reads the part within room.
func (p readPart) read(ctx context.Context, s *Session, room *documents.Room) (string, error) {
	if err := s.gateDocument(ctx, approvals.AccessRead, p.Path); err != nil {
		return "", err
	}
	s.pull(ctx, p.Path)
	return documents.ReadPart(ctx, s.Seen, s.Buffers, s.Roots, p.Path, string(p.Lines), string(p.Columns), room)
}

// readImage reads the file at p as an image when its first bytes say it is
// one (png, jpeg, gif, webp), gated as any read; ok is false for any other
// file, which is read as text.
func readImage(ctx context.Context, s *Session, p string) (_ Result, ok bool) {
	abs, err := documents.Resolve(s.Roots, p)
	if err != nil || documents.SniffImage(abs) == "" {
		return Result{}, false
	}
	if err := s.gateDocument(ctx, approvals.AccessRead, p); err != nil {
		return Refused(err), true
	}
	img, err := documents.LoadImage(abs, documents.Display(s.Roots, abs))
	if err != nil {
		return Refused(err), true
	}
	return Result{Text: img.Describe() + " (the image itself is attached for a model that takes images)", Images: []documents.Image{img}}, true
}

// readParts reads several parts in order, each under its own header, all
// within one read's bound. A refused part shows its refusal in its place
// and the rest go on; once a part does not fit, it and those after it are
// left for a next call, which the last line gives.
func readParts(ctx context.Context, s *Session, parts []readPart) Result {
	room := documents.NewRoom()
	var out strings.Builder
	var shown, refused []int
	var first Result // the first refusal
	rest := len(parts)
	for i, p := range parts {
		text, err := p.read(ctx, s, room)
		if errors.Is(err, documents.ErrNoRoom) {
			rest = i
			break
		}
		if err != nil {
			res := Refused(err)
			if res.Code == refusal.Cancelled {
				return res
			}
			text = fmt.Sprintf("(part %d, %s, is not shown: %s)\n", i+1, p.Path, res.Text)
			if !room.Take(text) {
				rest = i
				break
			}
			if len(refused) == 0 {
				first = res
			}
			refused = append(refused, i+1)
		} else {
			shown = append(shown, i+1)
		}
		out.WriteString(text)
	}
	if len(shown) < len(parts) {
		fmt.Fprintf(&out, "(shown: %s of %d", numbered(shown), len(parts))
		if len(refused) > 0 {
			fmt.Fprintf(&out, "; refused: %s, as said above", numbered(refused))
		}
		if rest < len(parts) {
			var left []int
			for n := rest + 1; n <= len(parts); n++ {
				left = append(left, n)
			}
			fmt.Fprintf(&out, "; not read, to keep this reply within one read's bound: %s; read next: read %s", numbered(left), nextRead(parts[rest:]))
		}
		out.WriteString(")\n")
	}
	if len(shown) == 0 && len(refused) > 0 {
		first.Text = out.String()
		return first
	}
	return Result{Text: out.String()}
}

// numbered names parts by their 1-based numbers: "part 2", "parts 1,3-5".
func numbered(ns []int) string {
	switch len(ns) {
	case 0:
		return "no part"
	case 1:
		return "part " + strconv.Itoa(ns[0])
	}
	return "parts " + documents.FormatSpans(documents.SpansOf(ns))
}

// nextRead is the arguments of the read that shows parts: one part as
// path and lines, several as paths.
func nextRead(parts []readPart) string {
	var v any = map[string][]readPart{"paths": parts}
	if len(parts) == 1 {
		v = parts[0]
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings only: it cannot fail
	return strings.TrimSuffix(b.String(), "\n")
}

// selector is read's lines argument: a string such as "5-10", or a bare line
// number, as models often send it.
type selector string

func (s *selector) UnmarshalJSON(b []byte) error {
	var str string
	if json.Unmarshal(b, &str) == nil {
		*s = selector(str)
		return nil
	}
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf(`lines must be a string such as "5-10" or a line number, not %s`, b)
	}
	*s = selector(strconv.Itoa(n))
	return nil
}
