package edits

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/sourcegraph/go-diff/diff"

	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

// Args are the arguments of the edit tool: files, or one unified diff.
type Args struct {
	Files []FileEdit `json:"files,omitempty"`
	Patch string     `json:"patch,omitempty"`
}

// Paths returns the paths the edit names as the model wrote them: each
// file's and its move's destination, or each file of the patch (both names
// of a rename). A patch that does not parse names none; Edit refuses it.
func (a Args) Paths() []string {
	var out []string
	for _, fe := range a.Files {
		out = append(out, fe.Path)
		if fe.MoveTo != "" {
			out = append(out, fe.MoveTo)
		}
	}
	if a.Patch != "" {
		fds, _ := diff.ParseMultiFileDiff([]byte(a.Patch))
		for _, fd := range fds {
			orig, next := diffNames(fd)
			if orig != "" {
				out = append(out, orig)
			}
			if next != "" && next != orig {
				out = append(out, next)
			}
		}
	}
	return out
}

// FileEdit is the edit of one file. Tag names the version the line numbers
// refer to (from a read or a grep; the latest version the session saw when
// omitted). Ops change lines; Old and New are a shorthand for one string
// replacement; MoveTo moves the file (after its ops); Create makes a new
// file with exactly the given content.
type FileEdit struct {
	Path   string  `json:"path"`
	Tag    string  `json:"tag,omitempty"`
	Ops    []Op    `json:"ops,omitempty"`
	Old    *string `json:"old,omitempty"`
	New    *string `json:"new,omitempty"`
	MoveTo string  `json:"moveTo,omitempty"`
	Create *string `json:"create,omitempty"`
	// DeleteFile removes the file, which must be one the model saw whole
	// in its current version.
	DeleteFile bool `json:"deleteFile,omitempty"`
}

// problem is why one file of a call cannot be staged.
type problem struct {
	code refusal.Code
	text string // ends with the next valid action
}

func (p *problem) Error() string { return p.text }

func problemf(code refusal.Code, format string, args ...any) *problem {
	return &problem{code: code, text: fmt.Sprintf(format, args...)}
}

var tagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^[0-9a-f]{8}$`) })

// parseTag accepts a tag as read shows it, alone or still in its header
// ("[path#TAG]" or "path#TAG").
func parseTag(s string) (documents.Tag, bool) {
	s = strings.TrimSpace(s)
	if i := strings.LastIndex(s, "#"); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSuffix(strings.TrimSpace(s), "]")
	if !tagRE().MatchString(s) {
		return "", false
	}
	return documents.Tag(strings.ToUpper(s)), true
}

// Edit runs one call of the edit tool: it stages every file against the
// version the model saw, and commits them all or, on any problem, none.
func Edit(ctx context.Context, env *Env, args Args) (string, error) {
	var cs []*change
	var probs []*problem
	switch {
	case args.Patch != "" && len(args.Files) > 0:
		return "", refusal.New(refusal.Invalid, "Give either files or patch, not both. Call edit again with one of them.")
	case args.Patch != "":
		cs, probs = stagePatch(env, args.Patch)
	case len(args.Files) == 0:
		return "", refusal.New(refusal.Invalid, "The edit names no files. Give files (each with path, tag and ops) or a unified diff in patch, and call edit again.")
	default:
		for _, fe := range args.Files {
			c, p := stageFile(env, fe)
			if p != nil {
				probs = append(probs, p)
			} else {
				cs = append(cs, c)
			}
		}
	}
	if p := distinct(cs); p != nil {
		probs = append(probs, p)
	}
	if len(probs) > 0 {
		return "", joinProblems(probs)
	}
	return run(ctx, env, cs)
}

// run asks the gate about every path, then commits the staged changes and
// renders the reply.
func run(ctx context.Context, env *Env, cs []*change) (string, error) {
	if err := env.allow(ctx, cs); err != nil {
		return "", err
	}
	outs, err := commit(ctx, env, cs)
	var ce *conflictError
	if errors.As(err, &ce) {
		return "", conflictRefusal(env, cs, ce)
	}
	if err != nil {
		return "", refusal.New(refusal.Failed, fmt.Sprintf("No file was written: %v. Try the edit again; if it keeps failing, check the files' directories.", err))
	}
	return reply(env, cs, outs)
}

func joinProblems(probs []*problem) error {
	if len(probs) == 1 {
		return refusal.New(probs[0].code, "NOT applied; nothing was written. "+probs[0].text)
	}
	var b strings.Builder
	b.WriteString("NOT applied; nothing was written. Fix every problem below, then call edit again with all the files.\n")
	for _, p := range probs {
		b.WriteString("- ")
		b.WriteString(strings.TrimRight(p.text, "\n"))
		b.WriteByte('\n')
	}
	return refusal.New(probs[0].code, b.String())
}

// distinct refuses a call that names one file twice — by one path, or by
// two paths that are one file through a symbolic link — since the order of
// its parts would be a guess, and the later write would undo the earlier.
func distinct(cs []*change) *problem {
	named := map[string]string{} // a path the call writes → how it named it
	for _, c := range cs {
		paths := []struct{ abs, show string }{{c.path, c.show}, {c.dest, c.showDest}}
		if c.target != c.path {
			paths = append(paths, struct{ abs, show string }{c.target, c.show})
		}
		for _, p := range paths {
			if p.abs == "" {
				continue
			}
			prev, dup := named[p.abs]
			switch {
			case dup && prev == p.show:
				return problemf(refusal.Invalid, "%s appears twice in this edit; put all changes of one file in one entry (one ops list), then call edit again.", p.show)
			case dup:
				return problemf(refusal.Invalid, "%s and %s are the same file (through a symbolic link); put all changes of one file in one entry (one ops list), then call edit again.", prev, p.show)
			}
			named[p.abs] = p.show
		}
	}
	return nil
}

// stageFile resolves one file's edit against the version the model saw and
// computes its new content.
func stageFile(env *Env, fe FileEdit) (*change, *problem) {
	abs, err := documents.Resolve(env.Roots, fe.Path)
	if err != nil {
		return nil, asProblem(err)
	}
	show := documents.Display(env.Roots, abs)
	if fe.Old != nil || fe.New != nil {
		fe.Ops = append(fe.Ops, Op{Old: fe.Old, New: fe.New})
	}
	if fe.DeleteFile {
		if len(fe.Ops) > 0 || fe.MoveTo != "" || fe.Create != nil {
			return nil, problemf(refusal.Invalid, "%s: deleteFile takes no ops, moveTo or create; send {\"path\":%q,\"deleteFile\":true} alone, then call edit again.", show, fe.Path)
		}
		return stageDelete(env, abs, show, fe.Tag)
	}
	if fe.Create != nil {
		if len(fe.Ops) > 0 || fe.MoveTo != "" || fe.Tag != "" {
			return nil, problemf(refusal.Invalid, "%s: create takes the whole content and nothing else; drop ops, tag and moveTo, then call edit again.", show)
		}
		return stageCreate(env, abs, show, []byte(*fe.Create))
	}
	if len(fe.Ops) == 0 && fe.MoveTo == "" {
		return nil, problemf(refusal.Invalid, "%s: the entry has no ops, old/new, moveTo or create, so it changes nothing. Add ops, then call edit again.", show)
	}
	if len(fe.Ops) == 0 {
		c, p := loadChange(env, abs, show, fe.MoveTo)
		if p != nil {
			return nil, p
		}
		c.next = c.base
		c.lines = keptLines(documents.Scan(c.base))
		// A move keeps what was seen of the file.
		c.seenBase = env.Seen.SeenLines(abs, documents.TagOf(c.base), len(c.lines))
		return c, nil
	}
	tag, p := baseTag(env, abs, show, fe.Tag)
	if p != nil {
		return nil, p
	}
	baseBytes, _ := env.Seen.Version(abs, tag)
	base := documents.Scan(baseBytes)
	ps, err := plan(base, fe.Ops)
	if err != nil {
		return nil, problemf(refusal.Invalid, "%s#%s: %v. Fix the ops and call edit again.", show, tag, err)
	}
	var anchors []int
	for _, p := range ps {
		if p.repeats > 0 {
			return nil, repeatProblem(env, abs, show, tag, base, p)
		}
		if p.inSeenWindow(env.Seen, abs, tag, base) {
			continue
		}
		anchors = append(anchors, p.anchors()...)
	}
	return stagePlanned(env, fe, abs, show, tag, baseBytes, base, ps, anchors)
}

// stagePlanned checks planned ops against the seen guard and stages them on
// the file's current text, rebasing when it changed since the tagged version.
// base is baseBytes as the ops were planned on it: scanning a large file
// again would cost as much as the scan that planned them.
func stagePlanned(env *Env, fe FileEdit, abs, show string, tag documents.Tag, baseBytes []byte, base documents.Lines, ps []planned, anchors []int) (*change, *problem) {
	if r := guard(env.Seen, abs, show, tag, base, anchors); r != nil {
		return nil, &problem{code: refusal.NotSeen, text: r.text}
	}
	c, p := loadChange(env, abs, show, fe.MoveTo)
	if p != nil {
		return nil, p
	}
	if bytes.Equal(baseBytes, c.base) {
		c.baseLines = &base
		c.lines = spliceLines(base, splices(base.Len(), ps))
		c.next = weave(base, c.lines)
		c.seenBase = env.Seen.SeenLines(abs, tag, base.Len())
	} else if c, p = rebase(env, c, tag, base, ps); p != nil {
		return nil, p
	}
	for _, p := range ps {
		if p.note != "" {
			c.notes = append(c.notes, p.note)
		}
	}
	if note := bareNote(ps); note != "" {
		c.notes = append(c.notes, note)
	}
	return c, nil
}

// repeatProblem refuses a replacement that would leave the line next to
// its range twice, showing the rows around the range (marked seen, so the
// corrected call applies) and the two calls that settle it.
func repeatProblem(env *Env, abs, show string, tag documents.Tag, base documents.Lines, p planned) *problem {
	which, side, fix := "last", "after", fmt.Sprintf("%d-%d", p.from, p.repeats)
	if p.repeats < p.from {
		which, side, fix = "first", "before", fmt.Sprintf("%d-%d", p.repeats, p.to)
	}
	lo, hi := max(p.from-1, 1), min(p.to+1, base.Len())
	var b strings.Builder
	fmt.Fprintf(&b, "%s#%s: op %d replaces lines %d-%d, but the %s line of its text, %q, is line %d, right %s the range, which stays: the file would have it twice. The lines around the range:\n",
		show, tag, p.index, p.from, p.to, which, clip(string(base.Text(p.repeats)), 120), p.repeats, side)
	var marked []int
	for n := lo; n <= hi; n++ {
		if n == p.from+3 && hi-lo > 8 {
			b.WriteString(documents.GapMarker + "\n")
			n = p.to - 2
		}
		row, whole := cutRow(n, base.Text(n))
		b.WriteString(row + "\n")
		if whole {
			marked = append(marked, n)
		}
	}
	env.Seen.MarkSeen(abs, tag, marked...)
	rowText := func(n int) string { return clip(string(base.Text(n)), 80) }
	fmt.Fprintf(&b, "If line %d belongs to what you replace, call edit again with the range %q (quote its first and last rows: %q); if the repeat is meant, quote the range's last row too: %q.",
		p.repeats, fix, fix+":"+rowText(min(p.from, p.repeats))+"|"+rowText(max(p.to, p.repeats)),
		fmt.Sprintf("%d-%d:%s|%s", p.from, p.to, rowText(p.from), rowText(p.to)))
	return &problem{code: refusal.Invalid, text: b.String()}
}

// bareNote asks the model to check what ops anchored on bare line numbers
// changed: nothing checked that those were the lines it meant, and a
// wrong line reported as applied is the costliest mistake an edit makes.
func bareNote(ps []planned) string {
	var bare []string
	for _, p := range ps {
		if p.bare {
			bare = append(bare, strconv.Itoa(p.index))
		}
	}
	if len(bare) == 0 {
		return ""
	}
	return fmt.Sprintf("op%s %s anchored on bare line numbers, which nothing checks: make sure the diff below changed the lines you meant; a row such as \"12:its text\" is checked for you", plural(len(bare)), strings.Join(bare, ", "))
}

// loadChange starts a change on the file's current text: the editor buffer
// when it is open there, else the disk.
func loadChange(env *Env, abs, show, moveTo string) (*change, *problem) {
	snap, err := documents.Load(env.Buffers, abs)
	if err != nil {
		return nil, asProblem(documents.NamedAs(err, abs, show))
	}
	if snap.Lost != "" {
		return nil, lostProblem(show, snap.Lost)
	}
	if snap.FromBuffer && env.Editor == nil {
		return nil, problemf(refusal.Failed, "%s is open in the editor, but this session cannot change editor buffers. Edit it from the editor's agent, or close it there and call edit again.", show)
	}
	c := &change{path: abs, show: show, target: abs, base: snap.Content, buffer: snap.FromBuffer}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		c.target = real
	}
	if moveTo != "" {
		if p := stageMove(env, c, moveTo); p != nil {
			return nil, p
		}
	}
	return c, nil
}

// baseTag finds the version an edit's line numbers refer to.
func baseTag(env *Env, abs, show, given string) (documents.Tag, *problem) {
	if given == "" {
		tag, ok := env.Seen.Latest(abs)
		if !ok {
			return "", problemf(refusal.StaleTag, "You have not read %s in this session. Read it, then call edit again with the tag the read shows.", show)
		}
		return tag, nil
	}
	tag, ok := parseTag(given)
	if !ok {
		return "", problemf(refusal.Invalid, "%s: %q is not a tag; a tag is the 8 hex digits after # in the [path#TAG] line of a read. Call edit again with that tag.", show, given)
	}
	if _, ok := env.Seen.Version(abs, tag); !ok {
		return "", problemf(refusal.StaleTag, "%s#%s is not a version of %s you have seen in this session (or it is older than the last 8). %s", show, tag, show, lastSeen(env, abs, show))
	}
	return tag, nil
}

// lastSeen names the version of a file the session saw last and whether
// the file still holds it, so a model that mistyped or mixed up a tag
// calls again without a read when nothing changed.
func lastSeen(env *Env, abs, show string) string {
	last, ok := env.Seen.Latest(abs)
	if !ok {
		return "Read the file, then call edit again with the tag the read shows."
	}
	if snap, err := documents.Load(env.Buffers, abs); err == nil && documents.TagOf(snap.Content) == last {
		return fmt.Sprintf("The version you saw last, %s#%s, is what the file holds now: call edit again with tag %q, its line numbers as you saw them.", show, last, last)
	}
	return fmt.Sprintf("The version you saw last was %s#%s, and the file has changed since: read it, then call edit again with the tag the read shows.", show, last)
}

// stageDelete stages the removal of a file the model saw whole, in its
// current version: a delete never drops a line the model did not see, nor
// a change made since it read the file. An open editor document is left to
// the user, who holds it.
func stageDelete(env *Env, abs, show, given string) (*change, *problem) {
	c, p := loadChange(env, abs, show, "")
	if p != nil {
		return nil, p
	}
	if c.buffer {
		return nil, problemf(refusal.Invalid, "%s is open in the editor, so tandem does not delete it. Ask the user to close it, then call edit again.", show)
	}
	cur := documents.TagOf(c.base)
	if given != "" {
		if tag, ok := parseTag(given); !ok || tag != cur {
			return nil, problemf(refusal.StaleTag, "%s is not at version %s now, so deleting it could drop changes you never saw. Read it again, then call edit with the tag the read shows.", show, given)
		}
	}
	if !env.Seen.SawBytes(abs, c.base) {
		return nil, problemf(refusal.NotSeen, "%s's current content is not a version you have seen, so deleting it could drop changes you never saw. Read it, then call edit again.", show)
	}
	if unseen := unseenLines(env, abs, c.base); len(unseen) > 0 {
		return nil, problemf(refusal.NotSeen, "%s: you have not seen line%s %s, and deleting the file would drop them. Read them (read {\"path\":%q,\"lines\":%q}), then call edit again.", show, plural(len(unseen)), lineList(unseen), show, strings.ReplaceAll(lineList(unseen), " ", ""))
	}
	c.remove, c.next, c.wroteAll = true, nil, true
	return c, nil
}

// stageMove records a move's destination; the commit checks again that it
// is free, under the lock.
func stageMove(env *Env, c *change, to string) *problem {
	dest, err := documents.Resolve(env.Roots, to)
	if err != nil {
		return asProblem(err)
	}
	c.dest, c.showDest = dest, documents.Display(env.Roots, dest)
	if c.buffer {
		return problemf(refusal.Invalid, "%s is open in the editor, and tandem does not move open documents. Close it in the editor, then call edit again.", c.show)
	}
	if info, err := os.Lstat(c.path); err == nil && info.Mode()&os.ModeSymlink != 0 {
		return problemf(refusal.Invalid, "%s is a symbolic link; edit moves regular files only. Move the link with the shell (mv), then call edit again without moveTo.", c.show)
	}
	if dest == c.path {
		return problemf(refusal.Invalid, "%s: moveTo names the file itself. Give a new path, or drop moveTo.", c.show)
	}
	if _, err := os.Lstat(dest); err == nil {
		return problemf(refusal.Conflict, "%s already exists, and a move never replaces a file. Choose another name, or read and edit the existing file.", c.showDest)
	}
	return nil
}

// lostProblem refuses to change a file the editor has open while tandem
// lost track of its unsaved text: the disk may lack what the user typed.
func lostProblem(show, reason string) *problem {
	return problemf(refusal.Conflict, "%s is open in the editor, but tandem lost track of its unsaved text (%s), so changing it could overwrite what the user typed. Ask the user to close and reopen it in the editor, then read it and call edit again.", show, reason)
}

// stageCreate stages a new file with exactly the given content.
func stageCreate(env *Env, abs, show string, content []byte) (*change, *problem) {
	if _, err := os.Lstat(abs); err == nil {
		return nil, problemf(refusal.Conflict, "%s already exists, and create never replaces a file. Read it and edit it, or use write after reading it.", show)
	}
	if _, open := env.Buffers.Get(abs); open {
		return nil, problemf(refusal.Conflict, "%s is open in the editor as an unsaved new document. Save or close it in the editor, then call edit again.", show)
	}
	if p := checkContent(show, content); p != nil {
		return nil, p
	}
	c := &change{path: abs, show: show, target: abs, create: true, next: content, wroteAll: true}
	c.lines = writtenLines(documents.Scan(content))
	return c, nil
}

// checkContent refuses content the model sends that tandem could not show or
// edit afterwards. documents.Check's own refusal of a large file says how to
// read one, which is no help for text the model is writing.
func checkContent(show string, content []byte) *problem {
	if len(content) > documents.MaxFileBytes {
		return problemf(refusal.TooLarge, "The new content of %s is %d bytes, over the 4 MiB limit of the files tandem shows and edits. Split it into smaller files, or generate it with the shell.", show, len(content))
	}
	if err := documents.Check(show, content); err != nil {
		return asProblem(err)
	}
	return nil
}

func keptLines(ls documents.Lines) []newLine {
	out := make([]newLine, ls.Len())
	for i := range out {
		out[i] = newLine{text: ls.Text(i + 1), origin: i}
	}
	return out
}

func writtenLines(ls documents.Lines) []newLine {
	out := make([]newLine, ls.Len())
	for i := range out {
		out[i] = newLine{text: ls.Text(i + 1), origin: -1}
	}
	return out
}

// asProblem turns a refusal into a problem, keeping its code and text.
func asProblem(err error) *problem {
	var r *refusal.Error
	if errors.As(err, &r) {
		return &problem{code: r.Code, text: r.Text}
	}
	return &problem{code: refusal.Failed, text: err.Error()}
}
