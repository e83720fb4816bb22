package mcpclient

import (
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// ConfigWatch watches the files that name servers, so that a server added
// to a project's .mcp.json (as `tandem mcp install` does) or to the user's
// settings is reachable without restarting the editor.
type ConfigWatch struct {
	w    *fsnotify.Watcher
	done sync.WaitGroup
}

// WatchConfig calls changed, with whether the user's file was the one, each
// time a file that names servers changes, appears or goes: the workspace
// files of roots (Load's) and userFile ("" for none). fsnotify watches
// directories, so it watches each root, its .vscode and .cursor, and the
// user file's directory; a .vscode or .cursor made later is watched from
// then on. The error is fsnotify's when no watcher can be made.
func WatchConfig(roots []string, userFile string, changed func(user bool)) (*ConfigWatch, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	files := map[string]bool{} // a file that names servers → whether it is the user's
	subdirs := map[string]bool{}
	for _, root := range roots {
		_ = w.Add(root)
		for _, f := range workspaceFiles {
			path := filepath.Join(root, f.rel)
			files[path] = false
			if dir := filepath.Dir(path); dir != root {
				subdirs[dir] = true
				_ = w.Add(dir) // absent until made: then the root's event adds it
			}
		}
	}
	if userFile != "" {
		files[userFile] = true
		_ = w.Add(filepath.Dir(userFile))
	}
	cw := &ConfigWatch{w: w}
	cw.done.Add(1)
	go func() {
		defer cw.done.Done()
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if subdirs[ev.Name] && ev.Has(fsnotify.Create) {
					// Its files may be written before the watch holds.
					_ = w.Add(ev.Name)
					changed(false)
					continue
				}
				if user, ok := files[ev.Name]; ok {
					changed(user)
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				changed(userFile != "") // events were lost: read everything again
			}
		}
	}()
	return cw, nil
}

// Close stops watching; no call of changed runs after it returns.
func (cw *ConfigWatch) Close() {
	_ = cw.w.Close()
	cw.done.Wait()
}
