package documents

import (
	"slices"
	"strings"
)

// matchTree counts a search's files with a match per directory, by shown
// path, without their names. A one-call page far down the list (skip
// 37,000 of the Linux tree's files that match "static") finds its files
// with it: pages are in byte order of the shown paths, which is the order
// of a walk that takes each directory's entries by name, a directory's
// name with a "/" after it. So the counts tell which subtrees lie wholly
// before the page, and only the directories on the way to the page have
// their own files looked at again. It holds a node per directory with a
// match, where a list of the names before the page grew with each file.
type matchTree struct {
	root matchDir
	// lastDir and lastNode are the directory the last file was added to:
	// a directory's files come one after another.
	lastDir  string
	lastNode *matchDir
}

type matchDir struct {
	name  string // the last part of its shown path
	own   int    // files with a match directly in it
	total int    // files with a match in it and below, once summed
	subs  []*matchDir
}

// add counts the file shown as show.
func (t *matchTree) add(show string) {
	i := strings.LastIndexByte(show, '/')
	if i < 0 {
		t.root.own++
		return
	}
	dir := show[:i]
	if t.lastNode == nil || dir != t.lastDir {
		t.lastDir, t.lastNode = strings.Clone(dir), t.root.sub(dir)
	}
	t.lastNode.own++
}

// sub is the node of the directory at the "/"-separated path below d,
// made on the way if it is not there yet.
func (d *matchDir) sub(path string) *matchDir {
	for {
		name, rest, more := strings.Cut(path, "/")
		var next *matchDir
		for _, s := range d.subs {
			if s.name == name {
				next = s
				break
			}
		}
		if next == nil {
			next = &matchDir{name: strings.Clone(name)}
			d.subs = append(d.subs, next)
		}
		if d = next; !more {
			return d
		}
		path = rest
	}
}

// finish sums the totals and puts each directory's subdirectories in page
// order. It is called once, after the last add.
func (t *matchTree) finish() { t.root.finish() }

func (d *matchDir) finish() int {
	d.total = d.own
	for _, s := range d.subs {
		d.total += s.finish()
	}
	slices.SortFunc(d.subs, func(a, b *matchDir) int { return strings.Compare(a.name+"/", b.name+"/") })
	return d.total
}

// page returns the shown paths of the files ranked start to start+n-1 in
// page order. own lists the files with a match directly in a directory, by
// name; the directory is given by the prefix of its files' shown paths
// ("" at the top, else ending in "/"). It is asked only for the
// directories whose own files may reach the page.
func (t *matchTree) page(start, n int, own func(prefix string) []string) []string {
	var out []string
	skip := start
	var visit func(d *matchDir, dir string)
	visit = func(d *matchDir, dir string) {
		if len(out) == n {
			return
		}
		if skip >= d.total {
			skip -= d.total
			return
		}
		prefix := dir
		if d != &t.root {
			prefix += "/"
		}
		var files []string
		if d.own > 0 {
			files = own(prefix)
			slices.Sort(files)
		}
		// The files and the subdirectories, merged by name as the page
		// orders them.
		subs := d.subs
		for len(out) < n && (len(files) > 0 || len(subs) > 0) {
			if len(subs) == 0 || len(files) > 0 && files[0] < subs[0].name+"/" {
				if skip > 0 {
					skip--
				} else {
					out = append(out, prefix+files[0])
				}
				files = files[1:]
				continue
			}
			visit(subs[0], prefix+subs[0].name)
			subs = subs[1:]
		}
	}
	visit(&t.root, "")
	return out
}
