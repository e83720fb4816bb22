package documents

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/tandemdev/tandem/refusal"
)

// MaxGlobPage is the largest page glob returns, and its default.
const MaxGlobPage = 200

// GlobRequest is glob's arguments, as the tool's schema names them.
type GlobRequest struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"` // "" is the workspace root
	Skip    int    `json:"skip"`
	Limit   int    `json:"limit"` // 0 is MaxGlobPage
}

// GlobPath is one matching path with its modification time.
type GlobPath struct {
	Show  string // as shown: relative to the workspace root when inside it
	IsDir bool
	MTime time.Time
}

// GlobReport is a glob's page and what the walk skipped.
type GlobReport struct {
	Req   GlobRequest
	Dir   string // the searched directory, as shown
	Total int    // matching paths
	Page  []GlobPath
	Next  int // skip for the next page, 0 when none
	Tally Tally
	roots []string // to show example paths in notices
}

// GlobSearch walks the directory and returns the page of matching paths:
// newest first, then by path, each path once.
func GlobSearch(ctx context.Context, roots []string, req GlobRequest) (*GlobReport, error) {
	return globSearch(ctx, roots, req, nil)
}

// GlobPage is GlobSearch for store's session: a later page of the same glob
// is served from the session's kept search while nothing it rests on has
// changed (walkkeep.go).
func (s *Store) GlobPage(ctx context.Context, roots []string, req GlobRequest) (*GlobReport, error) {
	search := req
	search.Skip, search.Limit = 0, 0
	return globSearch(ctx, roots, req, s.keeperFor(&s.globKept, fmt.Sprintf("%q %+v", roots, search), nil))
}

func globSearch(ctx context.Context, roots []string, req GlobRequest, keep *keeper) (*GlobReport, error) {
	if req.Skip < 0 || req.Limit < 0 || req.Limit > MaxGlobPage {
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf(
			"skip must be 0 or more and limit between 1 and %d. Fix them and call glob again.", MaxGlobPage))
	}
	limit := req.Limit
	if limit == 0 {
		limit = MaxGlobPage
	}
	pattern := strings.TrimPrefix(req.Pattern, "./")
	switch {
	case pattern == "":
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf(
			"The glob %q names no path. Use patterns such as \"**/*.go\" or \"cmd/*/main.go\", and path for the directory.", req.Pattern))
	case strings.HasPrefix(pattern, "/"):
		dir, rest := doublestar.SplitPattern(pattern)
		if rest == "" { // "/src/": the directory itself, whose entries glob lists
			rest = "*"
		}
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf(
			"The glob %q starts with \"/\", but glob matches paths below the searched directory (path, by default the workspace root). For paths under %s, call glob with pattern %q and path %q; for a directory of the workspace, drop the leading \"/\".", req.Pattern, dir, rest, dir))
	}
	if fault := globFault(pattern, len(req.Pattern)-len(pattern)); fault != "" {
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf("The glob %q is not a valid pattern: %s. Fix it and call glob again.", req.Pattern, fault))
	}
	// The walk starts at the pattern's fixed prefix, so a ".." there would
	// list directories above the one searched, past the gate that judged path.
	if slices.Contains(strings.Split(pattern, "/"), "..") {
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf(
			"The glob %q goes up with \"..\", but glob matches paths below the searched directory. Name the directory above as path (for example path \"..\") and keep the pattern below it.", req.Pattern))
	}
	dirs, err := searchRoots(roots, req.Path)
	if err != nil {
		return nil, err
	}
	var shown []string
	for _, d := range dirs {
		shown = append(shown, Display(roots, d))
	}
	rep := &GlobReport{Req: req, Dir: strings.Join(shown, ", "), roots: roots}
	// The walk starts at the pattern's fixed prefix ("cmd/**" walks cmd).
	base, rest := doublestar.SplitPattern(pattern)
	found, walked, err := globWalk(ctx, roots, dirs, base, rest, rep, keep)
	if err != nil {
		return nil, err
	}
	rep.Total = found.Len()
	if req.Skip > 0 && req.Skip >= rep.Total {
		return nil, pastEnd(req.Skip, rep.Total, "matching paths")
	}
	end := min(req.Skip+limit, rep.Total)
	rep.Page = found.page(req.Skip, end)
	if end < rep.Total {
		rep.Next = end
		if walked != nil {
			keep.keep(walked)
		}
	}
	return rep, nil
}

