package documents

import (
	"bufio"
	"bytes"
	"container/heap"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/cespare/xxhash/v2"
	"golang.org/x/sys/unix"

	"github.com/tandemdev/tandem/refusal"
)

// The scope rule for grep's pages. A search of several files (a directory)
// shows at most filesPerPage files with at most matchesPerFile rows each,
// and skip counts files. A search of one file shows at most matchesPerPage
// rows, and skip counts matches.
const (
	filesPerPage   = 20
	matchesPerFile = 20
	matchesPerPage = 200
	// maxContext bounds the lines shown before and after each match: more
	// is a read of the range.
	maxContext = 10
)

// contextLead stands before the row of a line shown around a match, as
// before an unchanged row in edit's diffs: " 11:text" beside the match
// "12:text". Every edit form already takes such a row as it takes the rows
// of its own diffs — quoted as an anchor, or pasted into old or text — so
// a model may paste what grep showed as it stands.
const contextLead = " "

// GrepRequest is grep's arguments, as the tool's schema names them; its
// JSON is a call a notice can tell the model to make.
type GrepRequest struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path,omitempty"` // "" is the workspace root
	Glob       string `json:"glob,omitempty"` // optional filter on file paths
	IgnoreCase bool   `json:"ignoreCase,omitempty"`
	Literal    bool   `json:"literal,omitempty"`
	Skip       int    `json:"skip,omitempty"`
	// Output is "rows" (the default: each matching line), "files" (the
	// paths only) or "count" (each file's number of matching lines).
	Output string `json:"output,omitempty"`
	// Context is how many lines before and after each matching row are
	// shown with it (rows only; paths and counts show no lines).
	Context int `json:"context,omitempty"`
}

// restOf is the call that shows the matches of f after the first shown,
// and only those: the same search of f alone, whose skip counts matches.
func (r GrepRequest) restOf(f GrepFile, shown int) string {
	next := GrepRequest{Pattern: r.Pattern, Path: f.Show, IgnoreCase: r.IgnoreCase, Literal: r.Literal, Skip: shown, Context: r.Context}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // a pattern's & and < as typed
	_ = enc.Encode(next)     // strings, bools and ints: it cannot fail
	return "grep " + strings.TrimSuffix(b.String(), "\n")
}

// GrepFile is one file with matches on the page.
type GrepFile struct {
	Abs, Show string
	Tag       Tag  // "" when the file has no tag (over the limit, not UTF-8)
	Large     bool // over the size limit: searched whole, but it has no tag
	CutAt     int  // the search stopped at its time limit at this line (0: it did not)
	NotUTF8   bool
	Buffer    *Buffer // the editor buffer searched in place of the disk
	Content   []byte  // the bytes searched; hits index them after the BOM
	Hits      []Hit   // the matching rows shown (while searching: those kept, one past the page)
	Total     int     // matches in the file (counted up to the scope's need)
	// lean: the file was streamed (streamFile): Content holds only what
	// the rows of its kept hits show, one after another, and dropped is
	// how many hits before them were counted but not kept.
	lean    bool
	dropped int
	parts   map[int]partLine  // lean: the hits on long lines, which Content holds a window of
	rows    map[int]largeLine // lean: the lines of the context rows, as far as rows show them
	nLines  int               // lean: the file's number of lines
	// before and after are the lines of the matches just off the page (0:
	// none). The rows around the page's matches stop short of theirs:
	// the page before showed them, or the page after will.
	before, after int
	lines         Lines // the searched text's lines, when context rows are shown
}

// GrepReport is everything a grep found, before it is rendered.
type GrepReport struct {
	Req          GrepRequest
	Single       bool // the scope is one file
	Tally        Tally
	FilesMatched int        // files with at least one match
	LinesMatched int        // single scope: matching lines in the file
	Page         []GrepFile // the files shown, in path order
	Next         int        // skip for the next page, 0 when none
	PageTo       int        // 1-based number of the last item shown; the first is Req.Skip+1
	roots        []string   // to show example paths in notices
}

// GrepSearch runs a search and returns its report; nothing is recorded.
func GrepSearch(ctx context.Context, buffers *Overlay, roots []string, req GrepRequest) (*GrepReport, error) {
	return grepSearch(ctx, buffers, roots, req, "", false, nil)
}

// grepCursor is where the next page of a directory search starts: after
// the file the page before showed last.
type grepCursor struct {
	search string // the request but its skip
	skip   int    // the skip that page gave
	after  string // the path it showed last
}

// GrepPage runs a search for store's session. A continuation of the last
// directory search (same request, the skip its page gave) starts after
// the last file that page showed: a file added or removed before it since
// shifts no file onto a second page or off every page.
func (s *Store) GrepPage(ctx context.Context, buffers *Overlay, roots []string, req GrepRequest) (*GrepReport, error) {
	next := req
	next.Skip = 0
	search := fmt.Sprintf("%q %+v", roots, next)
	s.b.mu.Lock()
	c := s.grepNext
	s.b.mu.Unlock()
	after := ""
	if c.search == search && c.skip == req.Skip && req.Skip > 0 {
		after = c.after
	}
	rep, err := grepSearch(ctx, buffers, roots, req, after, s.oneCall, s.keeperFor(&s.grepKept, search, buffers))
	if err != nil || rep.Single || rep.Next == 0 {
		return rep, err
	}
	s.b.mu.Lock()
	s.grepNext = grepCursor{search: search, skip: rep.Next, after: rep.Page[len(rep.Page)-1].Show}
	s.b.mu.Unlock()
	return rep, nil
}

