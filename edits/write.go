package edits

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

// Write replaces the file at path with content, or creates it. An
// existing file is replaced only when its bytes (in the editor buffer, else
// on disk) are a version this session saw, every line of it; else nothing
// is written: a whole-file write never drops lines the model never saw. A
// replaced file keeps its BOM, its line endings and its mode; a created one
// gets exactly content, the default mode and any missing directories.
func Write(ctx context.Context, env *Env, path, content string) (string, error) {
	abs, err := documents.Resolve(env.Roots, path)
	if err != nil {
		return "", err
	}
	show := documents.Display(env.Roots, abs)
	if info, err := os.Stat(abs); err == nil && info.IsDir() {
		return "", refusal.New(refusal.Invalid, fmt.Sprintf("%s is a directory. Give the path of a file to write.", show))
	}
	if reason, lost := env.Buffers.Lost(abs); lost {
		return "", joinProblems([]*problem{lostProblem(show, reason)})
	}
	cur, fromBuffer, exists, err := current(env, abs)
	if err != nil {
		return "", refusal.New(refusal.Failed, fmt.Sprintf("%s cannot be read (%v), so it was not replaced. Check its permissions, then call write again.", show, err))
	}
	if !exists {
		c, p := stageCreate(env, abs, show, []byte(content))
		if p != nil {
			return "", joinProblems([]*problem{p})
		}
		return run(ctx, env, []*change{c})
	}
	if len(cur) > documents.MaxFileBytes {
		return "", refusal.New(refusal.TooLarge, fmt.Sprintf(
			"NOT written: %s is over the 4 MiB limit, so no version of it is ever shown whole and write cannot replace it without losing text you did not see. Change it with the shell (a script or sed), or write a new file.", show))
	}
	if !env.Seen.SawBytes(abs, cur) {
		return "", refusal.New(refusal.NotSeen, fmt.Sprintf(
			"NOT written: %s exists and its current content is not a version you have seen, so writing would lose changes you never saw. Read it first, then call write again.", show))
	}
	unseen := unseenLines(env, abs, cur)
	if long := longLines(cur, unseen); len(long) > 0 {
		return "", refusal.New(refusal.NotSeen, fmt.Sprintf(
			"NOT written: line%s %s of %s %s too long for any row to show whole, so no read shows the whole file and write cannot replace it without dropping what you never saw. Change the file with edit instead: line ops on the other lines, and {\"old\":\"exact text\",\"new\":\"…\"} inside the columns of a long line that a read with columns showed (read {\"path\":%q,\"lines\":\"%d\",\"columns\":\"1-4000\"}).",
			plural(len(long)), lineList(long), show, map[bool]string{true: "is", false: "are"}[len(long) == 1], path, long[0]))
	}
	if len(unseen) > 0 {
		spans := strings.ReplaceAll(lineList(unseen), " ", "")
		return "", refusal.New(refusal.NotSeen, fmt.Sprintf(
			"NOT written: you have not seen %s of %s, and writing the whole file would drop what you never saw. Read it (read {\"path\":%q,\"lines\":%q}) and call write again, or change only what you mean with edit.", "line"+plural(len(unseen))+" "+lineList(unseen), show, path, spans))
	}
	if fromBuffer && env.Editor == nil {
		return "", refusal.New(refusal.Failed, fmt.Sprintf("%s is open in the editor, but this session cannot change editor buffers. Close it there, then call write again.", show))
	}
	next, warnings := keepStyle(cur, []byte(content))
	if p := checkContent(show, next); p != nil {
		return "", joinProblems([]*problem{p})
	}
	c := &change{path: abs, show: show, target: abs, base: cur, buffer: fromBuffer, next: next, wroteAll: true}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		c.target = real
	}
	base, after := documents.Scan(cur), documents.Scan(next)
	if match, err := lineMatch(base, after); err == nil {
		c.lines = make([]newLine, after.Len())
		back := make([]int, after.Len())
		for i := range back {
			back[i] = -1
		}
		for i, j := range match {
			if j >= 0 {
				back[j] = i
			}
		}
		for j := range c.lines {
			c.lines[j] = newLine{text: after.Text(j + 1), origin: back[j]}
		}
	} else {
		c.lines = writtenLines(after)
	}
	c.notes = warnings
	return run(ctx, env, []*change{c})
}

// current reads what a write would replace: the open buffer, else the disk.
func current(env *Env, abs string) (content []byte, fromBuffer, exists bool, err error) {
	if b, open := env.Buffers.Get(abs); open {
		return b.Text, true, true, nil
	}
	content, err = os.ReadFile(abs)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, false, nil
	}
	return content, false, err == nil, err
}

// keepStyle writes content in the old file's style: its BOM, and its
// first line ending on every line (content's own ending style when the old
// file has none). It warns when content had other endings, or when the old
// file was not UTF-8.
func keepStyle(old, content []byte) ([]byte, []string) {
	o, c := documents.Scan(old), documents.Scan(content)
	oldHas, newHas := hasEnding(o), hasEnding(c)
	ending := firstEnding(c)
	if oldHas {
		ending = firstEnding(o)
	}
	var warnings []string
	if oldHas && newHas {
		for i := range c.Lines {
			if e := c.Ending(i + 1); len(e) > 0 && !bytes.Equal(e, ending) {
				warnings = append(warnings, fmt.Sprintf("the content had %s line endings; it was written with the file's %s endings", endingName(e), endingName(ending)))
				break
			}
		}
	}
	if !utf8.Valid(old) {
		warnings = append(warnings, "the old file was not UTF-8 text; it was replaced by UTF-8 text")
	}
	var out bytes.Buffer
	if o.BOM || (len(old) == 0 && c.BOM) {
		out.Write([]byte{0xEF, 0xBB, 0xBF})
	}
	for i := range c.Lines {
		out.Write(c.Text(i + 1))
		if len(c.Ending(i+1)) > 0 {
			out.Write(ending)
		}
	}
	return out.Bytes(), warnings
}

func hasEnding(ls documents.Lines) bool {
	for i := range ls.Lines {
		if ls.Lines[i].EndLen > 0 {
			return true
		}
	}
	return false
}

func endingName(e []byte) string {
	if string(e) == "\r\n" {
		return "CRLF"
	}
	return "LF"
}

// longLines returns the lines among ns (of cur) too long for a row to show
// whole: no read makes them seen.
func longLines(cur []byte, ns []int) []int {
	ls := documents.Scan(cur)
	var out []int
	for _, n := range ns {
		if !documents.ShowsWhole(ls.Text(n)) {
			out = append(out, n)
		}
	}
	return out
}

// unseenLines returns the lines of cur, a version of abs the session saw,
// that never reached the model.
func unseenLines(env *Env, abs string, cur []byte) []int {
	ls := documents.Scan(cur)
	var out []int
	for i, seen := range env.Seen.SeenLines(abs, documents.TagOf(cur), ls.Len()) {
		if !seen {
			out = append(out, i+1)
		}
	}
	return out
}
