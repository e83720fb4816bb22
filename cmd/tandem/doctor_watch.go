package main

import (
	"fmt"

	"github.com/fsnotify/fsnotify"

	"github.com/tandemdev/tandem/agent"
)

// raiseWatches is the fix for a machine out of file watches.
const raiseWatches = "raise the limit: sudo sysctl fs.inotify.max_user_watches=524288 (and a line in /etc/sysctl.d/ to keep it); until then tandem checks the files a chat read by stat at each model request"

// fileWatchCheck says whether tandem can watch the files a chat reads for
// changes made by others, or must check them by stat: no watcher can be
// made, the workspace cannot be watched, or the user's processes hold so
// many watches that a chat's would soon fail.
func fileWatchCheck(workspace string) check {
	const name = "file watching"
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return check{name: name, info: fmt.Sprintf("no file watcher can be made (%v)", err), fix: raiseWatches}
	}
	defer w.Close()
	if err := w.Add(workspace); err != nil {
		return check{name: name, info: fmt.Sprintf("a watch on %s cannot be added (%v)", workspace, err), fix: raiseWatches}
	}
	used, limit, ok := watchesInUse()
	if !ok {
		return check{name: name, ok: true, info: "files a chat read are watched for changes by others"}
	}
	info := fmt.Sprintf("%d of the %d inotify watches a user may hold are in use by your processes", used, limit)
	if limit-used < agent.DefaultMaxWatchedDirs {
		return check{name: name, info: info + fmt.Sprintf("; fewer than the %d a tandem process may take are left", agent.DefaultMaxWatchedDirs), fix: raiseWatches}
	}
	return check{name: name, ok: true, info: info}
}