// grepSearch runs a search whose page starts after the file that after
// names, or at the skip when after is "". With oneCall, the report is only
// rendered, never recorded, so a page file need not be held whole where
// streamFile can search it. A directory search is served from the session's
// kept search when keep has it fresh, and kept when it has more pages.
func grepSearch(ctx context.Context, buffers *Overlay, roots []string, req GrepRequest, after string, oneCall bool, keep *keeper) (*GrepReport, error) {
	if buffers == nil {
		buffers = NewOverlay()
	}
	if req.Skip < 0 {
		return nil, refusal.New(refusal.Invalid, "skip must be 0 or more. Call grep again with skip omitted for the first page.")
	}
	switch req.Output {
	case "", "rows", "files", "count":
	default:
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf("output is %q; it is \"rows\" (the default), \"files\" or \"count\". Call grep again with one of them.", req.Output))
	}
	switch {
	case req.Context < 0:
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf("context must be 0 or more. Call grep again with context omitted, or from 1 to %d.", maxContext))
	case req.Context > maxContext:
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf(
			"context is %d; grep shows at most %d lines around each match. Call grep again with \"context\":%d, then read the range you need.", req.Context, maxContext, maxContext))
	}
	m, err := Compile(req.Pattern, req.IgnoreCase, req.Literal)
	if err != nil {
		return nil, err
	}
	dirs, err := searchRoots(roots, req.Path)
	if err != nil {
		return nil, err
	}
	filter := strings.TrimPrefix(req.Glob, "!")
	if fault := globFault(filter, len(req.Glob)-len(filter)); fault != "" {
		return nil, refusal.New(refusal.Invalid, fmt.Sprintf("The glob %q is not a valid pattern: %s. Fix it (or leave glob out) and call grep again.", req.Glob, fault))
	}
	rep := &GrepReport{Req: req, roots: roots}
	g := &grepRun{ctx: ctx, m: m, buffers: buffers, roots: roots, root: firstRoot(roots), dirs: dirs, rep: rep, after: after,
		lean: oneCall && m.pure && req.Context == 0}
	abs := dirs[0]
	var walked *keptSearch // the walk of this call, to keep
	_, open := buffers.Get(abs)
	info, statErr := os.Stat(abs)
	switch {
	case len(dirs) == 1 && (open || statErr == nil && !info.IsDir()):
		rep.Single = true
		if !open && !info.Mode().IsRegular() {
			rep.Tally.add(ClassSpecial, abs) // a pipe could block the read forever
			break
		}
		pooled := chunkBufs.Get().(*[]byte)
		defer chunkBufs.Put(pooled)
		// A streamed file keeps no hit before the one just off the page.
		f, class, end := g.searchFile(abs, max(0, req.Skip-1), through(req.Skip, matchesPerPage), func() *[]byte { return pooled })
		rep.Tally.add(class, abs)
		if class == ClassSearched || class == ClassLarge {
			g.keep(f, end, &rep.Tally)
		}
	case statErr != nil:
		return nil, statRefusal(Display(roots, abs), statErr)
	default:
		if kept := keep.take(); kept != nil {
			g.matched, rep.Tally = *kept.matched.clone(), kept.tally.clone()
			g.counted = g.matched.Len()
		} else {
			rec := keep.record()
			switch {
			case rec != nil: // every name is kept, for later pages
			case after != "":
				g.bound = filesPerPage
			case req.Skip >= treeFrom:
				g.tree = &matchTree{}
			default:
				g.bound = through(req.Skip, filesPerPage)
			}
			for _, dir := range dirs {
				g.show = shownUnder(roots, dir)
				t, err := walk(ctx, walkSpec{workspace: g.root, start: dir, visit: g.visit, rec: rec})
				if err != nil {
					break
				}
				rep.Tally.merge(t)
				g.bufferOnly(dir)
			}
			if rec != nil {
				walked = &keptSearch{walk: rec, tally: rep.Tally.clone(), matched: g.matched.clone()}
			}
		}
		if ctx.Err() == nil {
			g.searchPage()
		}
	}
	// A search stops inside a file too when ctx is done: what it found is
	// not all there is, so none of it is shown.
	if ctx.Err() != nil {
		return nil, cancelled("search")
	}
	err = g.page()
	if err == nil && walked != nil && rep.Next > 0 {
		keep.keep(walked)
	}
	return rep, err
}

// treeFrom is the skip from which a one-call page counts the files with a
// match in a matchTree instead of keeping the names before it: below it
// the names cost less than the tree's second look at a few directories.
const treeFrom = 2048

type grepRun struct {
	ctx     context.Context
	m       *Matcher
	buffers *Overlay
	roots   []string
	root    string             // firstRoot(roots)
	dirs    []string           // the directories searched
	show    func(Entry) string // how the walk's files are shown (shownUnder)
	rep     *GrepReport
	mu      sync.Mutex
	after   string    // the page starts after the file this names ("": at the skip)
	lean    bool      // the page's files on disk are searched by streamFile
	matched fileNames // a directory search's files with a match: all, in walk order, or the bound smallest
	// bound > 0 keeps only the files with a match that can reach the page:
	// the bound first by name past after. A call that keeps no walk for
	// later pages holds a page's worth of names, however many files match.
	bound int
	// tree, for a one-call page at a skip of treeFrom or more, counts the
	// files with a match by directory instead of keeping their names.
	tree    *matchTree
	counted int        // files with a match
	before  int        // of those, files named at or before after
	cands   []GrepFile // the files searched whole for the page, in path order
	rest    int        // files with a match, counting from the page's first
}

// chunkBytes is how much of a file the walk reads and searches at a time.
// A file is searched in chunks of whole lines, so the walk holds a chunk
// per worker, not a file of up to MaxFileBytes.
const chunkBytes = 64 << 10