// globWalk returns the paths under dirs that match base/rest, in page order,
// and counts the walk in rep's tally: from the session's kept search when
// keep has it fresh, else by walking, and then walked is the search to keep.
func globWalk(ctx context.Context, roots, dirs []string, base, rest string, rep *GlobReport, keep *keeper) (found *globMatches, walked *keptSearch, err error) {
	if kept := keep.take(); kept != nil {
		rep.Tally = kept.tally.clone()
		return kept.found, nil, nil
	}
	// Without "**" the walk stops at the depth the rest can reach.
	depth := 0 // unlimited
	if !strings.Contains(rest, "**") {
		depth = strings.Count(rest, "/") + 1
	}
	rec := keep.record()
	found = &globMatches{}
	for _, abs := range dirs {
		if info, err := os.Stat(abs); err != nil {
			return nil, nil, statRefusal(Display(roots, abs), err)
		} else if !info.IsDir() {
			return nil, nil, refusal.New(refusal.Invalid, fmt.Sprintf(
				"%s is a file; glob searches a directory. Give its directory as path, or read the file.", Display(roots, abs)))
		}
		start, ok := descend(abs, base, &rep.Tally, rec)
		if !ok {
			continue
		}
		show := shownUnder(roots, start)
		t, err := walk(ctx, walkSpec{
			workspace: firstRoot(roots), start: start, dirs: true, maxDepth: depth,
			want: globMatcher(rest), stat: true, rec: rec,
			visit: func(e Entry, _ *Tally) {
				found.add(show(e), e.IsDir, e.MTime)
			},
		})
		if err != nil {
			return nil, nil, cancelled("glob")
		}
		rep.Tally.merge(t)
	}
	found.sort()
	if rec != nil {
		walked = &keptSearch{walk: rec, tally: rep.Tally.clone(), found: found}
	}
	return found, walked, nil
}

// globMatches is the paths a walk found. Tens of thousands may be kept and
// sorted (32,024 match "**/*.c" in the Linux tree): their shown names lie
// back to back in text, and each path is a record with no pointer, which
// the collector never scans and a sort moves without write barriers.
type globMatches struct {
	mu    sync.Mutex
	names fileNames // the text; its list of names is not used
	hits  []globHit
}

type globHit struct {
	name  nameRef
	isDir bool
	mtime int64 // as Entry.MTime
}

func (m *globMatches) add(show string, isDir bool, mtime int64) {
	m.mu.Lock()
	m.hits = append(m.hits, globHit{name: m.names.store(show), isDir: isDir, mtime: mtime})
	m.mu.Unlock()
}

func (m *globMatches) Len() int { return len(m.hits) }

// sort puts the paths in page order: newest first, then by path.
func (m *globMatches) sort() {
	slices.SortFunc(m.hits, func(a, b globHit) int {
		if a.mtime != b.mtime {
			return cmp.Compare(b.mtime, a.mtime)
		}
		return strings.Compare(m.names.at(a.name), m.names.at(b.name))
	})
}

// page is the paths from the from-th to before the to-th, each with strings
// of its own.
func (m *globMatches) page(from, to int) []GlobPath {
	out := make([]GlobPath, 0, to-from)
	for _, h := range m.hits[from:to] {
		p := GlobPath{Show: strings.Clone(m.names.at(h.name)), IsDir: h.isDir}
		if h.mtime != NoTime {
			p.MTime = time.Unix(0, h.mtime)
		}
		out = append(out, p)
	}
	return out
}

// bytes is what the paths hold, for the bound on a kept search.
func (m *globMatches) bytes() int {
	return m.names.size + int(unsafe.Sizeof(globHit{}))*len(m.hits)
}

// globFault says what makes pattern invalid to doublestar and where (the
// column in the pattern as the model wrote it, from 1, is offset plus the
// byte's place in pattern), or "" when it is valid. It judges exactly as
// doublestar.ValidatePattern does, which says only yes or no.
func globFault(pattern string, offset int) string {
	col := func(i int) int { return offset + i + 1 }
	var open []int // the "{" not closed yet
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			if i++; i >= len(pattern) {
				return fmt.Sprintf(`the "\\" at column %d, its end, escapes nothing (write "\\\\" for a backslash)`, col(i-1))
			}
		case '[':
			start := i
			if i++; i < len(pattern) && (pattern[i] == '^' || pattern[i] == '!') {
				i++
			}
			if i < len(pattern) && pattern[i] == ']' {
				return fmt.Sprintf(`the class %q at column %d is empty: a "]" right after "[" closes it (write "\\]" for a "]" in a class)`, pattern[start:i+1], col(start))
			}
			for ; i < len(pattern) && pattern[i] != ']'; i++ {
				if pattern[i] == '\\' {
					i++
				}
			}
			if i >= len(pattern) {
				return fmt.Sprintf(`the "[" at column %d opens a class that no "]" closes (write "\\[" for a "[")`, col(start))
			}
		case '{':
			open = append(open, i)
		case '}':
			if len(open) == 0 {
				return fmt.Sprintf(`the "}" at column %d closes no "{" (write "\\}" for a "}")`, col(i))
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		return fmt.Sprintf(`the "{" at column %d opens alternatives that no "}" closes (as in "*.{go,mod}"; write "\\{" for a "{")`, col(open[len(open)-1]))
	}
	return ""
}

