package agent

import (
	"container/list"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/tandemdev/tandem/documents"
)

// DefaultMaxWatchedDirs bounds the directories one process watches for its
// chats: an editor watching a big tree already holds most of the user's
// inotify watches, and a chat reading its way through a tree must not take
// the rest. Beyond it, the least recently read directories are dropped and
// their files checked by stat.
const DefaultMaxWatchedDirs = 1024

// Watches tells chats that files they read changed under them. Where the
// editor reports changes under a root (workspace/didChangeWatchedFiles),
// its events are used; elsewhere one fsnotify instance per process, shared
// by its chats, watches the directories of the files read, at most maxDirs
// of them. A file whose directory has no watch — none could be made or
// added, or it was dropped beyond the bound — is checked by stat at each
// model request instead, so a change is never missed, only found later.
type Watches struct {
	fw      *fsnotify.Watcher  // nil when the system refused one
	addDir  func(string) error // fw.Add; replaced in tests by a kernel out of watches
	maxDirs int

	mu      sync.Mutex
	log     *slog.Logger
	dirs    map[string]*list.Element // the watched directories, in lru
	lru     *list.List               // most recently read at the front
	editor  []string                 // roots whose changes the editor reports
	chats   map[*watcher]bool
	problem string // why some files are checked by stat; logged once
	logged  bool
}

var sharedWatches = sync.OnceValue(func() *Watches { return NewWatches(DefaultMaxWatchedDirs) })

// SharedWatches is the process's one Watches, which chats use unless their
// Options name another.
func SharedWatches() *Watches { return sharedWatches() }

// NewWatches makes a Watches holding at most maxDirs directory watches.
func NewWatches(maxDirs int) *Watches {
	ws := &Watches{maxDirs: maxDirs, dirs: map[string]*list.Element{}, lru: list.New(), chats: map[*watcher]bool{}}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		ws.setProblem(fmt.Sprintf("no file watcher could be made (%v)", err))
		return ws
	}
	ws.fw = fw
	ws.addDir = fw.Add
	go ws.run()
	return ws
}

// SetLog names where the first reason files are checked by stat is logged.
func (ws *Watches) SetLog(l *slog.Logger) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.log = l
	ws.tell()
}

// Problem says why some files read are checked by stat rather than
// watched, or "" when every one is watched.
func (ws *Watches) Problem() string {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.problem
}

func (ws *Watches) setProblem(p string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.setProblemLocked(p)
}

func (ws *Watches) setProblemLocked(p string) {
	if ws.problem == "" {
		ws.problem = p
		ws.tell()
	}
}

// tell logs the problem once, when there is one and a log to tell.
func (ws *Watches) tell() {
	if ws.problem != "" && ws.log != nil && !ws.logged {
		ws.logged = true
		ws.log.Warn("changed files are found by stat at each model request, not watched: " + ws.problem)
	}
}

// EditorReports says the editor reports every change under roots (it took
// tandem's registration for workspace/didChangeWatchedFiles on **/*): their
// directories need no watch of tandem's own, and those they had are freed.
func (ws *Watches) EditorReports(roots []string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.editor = append(ws.editor, roots...)
	for dir, e := range ws.dirs {
		if ws.byEditor(dir) {
			ws.drop(dir, e)
		}
	}
}

// Changed takes the editor's report that files changed on disk.
func (ws *Watches) Changed(paths []string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, p := range paths {
		ws.mark(p)
	}
}

// byEditor says whether the editor reports the changes in dir: under its
// roots, but not where editors leave out by default (VS Code's
// files.watcherExclude: .git's objects, node_modules' packages, .hg's
// store), where tandem watches for itself.
func (ws *Watches) byEditor(dir string) bool {
	for _, r := range ws.editor {
		rel, err := filepath.Rel(r, dir)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
			if part == ".git" || part == "node_modules" || part == ".hg" {
				return false
			}
		}
		return true
	}
	return false
}

// watch makes sure someone reports changes in dir, and says whether
// someone does; dir becomes the most recently read.
func (ws *Watches) watch(dir string) bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.byEditor(dir) {
		return true
	}
	if e, ok := ws.dirs[dir]; ok {
		ws.lru.MoveToFront(e)
		return true
	}
	if ws.fw == nil {
		return false
	}
	if err := ws.addDir(dir); err != nil {
		ws.setProblemLocked(fmt.Sprintf("a watch on %s could not be added (%v); raise the limit, e.g. sysctl fs.inotify.max_user_watches=524288", dir, err))
		return false
	}
	if ws.lru.Len() >= ws.maxDirs {
		oldest := ws.lru.Back()
		ws.drop(oldest.Value.(string), oldest)
		ws.setProblemLocked(fmt.Sprintf("more than %d directories were read; the least recently read ones are checked by stat", ws.maxDirs))
	}
	ws.dirs[dir] = ws.lru.PushFront(dir)
	return true
}

func (ws *Watches) drop(dir string, e *list.Element) {
	_ = ws.fw.Remove(dir)
	ws.lru.Remove(e)
	delete(ws.dirs, dir)
}