// chunkBufs are the buffers the walk reads files into, each reused file
// after file: the walk keeps no file's bytes. A buffer grown for a long
// line stays grown for the next file's (minified bundles and source maps
// come in numbers), as ripgrep keeps its line buffer: allocating it afresh
// per file cost page faults and the runtime's returning of the pages.
var chunkBufs = sync.Pool{New: func() any { b := make([]byte, 0, chunkBytes); prefault(b); return &b }}

// visit is the walk's look at one file: it is searched up to its first
// match (as rg -l does), and a file with a match is remembered by name.
func (g *grepRun) visit(e Entry, t *Tally) {
	t.Count[ClassFile]--
	class, found := g.test(e.Abs, e.Rel)
	t.add(class, e.Abs)
	if !found {
		return
	}
	show := g.show(e)
	g.mu.Lock()
	g.add(show)
	g.mu.Unlock()
}

// test searches the file abs up to its first match and says how the tally
// counts it and whether it has a match. rel is its path from the directory
// searched, which a glob filter is matched against.
func (g *grepRun) test(abs, rel string) (class Class, found bool) {
	if g.rep.Req.Glob != "" && !globMatch(g.rep.Req.Glob, rel) {
		return ClassNotMatched, false
	}
	if _, open := g.buffers.Get(abs); open {
		var f GrepFile
		f, class = g.read(abs)
		if class == ClassSearched || class == ClassLarge {
			s := g.m.Search(g.ctx, bytes.TrimPrefix(f.Content, bom)) // an editor buffer, whole
			_, found = s.Next()
			if s.Err() == errTooSlow {
				class = ClassCut
			}
		}
		return class, found
	}
	pooled := chunkBufs.Get().(*[]byte)
	defer chunkBufs.Put(pooled)
	return g.firstMatch(abs, pooled)
}

// ownMatches lists by name the files with a match directly in the
// directory whose files are shown under prefix (matchTree.page): its files
// on disk, through a walk one level deep that applies the ignore rules as
// the search did, and the open buffers not saved yet in it.
func (g *grepRun) ownMatches(prefix string) []string {
	dir := filepath.FromSlash(prefix)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(g.root, dir)
	}
	dir = filepath.Clean(dir)
	from := "" // the directory's path from the one searched, for a glob filter
	for _, d := range g.dirs {
		if Inside(d, dir) {
			if rel, err := filepath.Rel(d, dir); err == nil && rel != "." {
				from = filepath.ToSlash(rel) + "/"
			}
			break
		}
	}
	var mu sync.Mutex
	var names []string
	found := func(abs, name string) {
		if _, ok := g.test(abs, from+name); ok {
			mu.Lock()
			names = append(names, name)
			mu.Unlock()
		}
	}
	walk(g.ctx, walkSpec{workspace: g.root, start: dir, maxDepth: 1, visit: func(e Entry, _ *Tally) { found(e.Abs, e.Rel) }})
	for _, p := range g.unsaved(func(p string) bool { return filepath.Dir(p) == dir }) {
		found(p, filepath.Base(p))
	}
	return names
}

// add counts a file with a match and keeps it if it can reach the page.
func (g *grepRun) add(show string) {
	g.counted++
	switch {
	case g.tree != nil:
		g.tree.add(show)
	case g.bound == 0:
		g.matched.add(show)
	case g.after != "" && show <= g.after:
		g.before++
	case g.matched.Len() < g.bound:
		g.matched.add(show)
		if g.matched.Len() == g.bound {
			heap.Init(lastFirst{&g.matched})
		}
	case show < g.matched.name(0):
		g.matched.replace(0, show)
		heap.Fix(lastFirst{&g.matched}, 0)
	}
}

// searchPage reads again the files that can reach the page and searches
// them whole. A file changed since the walk is shown as it is now; one
// that no longer matches, or cannot be read, is taken off the count.
func (g *grepRun) searchPage() {
	rep := g.rep
	g.matched.sort()
	rep.FilesMatched = g.counted
	start := min(rep.Req.Skip, g.counted) // in the order of names
	if g.after != "" {
		start = g.before + sort.Search(g.matched.Len(), func(i int) bool { return g.matched.name(i) > g.after })
	}
	g.rest = g.counted - start
	page := make([]string, 0, filesPerPage)
	if g.tree != nil {
		g.tree.finish()
		for _, show := range g.tree.page(start, filesPerPage, g.ownMatches) {
			page = append(page, absOfShown(g.root, show))
		}
	} else {
		kept := min(start-g.before, g.matched.Len()) // where start is in matched
		for i := kept; i < min(g.matched.Len(), kept+filesPerPage); i++ {
			page = append(page, g.matched.abs(g.root, i))
		}
	}
	// The files are read and searched on every core, each into its own
	// slot, and taken in path order after.
	type slot struct {
		f     GrepFile
		class Class
		end   searchEnd
	}
	slots := make([]slot, len(page))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(len(page), runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			var buf *[]byte // streamFile's, from the walk's pool
			defer func() {
				if buf != nil {
					chunkBufs.Put(buf)
				}
			}()
			for i := int(next.Add(1) - 1); i < len(page); i = int(next.Add(1) - 1) {
				sl := &slots[i]
				// Hashed and checked on every core too.
				sl.f, sl.class, sl.end = g.searchFile(page[i], 0, matchesPerFile, func() *[]byte {
					if buf == nil {
						buf = chunkBufs.Get().(*[]byte)
					}
					return buf
				})
			}
		})
	}
	wg.Wait()
	for _, sl := range slots {
		if sl.class != ClassSearched && sl.class != ClassLarge || !g.keep(sl.f, sl.end, &rep.Tally) {
			rep.FilesMatched--
			g.rest--
		}
	}
}

