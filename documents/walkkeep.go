package documents

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// A session keeps its last directory grep and its last glob, with a record
// of the walk behind them, so that the next page of the same search is
// served without walking the tree again. A kept search is served only while
// nothing it rests on changed: every directory the walk listed has the
// same identity and change time (an entry created, deleted or renamed in it
// changes that), every file it handed over or ignore file it read has not
// changed since just before the walk began (a write, even one that keeps the
// size and puts the old modification time back, sets the change time, which
// no program can set), the ignore and git configuration files above the
// walk are as they were, and the editor's buffers are as they were. Anything
// else walks again.

// changeMargin is how long before a walk began a file's change time may lie
// and still count as a change since: the kernel stamps files with a clock
// that may lag the one read here by a tick, and some file systems keep
// times in whole seconds (two for FAT). A variable for the tests, whose
// files all live on one clock of nanoseconds.
var changeMargin = 2 * time.Second

// keptBytesMax bounds what one kept search holds (its record and results);
// a larger search is not kept, and each of its pages walks again.
const keptBytesMax = 24 << 20

// stamp identifies one version of a file or directory: any change to its
// content, its entries or its metadata gives another.
type stamp struct {
	ok         bool // it existed
	dev, ino   uint64
	ctime      int64 // change time, nanoseconds
	size, mode int64
}

func stampOf(st *unix.Stat_t) stamp {
	return stamp{ok: true, dev: uint64(st.Dev), ino: st.Ino, ctime: st.Ctim.Nano(), size: st.Size, mode: int64(st.Mode)}
}

// statStamp is the stamp of path, following a symbolic link as reading the
// file does.
func statStamp(path string) stamp {
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil {
		return stamp{}
	}
	return stampOf(&st)
}

// walkRecord is what a walk rests on, recorded as it goes.
type walkRecord struct {
	began time.Time
	mu    sync.Mutex
	dirs  []dirRecord
	other []pathStamp // files and directories consulted above the walk
	bytes int
}

// dirRecord is one directory the walk met: its stamp, taken before it was
// listed, and the files in it whose content the results rest on.
type dirRecord struct {
	abs    string
	stamp  stamp
	listed bool     // false: it could not be listed (its stamp is then from stat)
	names  []string // the files handed over, and the ignore files read, in it
}

type pathStamp struct {
	path  string
	stamp stamp
}

func newWalkRecord() *walkRecord { return &walkRecord{began: time.Now()} }

// add takes the directories one worker of a walk recorded.
func (r *walkRecord) add(dirs []dirRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range dirs {
		r.bytes += len(d.abs) + 64
		for _, n := range d.names {
			r.bytes += len(n) + 16
		}
	}
	r.dirs = append(r.dirs, dirs...)
}

// consulted stamps the files and directories the walk read above its start:
// git's configuration and exclude files, the ignore files on the way down,
// the directories on the way.
func (r *walkRecord) consulted(paths []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range paths {
		r.other = append(r.other, pathStamp{p, statStamp(p)})
		r.bytes += len(p) + 64
	}
}

// fresh reports whether nothing the walk rests on has changed since. It
// stats every directory and file of the record, on every core: a fraction
// of the walk's cost, which also read and matched.
func (r *walkRecord) fresh() bool {
	before := r.began.Add(-changeMargin).UnixNano()
	for _, o := range r.other {
		// Stamped after it was read: unchanged, and older than the walk.
		if now := statStamp(o.path); now != o.stamp || now.ok && now.ctime >= before {
			return false
		}
	}
	var next atomic.Int64
	var stale atomic.Bool
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(r.dirs) && !stale.Load(); i = int(next.Add(1) - 1) {
				if !r.dirs[i].unchanged(before) {
					stale.Store(true)
				}
			}
		})
	}
	wg.Wait()
	return !stale.Load()
}

// unchanged reports whether d is as the walk met it, and its files have not
// changed since the time before.
func (d *dirRecord) unchanged(before int64) bool {
	var st unix.Stat_t
	if !d.listed {
		return unix.Lstat(d.abs, &st) == nil && stampOf(&st) == d.stamp
	}
	fd, err := unix.Open(d.abs, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	if unix.Fstat(fd, &st) != nil || stampOf(&st) != d.stamp {
		return false
	}
	for _, name := range d.names {
		if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Ctim.Nano() >= before {
			return false
		}
	}
	return true
}

// keptSearch is a session's last search of one tool, with its results as
// the walk left them, before any page was cut from them.
type keptSearch struct {
	key     string // the request but its page, and the roots
	walk    *walkRecord
	buffers uint64 // the overlay's generation before the walk
	tally   Tally
	matched *fileNames   // grep: the files with a match, in path order
	found   *globMatches // glob: the matching paths, in page order
	served  int          // pages served from it
}

// keeper is how one call reaches its session's kept search of one tool.
type keeper struct {
	store *Store
	slot  **keptSearch // the store's field for the tool
	key   string
	gen   uint64
}

// keeperFor returns the keeper of slot in s for a request key, nil when the
// session keeps nothing (it serves one call).
func (s *Store) keeperFor(slot **keptSearch, key string, buffers *Overlay) *keeper {
	if s == nil || s.oneCall {
		return nil
	}
	return &keeper{store: s, slot: slot, key: key, gen: buffers.Generation()}
}

// take returns the kept search for the key if nothing it rests on changed,
// else nil (and forgets it: it will not be served again).
func (k *keeper) take() *keptSearch {
	if k == nil {
		return nil
	}
	k.store.b.mu.Lock()
	kept := *k.slot
	k.store.b.mu.Unlock()
	if kept == nil || kept.key != k.key {
		return nil
	}
	fresh := kept.buffers == k.gen && kept.walk.fresh()
	k.store.b.mu.Lock()
	defer k.store.b.mu.Unlock()
	switch {
	case !fresh && *k.slot == kept:
		*k.slot = nil
	case fresh:
		kept.served++
	}
	if !fresh {
		return nil
	}
	return kept
}

// record returns the record for a walk to fill, nil when nothing is kept.
func (k *keeper) record() *walkRecord {
	if k == nil {
		return nil
	}
	return newWalkRecord()
}

// keep makes kept the session's search for the tool, if it is small enough.
func (k *keeper) keep(kept *keptSearch) {
	if k == nil || kept.walk == nil {
		return
	}
	size := kept.walk.bytes
	if kept.matched != nil {
		size += kept.matched.bytes()
	}
	if kept.found != nil {
		size += kept.found.bytes()
	}
	kept.key, kept.buffers = k.key, k.gen
	if kept.matched != nil {
		kept.matched.sort()
	}
	k.store.b.mu.Lock()
	defer k.store.b.mu.Unlock()
	if k.store.closed {
		return
	}
	if size > keptBytesMax {
		*k.slot = nil
		return
	}
	*k.slot = kept
}
