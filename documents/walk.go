package documents

import (
	"context"
	"io/fs"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TempPrefix starts the name of every temporary file tandem's writers leave
// beside a target while they publish it. grep and glob never show these.
const TempPrefix = ".tandem-tmp-"

// Class is why the walk put an entry where it did. Every entry the walk meets
// is in exactly one class; the classes sum to the walk.
type Class int

// The walk's classes. The tools add their own for the files they handle.
const (
	ClassDir         Class = iota // a directory the walk entered
	ClassFile                     // a regular file handed to the tool
	ClassIgnoredFile              // excluded by an ignore file
	ClassIgnoredDir               // a directory excluded by an ignore file, not entered
	ClassVCSDir                   // .git, never entered
	ClassSymlink                  // a symbolic link, not followed
	ClassSpecial                  // a device, socket or pipe
	ClassTemp                     // a tandem temporary file
	ClassWalkError                // a directory that could not be listed
	// Classes the tools give files after the walk handed them over.
	ClassSearched   // searched whole
	ClassBinary     // has a NUL byte: not searched
	ClassUnreadable // could not be read
	ClassLarge      // over the size limit: searched whole, streamed, without a tag
	ClassNotMatched // did not match grep's glob filter
	ClassCut        // its search passed the time limit: searched in part
	numClasses
)

// Tally counts the entries of one walk per class and keeps a few example
// paths (absolute) of each, so a notice can name them: the first by name,
// so that the same search names the same examples whichever worker met
// them first.
type Tally struct {
	Count    [numClasses]int
	Examples [numClasses][]string
}

const examplesKept = 3

// example reports whether class c keeps example names: the classes that get
// a notice, except temporary files, whose names are never shown.
func (c Class) example() bool {
	return c != ClassDir && c != ClassFile && c != ClassSearched && c != ClassTemp
}

// add counts an entry, by its absolute path, in class c.
func (t *Tally) add(c Class, abs string) {
	t.Count[c]++
	if c.example() {
		t.example(c, abs)
	}
}

// example keeps abs among class c's examples if it is one of the first by
// name.
func (t *Tally) example(c Class, abs string) {
	ex := t.Examples[c]
	if len(ex) == examplesKept && abs >= ex[len(ex)-1] {
		return
	}
	i, _ := slices.BinarySearch(ex, abs)
	ex = slices.Insert(ex, i, strings.Clone(abs)) // abs may be the walk's buffer
	t.Examples[c] = ex[:min(len(ex), examplesKept)]
}

// Move takes one entry from class from to class to (a file handed over,
// then found binary).
func (t *Tally) Move(from, to Class, abs string) {
	t.Count[from]--
	t.add(to, abs)
}

// clone returns a copy of t that shares no examples with it.
func (t *Tally) clone() Tally {
	c := *t
	for i, ex := range c.Examples {
		c.Examples[i] = slices.Clone(ex)
	}
	return c
}

func (t *Tally) merge(o *Tally) {
	for c := range t.Count {
		t.Count[c] += o.Count[c]
		for _, e := range o.Examples[c] {
			t.example(Class(c), e)
		}
	}
}

// Entry is one file or directory the walk hands to a tool.
type Entry struct {
	Abs   string
	Rel   string // relative to the walk's start, "/"-separated
	IsDir bool
	// MTime is the entry's modification time (an lstat's), in nanoseconds
	// since the epoch, when the walk was asked for it; NoTime when it could
	// not be had.
	MTime int64
}

// NoTime is the MTime of an entry whose time could not be had: older than
// any.
const NoTime = math.MinInt64

// Visitor is called concurrently for the files (and, when it asks for them,
// the directories) the walk does not exclude. It gets its worker's own tally.
type Visitor func(e Entry, t *Tally)

// Walk visits the tree under start with the ignore rules of git, on several
// goroutines. workspace is the first workspace root ("" for none): outside a
// git repository its ignore files still apply from there down. dirs asks for
// directories too. maxDepth > 0 stops at entries that many levels down (a
// glob without "**" cannot match deeper); a directory at that depth is met
// and counted but not entered.
func Walk(ctx context.Context, workspace, start string, dirs bool, maxDepth int, visit Visitor) (*Tally, error) {
	return walk(ctx, walkSpec{workspace: workspace, start: start, dirs: dirs, maxDepth: maxDepth, visit: visit})
}

// walkSpec is what a walk is asked for: Walk's arguments, and what only
// the tools of this package ask for.
type walkSpec struct {
	workspace, start string
	dirs             bool
	maxDepth         int
	visit            Visitor
	// want, when set, picks the entries handed over by their Rel; the
	// others are counted (a file as a file) and cost no string: a glob
	// keeps a few of the tree's names.
	want func(rel string) bool
	// stat fills the MTime of the entries handed over, through the
	// descriptor their directory is listed from: no path is looked up.
	stat bool
	// rec, unless nil, records what the walk rests on: each directory
	// listed with the files it handed over, and the files and directories
	// above the start whose rules it read.
	rec *walkRecord
}

func walk(ctx context.Context, spec walkSpec) (*Tally, error) {
	start, workspace, rec := spec.start, spec.workspace, spec.rec
	top, inRepo := findGitRoot(start)
	if !inRepo {
		top = start
		if workspace != "" && Inside(workspace, start) {
			top = workspace
		}
	}
	r, consulted := baseRules(top, inRepo)
	// Ignore files between the top and the start apply to the start.
	path := "" // the start's path from the ignore root
	if rel, err := filepath.Rel(top, start); err == nil && rel != "." {
		dir := top
		for _, seg := range strings.Split(rel, string(filepath.Separator)) {
			r = r.with(dir, path, ignoreFiles[:])
			consulted = append(consulted, dir)
			for _, name := range ignoreFiles {
				consulted = append(consulted, filepath.Join(dir, name))
			}
			dir = filepath.Join(dir, seg)
			path = joinRel(path, seg)
			if r.ignored(seg, path, true) {
				// The caller named a directory the rules exclude: search it
				// (as ripgrep does with an explicit path), with only the
				// ignore files from there down.
				r = rules{fold: r.fold}
			}
		}
	}
	if rec != nil {
		rec.consulted(consulted)
	}
	w := &walker{ctx: ctx, walkSpec: spec, startPath: path}
	w.cond = sync.NewCond(&w.mu)
	w.queue = []dirJob{{abs: start, rel: "", rules: r}}
	w.pending = 1
	n := max(4, 2*runtime.GOMAXPROCS(0))
	tallies := make([]Tally, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var listed []dirRecord
			w.work(&tallies[i], &listed)
			if rec != nil {
				rec.add(listed)
			}
		}()
	}
	wg.Wait()
	total := &Tally{}
	for i := range tallies {
		total.merge(&tallies[i])
	}
	return total, ctx.Err()
}