// firstMatch searches a file on disk chunk by chunk, reading into buf,
// up to its first match, and says how the tally counts it, as read would
// for the whole file: a match in a file found binary after it is none.
func (g *grepRun) firstMatch(abs string, buf *[]byte) (class Class, found bool) {
	cut := false
	var s Search // one search across the chunks: the time limit is the file's
	class = eachChunk(abs, buf, func(body []byte, first bool) chunkNext {
		if first {
			s = *g.m.Search(g.ctx, bytes.TrimPrefix(body, bom))
		} else {
			s.Continue(body)
		}
		_, found = s.Next()
		switch {
		case s.Err() == errTooSlow:
			cut = true
			return stopReading
		case found:
			return readOn
		}
		return searchOn
	})
	switch {
	case cut:
		return ClassCut, found
	case class == ClassBinary || class == ClassUnreadable:
		// A NUL byte (or a failed read) past the first match: the file is
		// skipped, so its match is no match.
		return class, false
	}
	return class, found
}

// searchFile reads and searches one file of the page, keeping its hits
// from index keepFrom up to limit and one past: an open editor buffer or a
// file within the size limit read whole, a larger one (or any file on disk
// for a lean page) streamed. buf gives streamFile its buffer.
func (g *grepRun) searchFile(abs string, keepFrom, limit int, buf func() *[]byte) (GrepFile, Class, searchEnd) {
	_, open := g.buffers.Get(abs)
	if !open && (g.lean || overLimit(abs)) {
		return g.streamFile(abs, buf(), keepFrom, limit)
	}
	f, class := g.read(abs)
	switch {
	case class == ClassLarge && !open: // it grew past the limit since its stat
		return g.streamFile(abs, buf(), keepFrom, limit)
	case class == ClassSearched || class == ClassLarge:
		f, s := g.search(f, limit)
		return finish(f), class, endOf(s)
	}
	return f, class, searchEnd{}
}

// overLimit reports whether the file at abs is over the size limit.
func overLimit(abs string) bool {
	info, err := os.Stat(abs)
	return err == nil && info.Size() > MaxFileBytes
}

// streamFile searches a file on disk chunk by chunk, with the same result
// as read and search give on the whole file, in the memory of a chunk and
// its longest line whatever the file's size: it keeps the hits from index
// keepFrom up to limit and one past, each as its line or, for a long line,
// the window its row shows (see window), and hashes the file as the chunks
// go by, so a whole UTF-8 file within the size limit still has its tag.
// Context rows come from a second pass over the file (around).
func (g *grepRun) streamFile(abs string, buf *[]byte, keepFrom, limit int) (GrepFile, Class, searchEnd) {
	f := GrepFile{Abs: abs, Content: []byte{'\n'}, lean: true, dropped: keepFrom} // never starting with a BOM
	sum := xxhash.New()
	// A file over the limit has no tag: it is not hashed.
	info, err := os.Stat(abs)
	hash := err != nil || info.Size() <= MaxFileBytes
	valid := true
	var end searchEnd
	var s *Search    // one search across the chunks: the time limit is the file's
	lines := 0       // before the chunk
	partial := false // the last chunk ends without a line end
	class := eachChunk(abs, buf, func(body []byte, first bool) chunkNext {
		if hash {
			_, _ = sum.Write(body)
		}
		valid = valid && utf8.Valid(body) // a chunk ends at a line end, never inside a rune
		text := body
		if first {
			text = bytes.TrimPrefix(body, bom)
			s = g.m.Search(g.ctx, text)
		} else {
			s.Continue(text)
		}
		for h, ok := s.Next(); ok; h, ok = s.Next() {
			if f.Total >= keepFrom && f.Total <= limit {
				f.keepHit(h, text, lines)
			}
			f.Total++
		}
		if s.Err() != nil {
			end = searchEnd{s.Err(), lines + s.Line()}
			return stopReading
		}
		lines += bytes.Count(text, []byte{'\n'})
		partial = len(text) > 0 && text[len(text)-1] != '\n'
		return searchOn
	})
	f.Large, f.NotUTF8 = class == ClassLarge, !valid
	if class == ClassSearched && hash && valid && end.err == nil {
		f.Tag = tagOfSum(sum.Sum64())
	}
	f.nLines = lines
	if partial {
		f.nLines++
	}
	if c := g.rep.Req.Context; c > 0 && len(f.Hits) > 0 && end.err == nil && (class == ClassSearched || class == ClassLarge) {
		if !f.around(g.ctx, c) {
			class = ClassUnreadable
		}
	}
	return f, class, end
}

// keepHit keeps hit h of a streamed chunk, text, whose first line is line
// lines+1: its line, or the window of a long line that its row shows.
func (f *GrepFile) keepHit(h Hit, text []byte, lines int) {
	line := text[h.Start:h.End]
	from, to := 0, len(line)
	if len(line) > maxRowBytes {
		from, to = window(line, h.Col)
		if f.parts == nil {
			f.parts = map[int]partLine{}
		}
		f.parts[lines+h.N] = partLine{from: from, size: len(line)}
	}
	at := len(f.Content)
	f.Content = append(append(f.Content, line[from:to]...), '\n')
	f.Hits = append(f.Hits, Hit{N: lines + h.N, Start: at, End: at + to - from, Col: h.Col})
}

// around reads a streamed file again for the lines its kept hits' context
// rows show, each as far as a row shows it. It reports whether the file
// could be read.
func (f *GrepFile) around(ctx context.Context, context int) bool {
	want := map[int]bool{}
	last := 0
	for _, h := range f.Hits {
		for n := max(1, h.N-context); n <= h.N+context; n++ {
			want[n] = true
		}
		last = h.N + context
	}
	fd, err := os.Open(f.Abs)
	if err != nil {
		return false
	}
	defer fd.Close()
	f.rows = map[int]largeLine{}
	br := bufio.NewReaderSize(ctxReader{ctx, fd}, chunkBytes)
	for n := 1; n <= last; n++ {
		keep := 0
		if want[n] {
			keep = rowHead + len(bom)
		}
		line, ok, err := readLine(br, 0, keep)
		if err != nil {
			return ctx.Err() != nil // a cancelled grep shows nothing anyway
		}
		if !ok {
			break
		}
		if n == 1 && bytes.HasPrefix(line.head, bom) {
			line.head, line.size = line.head[len(bom):], line.size-len(bom)
		}
		if want[n] {
			f.rows[n] = line
		}
	}
	return true
}

