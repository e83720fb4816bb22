package mcpinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// tomlFormat edits Codex's config.toml. No maintained Go TOML library
// rewrites a document with its comments kept, so the edit is surgical: the
// [mcp_servers.tandem] table is appended, or its lines are cut or replaced,
// as located by go-toml's own parser; then the result is parsed again and
// must hold exactly the settings it held before, tandem's entry aside.
type tomlFormat struct{}

const serversKey = "mcp_servers"

func (tomlFormat) emptyDoc() []byte { return nil }

func (tomlFormat) edit(src []byte, command string, remove bool) ([]byte, Action, string, error) {
	doc, err := parseTOML(src)
	if err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return nil, "", "", fmt.Errorf("line %d, column %d: %v; fix the file (or move it away), then run the command again", row, col, de)
		}
		return nil, "", "", fmt.Errorf("%v; fix the file (or move it away), then run the command again", err)
	}
	want := entry{Command: command, Args: serveArgs}
	servers, ok := doc[serversKey].(map[string]any)
	if _, present := doc[serversKey]; present && !ok {
		return nil, "", "", fmt.Errorf("its %s is not a table; fix the file, then run the command again", serversKey)
	}
	have, present := servers[Key]
	var act Action
	var reason string
	var out []byte
	switch {
	case !present && remove:
		return nil, NotThere, "", nil
	case !present:
		act, out = Added, appendBlock(src, tomlBlock(want))
	default:
		if act, reason = classify(have, want); act == Skipped {
			return nil, "", "", errors.New(reason)
		}
		if act == Already && !remove {
			return nil, Already, "", nil
		}
		start, end, found := tableSpan(src)
		if !found {
			return nil, "", "", fmt.Errorf("its [%s.%s] is written as dotted keys, which this command does not edit; edit it by hand", serversKey, Key)
		}
		if remove {
			act, reason, out = Removed, "", cut(src, start, end)
		} else {
			block := tomlBlock(want)
			if end == len(src) && !bytes.HasSuffix(src, []byte("\n")) {
				block = bytes.TrimSuffix(block, []byte("\n")) // the file keeps having no final newline
			}
			out = slices.Concat(src[:start], block, src[end:])
		}
	}
	// The proof that nothing else changed: the new file, parsed, is the old
	// one with only tandem's entry added, replaced or gone.
	if remove {
		delete(servers, Key)
	} else {
		if servers == nil {
			servers = map[string]any{}
			doc[serversKey] = servers
		}
		servers[Key] = asGeneric(want)
	}
	got, err := parseTOML(out)
	if err != nil || !reflect.DeepEqual(withoutEmptyServers(got), withoutEmptyServers(doc)) {
		return nil, "", "", fmt.Errorf("tandem's entry cannot be edited here without changing other settings (is %s an inline table?); edit [%s.%s] by hand", serversKey, serversKey, Key)
	}
	return out, act, reason, nil
}

func parseTOML(b []byte) (map[string]any, error) {
	doc := map[string]any{}
	return doc, toml.Unmarshal(b, &doc)
}

func withoutEmptyServers(doc map[string]any) map[string]any {
	if s, ok := doc[serversKey].(map[string]any); ok && len(s) == 0 {
		delete(doc, serversKey)
	}
	return doc
}

// tomlBlock is tandem's table. A JSON string is also a valid TOML basic
// string (the same escapes), so encoding/json quotes the values.
func tomlBlock(e entry) []byte {
	cmd, _ := json.Marshal(e.Command)
	args, _ := json.Marshal(e.Args)
	args = bytes.ReplaceAll(args, []byte(`","`), []byte(`", "`))
	return fmt.Appendf(nil, "[%s.%s]\ncommand = %s\nargs = %s\n", serversKey, Key, cmd, args)
}

// appendBlock puts block at the end of src after a blank line. A file
// without a final newline keeps none: the block's own goes.
func appendBlock(src, block []byte) []byte {
	if len(src) == 0 {
		return block
	}
	if src[len(src)-1] != '\n' {
		return slices.Concat(src, []byte("\n\n"), bytes.TrimSuffix(block, []byte("\n")))
	}
	return slices.Concat(src, []byte("\n"), block)
}

// cut takes src[start:end] out, with the blank line that separated it when
// another blank line or the end of the file follows: what appendBlock added,
// cut takes away — at the end of a file without a final newline, the
// newline before the blank line too.
func cut(src []byte, start, end int) []byte {
	before, after := src[:start], src[end:]
	if bytes.HasSuffix(before, []byte("\n\n")) && (len(after) == 0 || after[0] == '\n') {
		before = before[:len(before)-1]
		if len(after) == 0 && !bytes.HasSuffix(src, []byte("\n")) {
			before = before[:len(before)-1]
		}
	}
	return slices.Concat(before, after)
}

// tableSpan finds the whole lines that define tandem's entry: its
// [mcp_servers.tandem] header through its last key, or one
// `tandem = {...}` line under [mcp_servers]. Comment lines after the last
// key belong to what follows and stay.
func tableSpan(src []byte) (start, end int, found bool) {
	p := unstable.Parser{KeepComments: true}
	p.Reset(src)
	var table []string
	last := -1 // end offset of the last expression inside tandem's table
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			if last >= 0 {
				return start, lineEnd(src, last), true
			}
			table = keyOf(e)
			if e.Kind == unstable.Table && slices.Equal(table, []string{serversKey, Key}) {
				first := e.Key()
				first.Next()
				start, last = lineStart(src, int(first.Node().Raw.Offset)), int(first.Node().Raw.Offset)
			}
		case unstable.KeyValue:
			if last >= 0 {
				last = int(e.Raw.Offset + e.Raw.Length)
			} else if slices.Equal(slices.Concat(table, keyOf(e)), []string{serversKey, Key}) {
				return lineStart(src, int(e.Raw.Offset)), lineEnd(src, int(e.Raw.Offset+e.Raw.Length)), true
			}
		}
	}
	if last >= 0 {
		return start, lineEnd(src, last), true
	}
	return 0, 0, false
}

func keyOf(e *unstable.Node) []string {
	var k []string
	for it := e.Key(); it.Next(); {
		k = append(k, string(it.Node().Data))
	}
	return k
}

func lineStart(src []byte, off int) int { return bytes.LastIndexByte(src[:off], '\n') + 1 }

// lineEnd is the offset just past the newline that ends the line holding off.
func lineEnd(src []byte, off int) int {
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(src)
}
