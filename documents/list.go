package documents

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// listing is one directory's entries as the walk reads them: every name in
// one byte buffer that the worker reuses directory after directory, so a
// listing costs no allocation per entry. Only the entries the walk keeps
// get a string, their absolute path.
type listing struct {
	names   []byte
	entries []listed
	buf     []byte  // what the system's directory reads fill, where list reads them raw
	path    []byte  // the walk builds an entry's path here
	kept    []int32 // the walk notes here the entries it hands over
	// fd is the directory listed, open until close; file holds it where
	// it is read through the os package.
	fd   int
	file *os.File
}

// listed is one entry of a listing: its name, names[from:to], and its
// type bits (fs.ModeDir, fs.ModeSymlink, ...; 0 for a regular file).
type listed struct {
	from, to int32
	typ      fs.FileMode
}

func (l *listing) reset() {
	l.names, l.entries = l.names[:0], l.entries[:0]
	l.fd, l.file = -1, nil
}

// close closes the directory list opened.
func (l *listing) close() {
	switch {
	case l.file != nil:
		l.file.Close()
	case l.fd >= 0:
		unix.Close(l.fd)
	}
	l.fd, l.file = -1, nil
}

// stamp fills the MTime of entries of the open directory (an lstat's,
// through its descriptor: no path is looked up), NoTime when it cannot be
// had.
func (l *listing) stamp(entries []Entry) {
	var st unix.Stat_t
	for i := range entries {
		e := &entries[i]
		name := e.Abs[strings.LastIndexByte(e.Abs, filepath.Separator)+1:]
		e.MTime = NoTime
		if l.fd >= 0 && unix.Fstatat(l.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			e.MTime = st.Mtim.Nano()
		}
	}
}

func (l *listing) add(name []byte, typ fs.FileMode) {
	from := len(l.names)
	l.names = append(l.names, name...)
	l.entries = append(l.entries, listed{from: int32(from), to: int32(len(l.names)), typ: typ})
}

func (l *listing) name(e listed) []byte { return l.names[e.from:e.to] }