// chunkNext is what eachChunk does after a chunk.
type chunkNext int

const (
	searchOn    chunkNext = iota // hand over the next chunk too
	readOn                       // read on only to tell a binary file
	stopReading                  // stop: the caller has its answer
)

// eachChunk reads a file on disk into *buf, chunk after chunk, and hands
// over the whole lines of each (the first from the file's start, with any
// byte order mark) while see asks for more; past that it may read on only
// to tell a binary file. The whole file is searched, whatever its size: a
// line longer than a chunk gets a larger buffer, left in *buf for the
// files after, and the memory held is a chunk and the longest line, as in
// ripgrep. It says how the tally counts the file: searched, large (over
// MaxFileBytes: searched whole, but without a tag), binary or unreadable;
// ClassSearched when see stopped the reading.
func eachChunk(abs string, buf *[]byte, see func(body []byte, first bool) chunkNext) Class {
	fd, err := unix.Open(abs, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return ClassUnreadable
	}
	defer unix.Close(fd)
	b := (*buf)[:0]
	window := min(cap(b), chunkBytes) // how much of b a read may fill
	read, first, next := 0, true, searchOn
	for {
		if len(b) == window {
			// A line longer than the window: room for the rest of the file
			// at once (up to the size limit), not a doubling and a copy per
			// step of a 1 MB line.
			window *= 2
			var st unix.Stat_t
			if unix.Fstat(fd, &st) == nil {
				window = max(window, int(min(st.Size-int64(read), MaxFileBytes))+len(b)+1)
			}
			if window > cap(b) {
				grown := make([]byte, len(b), window)
				prefault(grown)
				copy(grown, b)
				b = grown
				*buf = grown[:0]
			}
		}
		n, err := unix.Read(fd, b[len(b):window])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return ClassUnreadable
		}
		fresh := b[len(b) : len(b)+n]
		if bytes.IndexByte(fresh, 0) >= 0 {
			return ClassBinary
		}
		// The whole lines read so far; the rest waits for the next chunk,
		// and at the end is the last line, without its ending. What was
		// held back holds no line end, so only the fresh bytes are looked at.
		end := 0
		if i := lastLineEnd(fresh); i >= 0 {
			end = len(b) + i + 1
		}
		b, read = b[:len(b)+n], read+n
		if n == 0 {
			end = len(b)
		}
		if next == searchOn && end > 0 {
			if next = see(b[:end], first); next == stopReading {
				return ClassSearched
			}
			first = false
		}
		if n == 0 {
			if read > MaxFileBytes {
				return ClassLarge
			}
			return ClassSearched
		}
		b = b[:copy(b, b[end:])]
	}
}

// lastLineEnd is bytes.LastIndexByte(p, '\n'), which reads a byte at a
// time: on a one-line source map it read megabytes backwards per file. The
// vector IndexByte tells first whether a stretch holds a line end at all.
func lastLineEnd(p []byte) int {
	const stretch = 4 << 10
	for hi := len(p); hi > 0; {
		lo := max(0, hi-stretch)
		if bytes.IndexByte(p[lo:hi], '\n') >= 0 {
			return lo + bytes.LastIndexByte(p[lo:hi], '\n')
		}
		hi = lo
	}
	return -1
}

// read loads the bytes of a file to search, its open editor buffer or
// else the disk into a buffer of its own, and says how the tally counts
// it: searched, large (over MaxFileBytes: a buffer is there whole, of a
// file only its first MaxFileBytes+1 bytes, for searchFile to stream it),
// binary or unreadable.
func (g *grepRun) read(abs string) (GrepFile, Class) {
	f := GrepFile{Abs: abs}
	if b, ok := g.buffers.Get(abs); ok {
		f.Content, f.Buffer = b.Text, &b
		if bytes.IndexByte(f.Content, 0) >= 0 { // readCapped checks the disk's bytes
			return f, ClassBinary
		}
	} else {
		var err error
		var binary bool
		f.Content, f.Large, binary, err = readCapped(abs)
		switch {
		case err != nil:
			return f, ClassUnreadable
		case binary:
			return f, ClassBinary
		}
	}
	if len(f.Content) > MaxFileBytes {
		f.Large = true
	}
	if !f.Large {
		return f, ClassSearched
	}
	return f, ClassLarge
}

// search searches f whole, keeping its first limit hits and one past
// them, and counting them all. It changes nothing but f: the files of a
// page are searched side by side.
func (g *grepRun) search(f GrepFile, limit int) (GrepFile, *Search) {
	s := g.m.Search(g.ctx, bytes.TrimPrefix(f.Content, bom))
	for {
		h, ok := s.Next()
		if !ok {
			break
		}
		if len(f.Hits) <= limit {
			f.Hits = append(f.Hits, h)
		}
		f.Total++
	}
	return f, s
}

// searchEnd is how the search of a file ended: early, and then at which
// line, or at its end (err nil).
type searchEnd struct {
	err  error
	line int
}

func endOf(s *Search) searchEnd { return searchEnd{s.Err(), s.Line()} }

// keep adds a searched file to the candidates when it has a match, and
// reports whether it has.
func (g *grepRun) keep(f GrepFile, end searchEnd, t *Tally) bool {
	g.stopped(end, t, &f)
	if f.Total == 0 {
		return false
	}
	f.Show = Display(g.roots, f.Abs)
	g.cands = append(g.cands, f)
	return true
}

