package mcpinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// jsonFormat edits a JSON file whose servers are an object of named entries.
// The files are read as JSONC (VS Code's and Gemini CLI's allow comments
// and VS Code's trailing commas) and edited on hujson's syntax tree, which
// packs every untouched byte back as it was.
type jsonFormat struct {
	container string // the object of servers: "mcpServers", or VS Code's "servers"
	typed     bool   // VS Code's entries name their transport
	// alwaysLoad marks Claude Code's entry to load the tools up front.
	alwaysLoad bool
}

func (f jsonFormat) want(command string) entry {
	e := entry{Command: command, Args: serveArgs, AlwaysLoad: f.alwaysLoad}
	if f.typed {
		e.Type = "stdio"
	}
	return e
}

func (jsonFormat) emptyDoc() []byte { return []byte("{}\n") }

func (f jsonFormat) edit(src []byte, command string, remove bool) ([]byte, Action, string, error) {
	if len(bytes.TrimSpace(src)) == 0 {
		if remove {
			return nil, NotThere, "", nil
		}
		src = f.emptyDoc()
	}
	v, err := hujson.Parse(src)
	if err != nil {
		return nil, "", "", fmt.Errorf("%s; fix the file (or move it away), then run the command again",
			strings.TrimPrefix(err.Error(), "hujson: "))
	}
	root, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, "", "", errors.New("its top level is not a JSON object; fix the file (or move it away), then run the command again")
	}
	want := f.want(command)
	ci := memberIndex(root, f.container)
	if ci < 0 {
		if remove {
			return nil, NotThere, "", nil
		}
		f.insert(&v, want)
		return v.Pack(), Added, "", nil
	}
	cm := &root.Members[ci]
	servers, ok := cm.Value.Value.(*hujson.Object)
	if !ok {
		return nil, "", "", fmt.Errorf("its %q is not an object; fix the file, then run the command again", f.container)
	}
	ti := memberIndex(servers, Key)
	if ti < 0 {
		if remove {
			return nil, NotThere, "", nil
		}
		f.insert(&v, want)
		return v.Pack(), Added, "", nil
	}
	have, err := decode(servers.Members[ti].Value)
	if err != nil {
		return nil, "", "", err
	}
	act, reason := classify(have, want)
	switch {
	case act == Skipped:
		return nil, "", "", errors.New(reason)
	case remove:
		return f.remove(v, src, ci, ti), Removed, "", nil
	case act == Already:
		return nil, Already, "", nil
	}
	if f.listWasThere(v, src, ci, ti) { // keep the layout that says so
		removeMember(servers, ti)
		f.insert(&v, want)
		return v.Pack(), Updated, reason, nil
	}
	m := &servers.Members[ti]
	indent, multiline := lineIndent(m.Name.BeforeExtra)
	m.Value.Value = render(want, indent, indentUnit(root), multiline)
	return v.Pack(), Updated, reason, nil
}

// insert puts want into the document as tandem's entry. A missing server
// list is made, laid out like the file; into a list that is there, the
// entry goes first. An empty list the file already had gets the entry on
// one line and keeps its own blanks, so the file reads differently from
// one whose list the install made: the removal tells the two apart, and
// gives each back its list or its lack of one.
func (f jsonFormat) insert(v *hujson.Value, want entry) {
	root := v.Value.(*hujson.Object)
	ci := memberIndex(root, f.container)
	if ci < 0 {
		insertFirst(root, "", indentUnit(root), f.container, map[string]entry{Key: want})
		return
	}
	cm := &root.Members[ci]
	servers := cm.Value.Value.(*hujson.Object)
	cIndent, _ := lineIndent(cm.Name.BeforeExtra)
	if len(servers.Members) > 0 {
		insertFirst(servers, cIndent, indentUnit(root), Key, want)
		return
	}
	m := hujson.ObjectMember{
		Name:  hujson.Value{Value: hujson.String(Key)},
		Value: hujson.Value{BeforeExtra: hujson.Extra(" "), Value: render(want, "", "", false)},
	}
	if bytes.Contains(servers.AfterExtra, []byte("\n")) {
		m.Name.BeforeExtra = hujson.Extra("\n" + cIndent + indentUnit(root))
	}
	servers.Members = append(servers.Members, m)
}

// listWasThere reports whether tandem's entry, member ti of the server
// list, is all the list holds and laid out as an install puts it into an
// empty list the file already had: putting it back into the emptied list
// gives the file as it is.
func (f jsonFormat) listWasThere(v hujson.Value, src []byte, ci, ti int) bool {
	list := func(v hujson.Value) *hujson.Object {
		return v.Value.(*hujson.Object).Members[ci].Value.Value.(*hujson.Object)
	}
	if len(list(v).Members) != 1 {
		return false
	}
	var had entry
	c := list(v).Members[ti].Value.Clone()
	c.Standardize()
	if json.Unmarshal(c.Pack(), &had) != nil {
		return false
	}
	emptied := v.Clone()
	removeMember(list(emptied), ti)
	f.insert(&emptied, had)
	return bytes.Equal(emptied.Pack(), src)
}

