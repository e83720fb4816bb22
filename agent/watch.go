package agent

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/fsnotify/fsnotify"

	"github.com/tandemdev/tandem/documents"
)

// watcher notices the files a chat has read changing under it — the user
// saving in another window, a formatter, a build — so that at the next
// model request the model is told, in one line, to read them again before
// it edits, instead of meeting a stale tag. fsnotify is not recursive: each
// directory is watched when the chat first reaches a file in it.
type watcher struct {
	w *fsnotify.Watcher // nil when the system refused one: then every known file is checked

	mu    sync.Mutex
	dirs  map[string]bool
	files map[string]bool          // the files the chat read or wrote
	dirty map[string]bool          // files an event named since the last report
	told  map[string]documents.Tag // what the model was last told of a file: once per change
}

func newWatcher() *watcher {
	w := &watcher{dirs: map[string]bool{}, files: map[string]bool{}, dirty: map[string]bool{}, told: map[string]documents.Tag{}}
	if fw, err := fsnotify.NewWatcher(); err == nil {
		w.w = fw
		go w.run()
	}
	return w
}

func (w *watcher) run() {
	for {
		select {
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			w.mu.Lock()
			if w.files[ev.Name] {
				w.dirty[ev.Name] = true
			}
			w.mu.Unlock()
		case _, ok := <-w.w.Errors:
			if !ok {
				return
			}
			// An overflow loses events: check every known file next time.
			w.mu.Lock()
			for f := range w.files {
				w.dirty[f] = true
			}
			w.mu.Unlock()
		}
	}
}

// add starts watching path, a file the chat read or wrote.
func (w *watcher) add(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files[path] = true
	if w.w == nil {
		w.dirty[path] = true
		return
	}
	if dir := filepath.Dir(path); !w.dirs[dir] {
		if err := w.w.Add(dir); err == nil {
			w.dirs[dir] = true
		}
	}
}

// changed lists the files whose bytes are now no version the chat has
// seen (or which are gone), shown as the model names them.
func (w *watcher) changed(seen *documents.Store, roots []string) []string {
	w.mu.Lock()
	dirty := w.dirty
	w.dirty = map[string]bool{}
	if w.w == nil {
		for f := range w.files {
			w.dirty[f] = true
		}
	}
	w.mu.Unlock()
	var out []string
	for p := range dirty {
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

func (w *watcher) close() {
	if w.w != nil {
		_ = w.w.Close()
	}
}

// changeNote is the one line that tells the model which files changed.
func changeNote(files []string) string {
	return "(Changed since you last read them, by someone else: " + strings.Join(files, ", ") + ". Read them again before you edit them.)"
}