// stopped accounts for a search of f that passed its time limit: f moves
// to ClassCut and remembers where the search stopped. A cancelled search
// needs nothing: its grep shows nothing.
func (g *grepRun) stopped(end searchEnd, t *Tally, f *GrepFile) {
	if end.err != errTooSlow {
		return
	}
	from := ClassSearched
	if f.Large {
		from = ClassLarge
	}
	t.Move(from, ClassCut, f.Abs)
	f.CutAt = end.line
}

// bufferOnly searches open editor buffers under the directory that do not
// exist on disk (new files not saved yet), so grep finds what the user typed.
func (g *grepRun) bufferOnly(dir string) {
	for _, p := range g.unsaved(func(p string) bool { return Inside(dir, p) }) {
		rel, _ := filepath.Rel(dir, p)
		g.rep.Tally.Count[ClassFile]++
		g.visit(Entry{Abs: p, Rel: filepath.ToSlash(rel)}, &g.rep.Tally)
	}
}

// unsaved lists the open buffers that in takes and that do not exist on
// disk, but for tandem's own temporary files.
func (g *grepRun) unsaved(in func(p string) bool) []string {
	var out []string
	for _, p := range g.buffers.Paths() {
		if !in(p) || strings.HasPrefix(filepath.Base(p), TempPrefix) {
			continue
		}
		if _, err := os.Lstat(p); err != nil {
			out = append(out, p)
		}
	}
	return out
}

// page cuts the candidates to the requested page and finishes each file.
// Besides the scope's counts, the page stops at the output bound (about
// maxBytes of what it shows, at least one item), so long lines cannot
// flood the model; the continuation then starts right after what was
// shown. Paths and counts show no row, so rows charge them nothing.
func (g *grepRun) page() error {
	rep, skip := g.rep, g.rep.Req.Skip
	budget := maxBytes
	paths := rep.Req.Output == "files" || rep.Req.Output == "count"
	if rep.Single {
		if len(g.cands) == 0 {
			if skip > 0 {
				return pastEnd(skip, 0, "matching lines")
			}
			return nil
		}
		f := g.cands[0]
		rep.LinesMatched = f.Total
		if skip > 0 && skip >= f.Total {
			return pastEnd(skip, f.Total, "matching lines")
		}
		if paths {
			// The file's path or count is the whole answer: a next page
			// could only show the same line again.
			rep.PageTo = f.Total
			rep.Page = []GrepFile{finish(f)}
			return nil
		}
		f = f.cut(min(skip-f.dropped, len(f.Hits)), len(f.Hits), rep.Req.Context)
		costs := f.rowCosts(rep.Req.Context)
		n := 0
		for n < len(costs) && n < matchesPerPage && (n == 0 || budget > 0) {
			budget -= costs[n]
			n++
		}
		f = f.cut(0, n, rep.Req.Context)
		rep.PageTo = skip + len(f.Hits)
		if rep.PageTo < f.Total {
			rep.Next = rep.PageTo
		}
		rep.Page = []GrepFile{finish(f)}
		return nil
	}
	if skip > 0 && len(g.cands) == 0 {
		return pastEnd(skip, rep.FilesMatched, "files with matches")
	}
	for _, f := range g.cands {
		if len(rep.Page) > 0 && budget <= 0 {
			break
		}
		if paths {
			// Its line: "path" or "path: N matching lines".
			f = f.cut(0, min(len(f.Hits), matchesPerFile), 0)
			budget -= len(f.Show) + 1
			if rep.Req.Output == "count" {
				budget -= len(": ") + len(count(f.Total, "matching line"))
			}
			rep.Page = append(rep.Page, f)
			continue
		}
		f = f.cut(0, min(len(f.Hits), matchesPerFile), rep.Req.Context)
		budget -= len(f.Show) + 12
		for _, cost := range f.rowCosts(rep.Req.Context) {
			budget -= cost
		}
		rep.Page = append(rep.Page, f)
	}
	rep.PageTo = skip + len(rep.Page)
	if g.rest > len(rep.Page) {
		rep.Next = rep.PageTo
	}
	return nil
}

// through returns how many items a page after skip needs kept: skip+page,
// or math.MaxInt (all of them) when the sum would overflow.
func through(skip, page int) int {
	if skip > math.MaxInt-page {
		return math.MaxInt
	}
	return skip + page
}

// partLine is where the window of a long line that a streamed search
// kept (see streamFile) starts in the line, and the line's size.
type partLine struct{ from, size int }

// hitLine returns what the row of hit h shows of its line: the whole line,
// or the window of a long line around its match (see window), with where
// that starts in the line and the line's size.
func (f GrepFile) hitLine(h Hit) (text []byte, from, size int) {
	text = bytes.TrimPrefix(f.Content, bom)[h.Start:h.End]
	if p, ok := f.parts[h.N]; ok {
		return text, p.from, p.size
	}
	if len(text) <= maxRowBytes {
		return text, 0, len(text)
	}
	from, to := window(text, h.Col)
	return text[from:to], from, len(text)
}

// contextLine returns line n for a context row: its text, at least as far
// as a row shows it, and its size.
func (f GrepFile) contextLine(n int) ([]byte, int) {
	if f.lean {
		l := f.rows[n]
		return l.head, l.size
	}
	text := f.lines.Text(n)
	return text, len(text)
}

// cut keeps f's hits from..to of those kept, remembering the matches just
// off them. With context rows it scans the lines they are taken from.
func (f GrepFile) cut(from, to, context int) GrepFile {
	if from > 0 {
		f.before = f.Hits[from-1].N
	}
	if to < len(f.Hits) {
		f.after = f.Hits[to].N
	}
	f.Hits = f.Hits[from:to]
	if context > 0 && f.lines.Body == nil && !f.lean {
		f.lines = Scan(f.Content)
	}
	return f
}