// remove takes tandem's entry out. An empty server list the file had
// before the install stays as it was; otherwise a list that held only
// tandem goes with it, and so does a file that held only that list: what
// the install added, the removal takes away.
func (f jsonFormat) remove(v hujson.Value, src []byte, ci, ti int) []byte {
	root := v.Value.(*hujson.Object)
	servers := root.Members[ci].Value.Value.(*hujson.Object)
	kept := f.listWasThere(v, src, ci, ti)
	removeMember(servers, ti)
	if len(servers.Members) == 0 && !kept && isBlank(servers.AfterExtra) {
		removeMember(root, ci)
		if len(root.Members) == 0 && isBlank(root.AfterExtra) && isBlank(v.BeforeExtra) && isBlank(v.AfterExtra) {
			return []byte{}
		}
	}
	return v.Pack()
}

func memberIndex(obj *hujson.Object, name string) int {
	for i, m := range obj.Members {
		if lit, ok := m.Name.Value.(hujson.Literal); ok && lit.String() == name {
			return i
		}
	}
	return -1
}

// insertFirst makes key: value the object's first member, laid out like
// the member after it: on its own line at the same indentation, or inline
// when the object is written on one line. First, so that removing it later
// gives back the very bytes that were there before.
func insertFirst(obj *hujson.Object, objIndent, unit, key string, value any) {
	m := hujson.ObjectMember{
		Name:  hujson.Value{Value: hujson.String(key)},
		Value: hujson.Value{BeforeExtra: hujson.Extra(" ")},
	}
	indent, multiline := objIndent+unit, true
	if len(obj.Members) > 0 {
		next := obj.Members[0]
		if indent, multiline = lineIndent(next.Name.BeforeExtra); !multiline {
			m.Name.BeforeExtra = slices.Clone(next.Name.BeforeExtra)
		}
		if isBlank(next.Value.BeforeExtra) {
			m.Value.BeforeExtra = slices.Clone(next.Value.BeforeExtra)
		}
	} else if !bytes.Contains(obj.AfterExtra, []byte("\n")) {
		// `{}` opens up, its closing brace on a line of its own.
		if isBlank(obj.AfterExtra) {
			obj.AfterExtra = nil
		}
		obj.AfterExtra = append(obj.AfterExtra, "\n"+objIndent...)
	}
	if multiline {
		m.Name.BeforeExtra = hujson.Extra("\n" + indent)
	}
	m.Value.Value = render(value, indent, unit, multiline)
	obj.Members = slices.Insert(obj.Members, 0, m)
}

// removeMember takes member i out, keeping the object's trailing-comma
// style: a comma after the removed last member moves to the one before it,
// and none appears where there was none.
func removeMember(obj *hujson.Object, i int) {
	if i == len(obj.Members)-1 && i > 0 {
		prev := &obj.Members[i-1].Value
		switch {
		case obj.Members[i].Value.AfterExtra != nil && prev.AfterExtra == nil:
			prev.AfterExtra = hujson.Extra{}
		case obj.Members[i].Value.AfterExtra == nil && prev.AfterExtra != nil:
			obj.AfterExtra = append(prev.AfterExtra, obj.AfterExtra...)
			prev.AfterExtra = nil
		}
	}
	obj.Members = slices.Delete(obj.Members, i, i+1)
}

// render is value as JSON: indented from indent by unit, or on one line.
func render(value any, indent, unit string, multiline bool) hujson.ValueTrimmed {
	var b []byte
	var err error
	if multiline {
		b, err = json.MarshalIndent(value, indent, unit)
	} else {
		b, err = json.Marshal(value)
	}
	if err != nil {
		panic(err) // entries are strings and lists of strings
	}
	v, err := hujson.Parse(b)
	if err != nil {
		panic(err) // encoding/json wrote it
	}
	return v.Value
}

// decode is a member's value as encoding/json decodes it.
func decode(v hujson.Value) (any, error) {
	c := v.Clone()
	c.Standardize()
	var x any
	if err := json.Unmarshal(c.Pack(), &x); err != nil {
		return nil, fmt.Errorf("its %q entry does not decode (%v); fix it, then run the command again", Key, err)
	}
	return x, nil
}

// lineIndent is the indentation that ends extra (the blanks after its last
// newline), and whether extra has a newline at all.
func lineIndent(extra hujson.Extra) (string, bool) {
	i := bytes.LastIndexByte(extra, '\n')
	if i < 0 {
		return "", false
	}
	rest := extra[i+1:]
	return string(rest[:len(rest)-len(bytes.TrimLeft(rest, " \t"))]), true
}

// indentUnit is the file's indentation step, as its first top-level member
// is indented; two spaces when it shows none.
func indentUnit(root *hujson.Object) string {
	if len(root.Members) > 0 {
		if ind, ok := lineIndent(root.Members[0].Name.BeforeExtra); ok && ind != "" {
			return ind
		}
	}
	return "  "
}

// isBlank reports whether extra is only whitespace (no comment).
func isBlank(extra []byte) bool { return len(bytes.TrimSpace(extra)) == 0 }