// watched says whether someone reports changes in dir.
func (ws *Watches) watched(dir string) bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	_, ok := ws.dirs[dir]
	return ok || ws.byEditor(dir)
}

func (ws *Watches) mark(path string) {
	for c := range ws.chats {
		c.mark(path)
	}
}

func (ws *Watches) run() {
	for {
		select {
		case ev, ok := <-ws.fw.Events:
			if !ok {
				return
			}
			ws.mu.Lock()
			if e, ok := ws.dirs[ev.Name]; ok && ev.Has(fsnotify.Remove|fsnotify.Rename) {
				// The directory itself went: its watch went with it.
				ws.lru.Remove(e)
				delete(ws.dirs, ev.Name)
			}
			ws.mark(ev.Name)
			ws.mu.Unlock()
		case _, ok := <-ws.fw.Errors:
			if !ok {
				return
			}
			// An overflow loses events: every chat checks every file next time.
			ws.mu.Lock()
			for c := range ws.chats {
				c.markAll()
			}
			ws.mu.Unlock()
		}
	}
}

// watcher is one chat's part: the files it read, and which of them an event
// named since its last model request.
type watcher struct {
	hub *Watches

	mu    sync.Mutex
	files map[string]bool          // the files the chat read or wrote
	dirty map[string]bool          // files an event named since the last report
	told  map[string]documents.Tag // what the model was last told of a file: once per change
	stamp map[string]stamp         // of files checked by stat: what the last check saw
}

// stamp is what a stat check compares: a save changes one of these.
type stamp struct {
	size    int64
	mod     time.Time
	changed time.Time // the inode's change time, where the system has one
}

func newWatcher(hub *Watches) *watcher {
	w := &watcher{hub: hub, files: map[string]bool{}, dirty: map[string]bool{}, told: map[string]documents.Tag{}, stamp: map[string]stamp{}}
	hub.mu.Lock()
	hub.chats[w] = true
	hub.mu.Unlock()
	return w
}

func (w *watcher) mark(path string) {
	w.mu.Lock()
	if w.files[path] {
		w.dirty[path] = true
	}
	w.mu.Unlock()
}

func (w *watcher) markAll() {
	w.mu.Lock()
	for f := range w.files {
		w.dirty[f] = true
	}
	w.mu.Unlock()
}

// add starts watching path, a file the chat read or wrote.
func (w *watcher) add(path string) {
	w.mu.Lock()
	w.files[path] = true
	w.mu.Unlock()
	w.hub.watch(filepath.Dir(path))
}

// changed lists the files whose bytes are now no version the chat has
// seen (or which are gone), shown as the model names them.
func (w *watcher) changed(seen *documents.Store, roots []string) []string {
	w.mu.Lock()
	check := w.dirty
	w.dirty = map[string]bool{}
	var unwatched []string
	for f := range w.files {
		if !check[f] {
			unwatched = append(unwatched, f)
		}
	}
	w.mu.Unlock()
	for _, f := range unwatched {
		if w.hub.watched(filepath.Dir(f)) {
			continue
		}
		now, _ := stampOf(f)
		w.mu.Lock()
		before, ok := w.stamp[f]
		w.stamp[f] = now
		w.mu.Unlock()
		if !ok || before != now {
			check[f] = true
		}
	}
	var out []string
	for p := range check {
		b, err := os.ReadFile(p)
		if err != nil && !os.IsNotExist(err) {
			continue
		}
		tag := documents.Tag("deleted")
		if err == nil {
			if seen.SawBytes(p, b) {
				continue
			}
			tag = documents.TagOf(b)
		}
		w.mu.Lock()
		already := w.told[p] == tag
		w.told[p] = tag
		w.mu.Unlock()
		switch {
		case already:
		case err != nil:
			out = append(out, documents.Display(roots, p)+" (deleted)")
		default:
			out = append(out, documents.Display(roots, p))
		}
	}
	sort.Strings(out)
	return out
}

func stampOf(path string) (stamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return stamp{}, err
	}
	return stamp{size: fi.Size(), mod: fi.ModTime(), changed: changeTime(fi)}, nil
}

func (w *watcher) close() {
	w.hub.mu.Lock()
	delete(w.hub.chats, w)
	w.hub.mu.Unlock()
}

// noteShows is how many changed files the note names; a branch switch can
// change hundreds, and the model needs the count and where to look, not a
// 17 KB line.
const noteShows = 10

// changeNote is the one line that tells the model which files changed.
func changeNote(files []string) string {
	if len(files) <= noteShows {
		return "(Changed since you last read them, by someone else: " + strings.Join(files, ", ") + ". Read them again before you edit them.)"
	}
	return "(" + strconv.Itoa(len(files)) + " files you read changed since, by someone else (a branch switch or a build?); the first " +
		strconv.Itoa(noteShows) + " by path: " + strings.Join(files[:noteShows], ", ") + ", and " + strconv.Itoa(len(files)-noteShows) +
		" more. `git status --short` lists them in a git work tree, and a read shows any file's current tag. Read a file again before you edit it.)"
}