// windows calls see with each hit's window: its line and up to context
// lines either side, less the rows a window before it shows. The first
// starts after the rows of the match before the page; none reaches the
// match after the page, nor a line the search did not reach.
func (f GrepFile) windows(context int, see func(i int, w Span)) {
	done, stop := 0, math.MaxInt
	if f.before > 0 {
		done = min(f.before+context, f.Hits[0].N-1)
	}
	if context > 0 {
		stop = f.lines.Len()
		if f.lean {
			stop = f.nLines
		}
	}
	if f.after > 0 {
		stop = min(stop, f.after-1)
	}
	if f.CutAt > 0 {
		stop = min(stop, f.CutAt-1)
	}
	for i, h := range f.Hits {
		w := Span{max(h.N-context, done+1), min(h.N+context, stop)}
		see(i, w)
		done = max(done, w.To)
	}
}

// rowCosts estimates the bytes each hit adds to the output: its row and the
// context rows its window adds.
func (f GrepFile) rowCosts(context int) []int {
	costs := make([]int, len(f.Hits))
	f.windows(context, func(i int, w Span) {
		h := f.Hits[i]
		for n := w.From; n <= w.To; n++ {
			if n == h.N {
				text, _, size := f.hitLine(h)
				costs[i] += hitRowCost(n, len(text), size)
				continue
			}
			_, size := f.contextLine(n)
			costs[i] += rowCost(n, size)
		}
	})
	return costs
}

func pastEnd(skip, total int, what string) error {
	return refusal.New(refusal.Invalid, fmt.Sprintf(
		"skip=%d is past the end: there are %d %s. Call again with a smaller skip, or without skip for the first page.", skip, total, what))
}

// finish decides a shown file's tag: the hash of the bytes grep searched,
// for a whole UTF-8 file only.
func finish(f GrepFile) GrepFile {
	if f.lean { // streamFile decided it
		return f
	}
	if Encoding(f.Content) != "" {
		f.NotUTF8 = true
	}
	if !f.Large && !f.NotUTF8 {
		f.Tag = TagOf(f.Content)
	}
	return f
}