// globMatcher returns the test of a path (relative to where the walk
// starts, "/"-separated) against the pattern rest. The common "**/NAME"
// forms are decided on the path's last name alone, and a NAME that is a
// "*" and a literal by a comparison, so most paths cost no pattern match.
func globMatcher(rest string) func(rel string) bool {
	name, anyDepth := strings.CutPrefix(rest, "**/")
	if !anyDepth || strings.Contains(name, "/") || strings.Contains(name, "**") {
		return func(rel string) bool {
			ok, _ := doublestar.Match(rest, rel)
			return ok
		}
	}
	base := func(rel string) string { return rel[strings.LastIndexByte(rel, '/')+1:] }
	if lit, ok := strings.CutPrefix(name, "*"); ok && !strings.ContainsAny(lit, `*?[{\`) {
		return func(rel string) bool { return strings.HasSuffix(base(rel), lit) }
	}
	if lit, ok := strings.CutSuffix(name, "*"); ok && !strings.ContainsAny(lit, `*?[{\`) {
		return func(rel string) bool { return strings.HasPrefix(base(rel), lit) }
	}
	return func(rel string) bool {
		ok, _ := doublestar.Match(name, base(rel))
		return ok
	}
}

// shownUnder returns how a path the walk from start meets is shown, as
// Display shows it, from its Rel without cleaning a path per entry.
func shownUnder(roots []string, start string) func(e Entry) string {
	switch dir := Display(roots, start); {
	case dir == ".":
		return func(e Entry) string { return e.Rel }
	case filepath.IsAbs(dir):
		return func(e Entry) string { return e.Abs }
	default:
		return func(e Entry) string { return dir + "/" + e.Rel }
	}
}

// descend goes from dir down the pattern's fixed prefix base to the
// directory the walk starts at. Like the walk, it does not follow a symbolic
// link: one on the way is counted as not followed, and nothing under it
// matches. ok is false when there is nothing to walk. A recording walk
// notes the directories on the way, whose change could change that.
func descend(dir, base string, t *Tally, rec *walkRecord) (start string, ok bool) {
	if base == "." {
		return dir, true
	}
	if rec != nil {
		way := []string{dir}
		for _, seg := range strings.Split(base, "/") {
			way = append(way, filepath.Join(way[len(way)-1], seg))
		}
		rec.consulted(way)
	}
	for _, seg := range strings.Split(base, "/") {
		dir = filepath.Join(dir, seg)
		info, err := os.Lstat(dir)
		switch {
		case err != nil || !info.IsDir() && info.Mode()&fs.ModeSymlink == 0:
			return "", false
		case info.Mode()&fs.ModeSymlink != 0:
			t.add(ClassSymlink, dir)
			return "", false
		}
	}
	return dir, true
}

// Render writes the page: a summary line, one path a line (directories end
// in "/"), then the continuation and the notices of what the walk skipped.
func (r *GlobReport) Render() string {
	var out strings.Builder
	if r.Total == 0 {
		fmt.Fprintf(&out, "(no path under %s matches %q)\n", r.Dir, r.Req.Pattern)
	} else {
		fmt.Fprintf(&out, "(glob %q under %s: %s, newest first; shown: %d-%d)\n",
			r.Req.Pattern, r.Dir, count(r.Total, "path"), r.Req.Skip+1, r.Req.Skip+len(r.Page))
	}
	for _, p := range r.Page {
		out.WriteString(p.Show)
		if p.IsDir {
			out.WriteByte('/')
		}
		out.WriteByte('\n')
	}
	if r.Next > 0 {
		fmt.Fprintf(&out, "(%s past this page: glob again with skip=%d)\n", count(r.Total-r.Next, "more path"), r.Next)
	}
	writeClassNotices(&out, &r.Tally, r.roots)
	return out.String()
}

// Glob runs GlobSearch and renders its page.
func Glob(ctx context.Context, roots []string, req GlobRequest) (string, error) {
	rep, err := GlobSearch(ctx, roots, req)
	if err != nil {
		return "", err
	}
	return rep.Render(), nil
}
