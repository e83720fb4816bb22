package documents

import "io/fs"

// listing is one directory's entries as the walk reads them: every name in
// one byte buffer that the worker reuses directory after directory, so a
// listing costs no allocation per entry. Only the entries the walk keeps
// get a string, their absolute path.
type listing struct {
	names   []byte
	entries []listed
	buf     []byte // what the system's directory reads fill, where list reads them raw
}

// listed is one entry of a listing: its name, names[from:to], and its
// type bits (fs.ModeDir, fs.ModeSymlink, ...; 0 for a regular file).
type listed struct {
	from, to int32
	typ      fs.FileMode
}

func (l *listing) reset() {
	l.names, l.entries = l.names[:0], l.entries[:0]
}

func (l *listing) add(name []byte, typ fs.FileMode) {
	from := len(l.names)
	l.names = append(l.names, name...)
	l.entries = append(l.entries, listed{from: int32(from), to: int32(len(l.names)), typ: typ})
}

func (l *listing) name(e listed) []byte { return l.names[e.from:e.to] }