// joinRel joins a "/"-separated relative path and a name.
func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// firstRoot returns the workspace root that relative paths resolve
// against, cleaned, or "" when the session has none.
func firstRoot(roots []string) string {
	if len(roots) == 0 {
		return ""
	}
	return filepath.Clean(roots[0])
}

// searchRoots resolves the directory (or file) grep and glob search: path,
// or with no path every workspace root (a root inside another is searched
// once, as part of the outer one).
func searchRoots(roots []string, path string) ([]string, error) {
	if path != "" || len(roots) < 2 {
		if path == "" {
			path = "."
		}
		abs, err := Resolve(roots, path)
		if err != nil {
			return nil, err
		}
		return []string{abs}, nil
	}
	var out []string
	for _, r := range roots {
		r = filepath.Clean(r)
		nested := false
		for _, o := range roots {
			if o = filepath.Clean(o); o != r && Inside(o, r) {
				nested = true
			}
		}
		if !nested && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

type dirJob struct {
	abs, rel string
	depth    int // levels below the start
	rules    rules
	files    *fileShare // if set, the job is not a directory but a share in the files of one directory
}

// fileShare is the files of one directory, handed out one at a time to
// every worker that takes a share: a directory of a thousand large files
// is searched by all the workers, not by the one that listed it.
type fileShare struct {
	files []Entry
	next  atomic.Int64 // the index of the next file to visit
}

// fanOut is how many files a directory needs before its files are shared
// with the other workers; fewer are visited by the worker that listed them,
// as sharing costs a wake-up of the idle workers.
const fanOut = 4

type walker struct {
	ctx context.Context
	walkSpec
	// startPath is the start's path from the ignore root ("" at the root):
	// an entry's path from there is startPath joined with its Rel.
	startPath string
	mu        sync.Mutex
	cond      *sync.Cond
	queue     []dirJob // a stack: depth first keeps the working set small
	pending   int      // jobs queued or running
}

func (w *walker) work(t *Tally, listed *[]dirRecord) {
	l := listing{fd: -1} // reused directory after directory
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && w.pending > 0 {
			w.cond.Wait()
		}
		if w.pending == 0 {
			w.mu.Unlock()
			return
		}
		job := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		w.mu.Unlock()

		var share *fileShare
		if job.files != nil {
			share = job.files
		} else {
			subdirs, dirs, files := w.dir(job, &l, t, listed)
			w.push(subdirs...) // entered by the others while this one goes on
			if w.stat {
				l.stamp(dirs)
				l.stamp(files)
			}
			l.close()
			for _, d := range dirs {
				w.visit(d, t)
			}
			if len(files) > 0 {
				share = &fileShare{files: files}
				if len(files) >= fanOut {
					w.push(dirJob{files: share})
				}
			}
		}
		if share != nil {
			w.visitFiles(share, t)
		}

		w.mu.Lock()
		if w.pending--; w.pending == 0 {
			w.cond.Broadcast()
		}
		w.mu.Unlock()
	}
}

// push queues jobs for the workers.
func (w *walker) push(jobs ...dirJob) {
	if len(jobs) == 0 {
		return
	}
	w.mu.Lock()
	w.queue = append(w.queue, jobs...)
	w.pending += len(jobs)
	w.cond.Broadcast()
	w.mu.Unlock()
}

// visitFiles visits the files of share not yet taken, one at a time.
func (w *walker) visitFiles(share *fileShare, t *Tally) {
	for {
		i := int(share.next.Add(1) - 1)
		if i >= len(share.files) {
			return
		}
		if i&63 == 63 && w.ctx.Err() != nil {
			return // a cancelled walk stops inside a large directory too
		}
		w.visit(share.files[i], t)
	}
}

// dir lists one directory, into the worker's listing l, which it leaves
// open, and classifies its entries. It returns its subdirectories to enter,
// and the directories (when the walk hands them over) and the files to
// visit, in the directory's order. A recording walk adds the directory to
// listed.
func (w *walker) dir(job dirJob, l *listing, t *Tally, listed *[]dirRecord) (subdirs []dirJob, dirs, files []Entry) {
	if w.ctx.Err() != nil {
		return nil, nil, nil
	}
	var st *unix.Stat_t
	if w.rec != nil {
		st = new(unix.Stat_t)
	}
	if err := l.list(job.abs, st); err != nil && len(l.entries) == 0 {
		t.add(ClassWalkError, job.abs)
		if w.rec != nil {
			// Becoming listable changes its stamp too.
			var lst unix.Stat_t
			d := dirRecord{abs: job.abs}
			if unix.Lstat(job.abs, &lst) == nil {
				d.stamp = stampOf(&lst)
			}
			*listed = append(*listed, d)
		}
		return nil, nil, nil
	}
	t.add(ClassDir, job.abs)
	r := job.rules
	var own []string
	for _, e := range l.entries {
		for _, name := range ignoreFiles {
			if e.typ.IsRegular() && string(l.name(e)) == name {
				own = append(own, name)
			}
		}
	}
	if len(own) > 1 && own[0] != ignoreFiles[0] {
		own[0], own[1] = own[1], own[0]
	}
	if len(own) > 0 {
		r = r.with(job.abs, joinRel(w.startPath, job.rel), own)
	}
	var unentered []string
	l.kept = l.kept[:0] // the files to hand over
	// An entry's absolute path is built in the listing's buffer, which
	// ends with its path from the start and its name; only an entry the
	// walk keeps gets it as a string of its own.
	l.path = append(append(l.path[:0], job.abs...), filepath.Separator)
	dirLen := len(l.path)
	relAt := dirLen
	if job.rel != "" {
		relAt -= len(job.rel) + 1
	}
	for i, e := range l.entries {
		if i&63 == 63 && w.ctx.Err() != nil {
			return nil, nil, nil // a cancelled walk stops inside a large directory too
		}
		l.path = append(l.path[:dirLen], l.name(e)...)
		abs := unsafe.String(unsafe.SliceData(l.path), len(l.path)) // until the next entry
		name, rel := abs[dirLen:], abs[relAt:]
		isDir := e.typ.IsDir()
		path := rel // from the ignore root, needed only by path patterns
		if r.paths && w.startPath != "" {
			path = w.startPath + "/" + rel
		}
		switch {
		case name == ".git":
			t.add(ClassVCSDir, abs)
		case e.typ&fs.ModeSymlink != 0:
			t.add(ClassSymlink, abs)
		case strings.HasPrefix(name, TempPrefix):
			t.add(ClassTemp, abs)
		case r.ignored(name, path, isDir):
			if isDir {
				t.add(ClassIgnoredDir, abs)
			} else {
				t.add(ClassIgnoredFile, abs)
			}
		case isDir:
			abs = strings.Clone(abs)
			name, rel = abs[dirLen:], abs[relAt:]
			if w.maxDepth > 0 && job.depth+1 >= w.maxDepth {
				t.add(ClassDir, abs) // met, not entered: nothing below can match
				unentered = append(unentered, name)
			} else {
				subdirs = append(subdirs, dirJob{abs: abs, rel: rel, depth: job.depth + 1, rules: r})
			}
			if w.dirs && (w.want == nil || w.want(rel)) {
				dirs = append(dirs, Entry{Abs: abs, Rel: rel, IsDir: true})
			}
		case e.typ.IsRegular():
			t.add(ClassFile, abs)
			if w.want == nil || w.want(rel) {
				l.kept = append(l.kept, int32(i))
			}
		default:
			t.add(ClassSpecial, abs)
		}
	}
	files = make([]Entry, len(l.kept)) // handed over whole: no growing copies
	for j, i := range l.kept {
		abs := job.abs + string(filepath.Separator) + string(l.name(l.entries[i]))
		files[j] = Entry{Abs: abs, Rel: abs[relAt:]}
	}
	if w.rec != nil {
		// The ignore files read, the directories handed over but not
		// listed (their times are shown), the files handed over.
		d := dirRecord{abs: job.abs, stamp: stampOf(st), listed: true, names: append(own, unentered...)}
		for _, f := range files {
			d.names = append(d.names, f.Abs[dirLen:])
		}
		*listed = append(*listed, d)
	}
	return subdirs, dirs, files
}