// globMatch applies grep's glob filter: a pattern with a "/" matches the
// path under the searched directory, one without matches the file name; a
// leading "!" keeps the files that do not match (as ripgrep's -g does).
func globMatch(pattern, rel string) bool {
	pattern, exclude := strings.CutPrefix(pattern, "!")
	if !strings.Contains(pattern, "/") {
		rel = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	ok, _ := doublestar.Match(pattern, rel)
	return ok != exclude
}

// Grep searches, renders the page for the model and records what it showed.
func Grep(ctx context.Context, store *Store, buffers *Overlay, roots []string, req GrepRequest) (string, error) {
	rep, err := store.GrepPage(ctx, buffers, roots, req)
	if err != nil {
		return "", err
	}
	return rep.Record(store), nil
}

// Record renders the page and records in store what reached the model: each
// shown file's searched bytes as a version under its tag (never a second
// read of the file), and the rows shown whole as seen lines of that version.
func (r *GrepReport) Record(store *Store) string {
	text, shown := r.Render()
	for i, f := range r.Page {
		if f.Tag != "" && !f.lean {
			store.sawTagged(f.Abs, f.Tag, f.Content)
			store.MarkSeen(f.Abs, f.Tag, shown[i]...)
		}
	}
	return text
}

// Render writes the report as the model sees it and returns, per page file,
// the line numbers whose whole rows it shows.
func (r *GrepReport) Render() (string, [][]int) {
	var out strings.Builder
	shown := make([][]int, len(r.Page))
	if r.Req.Output == "files" || r.Req.Output == "count" {
		// Paths (and counts) only: no row reaches the model, so none is seen.
		for _, f := range r.Page {
			if r.Req.Output == "files" {
				out.WriteString(f.Show + "\n")
				continue
			}
			n := f.Total
			if r.Single {
				n = r.LinesMatched
			}
			fmt.Fprintf(&out, "%s: %s\n", f.Show, count(n, "matching line"))
		}
		r.notices(&out)
		return out.String(), shown
	}
	for i, f := range r.Page {
		if f.Tag != "" {
			fmt.Fprintf(&out, "[%s#%s]\n", f.Show, f.Tag)
		} else {
			fmt.Fprintf(&out, "[%s]\n", f.Show)
		}
		if f.Buffer != nil && f.Buffer.Dirty {
			fmt.Fprintf(&out, "(unsaved editor buffer, version %d: searched in place of the disk)\n", f.Buffer.Version)
		}
		switch {
		case f.Large:
			out.WriteString("(over the 4 MiB limit: searched whole, but it has no tag, so these rows are not edit anchors)\n")
		case f.NotUTF8:
			out.WriteString("(not UTF-8 text: no tag, so these rows are not edit anchors)\n")
		}
		if f.CutAt > 0 {
			fmt.Fprintf(&out, "(the pattern was too slow for this file: the search stopped after %v, at line %d; lines from there on were not searched)\n", searchTimeLimit, f.CutAt)
		}
		last, next := 0, 0 // the last line written, the next hit to write
		f.windows(r.Req.Context, func(_ int, w Span) {
			if r.Req.Context > 0 && last > 0 && w.From > last+1 {
				out.WriteString(GapMarker + "\n")
			}
			for n := w.From; n <= w.To; n++ {
				valid := func(text []byte) []byte {
					if f.NotUTF8 {
						return bytes.ToValidUTF8(text, []byte("\uFFFD"))
					}
					return text
				}
				var row string
				var whole bool
				if next < len(f.Hits) && f.Hits[next].N == n {
					h := f.Hits[next]
					text, from, size := f.hitLine(h)
					if len(text) < size {
						row = windowRow(n, valid(text), from, size, f.Show, h.Col)
					} else {
						row, whole = Row(n, valid(text))
					}
					next++
				} else {
					text, size := f.contextLine(n)
					out.WriteString(contextLead)
					row, whole = rowOf(n, valid(text), size)
				}
				out.WriteString(row + "\n")
				if whole && f.Tag != "" {
					shown[i] = append(shown[i], n)
				}
				last = n
			}
		})
		if !r.Single && f.Total > len(f.Hits) {
			fmt.Fprintf(&out, "(%s in this file not shown; next page of them: %s)\n", count(f.Total-len(f.Hits), "more match"), r.Req.restOf(f, len(f.Hits)))
		}
	}
	r.notices(&out)
	return out.String(), shown
}

// notices writes the summary and one line for each class of entries that
// was skipped, cut or not searched, and only for the classes that are not
// empty: nothing is cut silently.
func (r *GrepReport) notices(out *strings.Builder) {
	pattern := r.Req.Pattern
	searched := r.Tally.Count[ClassSearched] + r.Tally.Count[ClassLarge] + r.Tally.Count[ClassCut]
	switch {
	case r.Single && r.LinesMatched == 0 && r.Tally.Count[ClassCut] > 0:
		fmt.Fprintf(out, "(no line matches %q in the part searched)\n", pattern)
	case r.Single && r.LinesMatched == 0:
		fmt.Fprintf(out, "(no line matches %q)\n", pattern)
	case r.Single && r.Next > 0:
		fmt.Fprintf(out, "(%s; shown: %d-%d; next page: grep again with skip=%d)\n", count(r.LinesMatched, "matching line"), r.Req.Skip+1, r.PageTo, r.Next)
	case r.Single:
		fmt.Fprintf(out, "(%s; shown: %d-%d)\n", count(r.LinesMatched, "matching line"), r.Req.Skip+1, r.PageTo)
	case r.FilesMatched == 0:
		fmt.Fprintf(out, "(no file matches %q: %s searched)\n", pattern, count(searched, "file"))
	case r.Next > 0:
		fmt.Fprintf(out, "(%d of %d searched files match; shown: files %d-%d; next page: grep again with skip=%d)\n",
			r.FilesMatched, searched, r.Req.Skip+1, r.PageTo, r.Next)
	default:
		fmt.Fprintf(out, "(%d of %d searched files match; shown: files %d-%d)\n",
			r.FilesMatched, searched, r.Req.Skip+1, r.PageTo)
	}
	cut := 0
	for _, f := range r.Page {
		// Only rows show a file's matches, so only rows show the "N more"
		// of a file whose matches were cut.
		if !r.Single && f.Total > len(f.Hits) && r.Req.Output != "files" && r.Req.Output != "count" {
			cut++
		}
	}
	if cut > 0 {
		fmt.Fprintf(out, "(cut: %s on this page had more than %d matches; each says how many more)\n", count(cut, "file"), matchesPerFile)
	}
	writeClassNotices(out, &r.Tally, r.roots)
}

// classNotice is how a non-empty class is reported: what happened, the
// entry's noun (singular, plural) and an optional reason.
var classNotice = map[Class][3]string{
	ClassBinary:      {"skipped", "binary file", " (a NUL byte)"},
	ClassUnreadable:  {"skipped", "file that could not be read", ""},
	ClassLarge:       {"searched whole without a tag", "file over the 4 MiB limit", " (their rows are not edit anchors)"},
	ClassCut:         {"searched in part", "file where the pattern was too slow", " (stopped after " + searchTimeLimit.String() + ": make the pattern cheaper, e.g. smaller repeats or a literal word every match has, or narrow path or glob)"},
	ClassIgnoredFile: {"skipped", "file excluded by .gitignore, .ignore or git's exclude files", ""},
	ClassIgnoredDir:  {"not entered", "directory excluded by .gitignore, .ignore or git's exclude files", ""},
	ClassSymlink:     {"not followed", "symbolic link", ""},
	ClassSpecial:     {"skipped", "special file", " (device, socket or pipe)"},
	ClassTemp:        {"not shown", "temporary file of an unfinished tandem write", ""},
	ClassWalkError:   {"not entered", "directory that could not be listed", ""},
}

// noticeOrder fixes the order of the class notices. A .git directory and a
// file outside the glob filter are counted but not told: the model learns
// nothing from either.
var noticeOrder = []Class{ClassBinary, ClassUnreadable, ClassLarge, ClassCut, ClassIgnoredFile, ClassIgnoredDir,
	ClassSymlink, ClassSpecial, ClassTemp, ClassWalkError}

func writeClassNotices(out *strings.Builder, t *Tally, roots []string) {
	for _, c := range noticeOrder {
		n := t.Count[c]
		if n == 0 {
			continue
		}
		what := classNotice[c]
		fmt.Fprintf(out, "(%s: %s%s", what[0], count(n, what[1]), what[2])
		for i, ex := range t.Examples[c] {
			if i == 0 {
				out.WriteString(", e.g. ")
			} else {
				out.WriteString(", ")
			}
			out.WriteString(Display(roots, ex))
		}
		out.WriteString(")\n")
	}
}

// count writes n and a noun phrase, pluralising its head noun (the first
// of file, directory, link, line, path, entry, match) when n is not 1:
// "1 binary file", "3 directories excluded by …".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	words := strings.Fields(noun)
	for i, w := range words {
		switch w {
		case "directory", "entry":
			words[i] = w[:len(w)-1] + "ies"
		case "file", "link", "line", "path":
			words[i] = w + "s"
		case "match":
			words[i] = w + "es"
		default:
			continue
		}
		break
	}
	return fmt.Sprintf("%d %s", n, strings.Join(words, " "))
}
