package documents

import (
	"path/filepath"
	"sync"
)

// versionsKept is how many versions of one file a session remembers:
// an edit based on one of them can be rebased; older tags must be read again.
const versionsKept = 8

// storeBytesKept bounds the bytes of all versions one session remembers, so a
// long session that reads thousands of files does not grow without end. Past
// it the versions used least recently are forgotten; an edit on a forgotten
// tag is told to read the file again, as for any unknown tag.
const storeBytesKept = 256 << 20

// Store is one session's memory of what the model has seen: for each file the
// last versions it was shown (by tag, with their bytes) and, per version, the
// line numbers whose rows actually reached the model. Edits anchor only on
// seen lines. Safe for concurrent use.
type Store struct {
	mu       sync.Mutex
	files    map[string][]*version // newest last
	bytes    int                   // total text of all versions
	maxBytes int
	clock    uint64 // counts uses, for forgetting the least recently used
}

type version struct {
	tag  Tag
	text []byte
	seen lineSet
	used uint64
}

// NewStore returns an empty store for a new session.
func NewStore() *Store {
	return &Store{files: make(map[string][]*version), maxBytes: storeBytesKept}
}

// Saw records that the model was shown (part of) text as the content of path
// and returns its tag. Seeing a version again moves it to the newest place.
func (s *Store) Saw(path string, text []byte) Tag {
	path = filepath.Clean(path)
	tag := TagOf(text)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clock++
	vs := s.files[path]
	for i, v := range vs {
		if v.tag == tag {
			vs = append(append(vs[:i:i], vs[i+1:]...), v)
			v.used = s.clock
			s.files[path] = vs
			return tag
		}
	}
	vs = append(vs, &version{tag: tag, text: text, used: s.clock})
	s.bytes += len(text)
	if len(vs) > versionsKept {
		for _, old := range vs[:len(vs)-versionsKept] {
			s.bytes -= len(old.text)
		}
		vs = vs[len(vs)-versionsKept:]
	}
	s.files[path] = vs
	for s.bytes > s.maxBytes && s.forgetOldest(path, tag) {
	}
	return tag
}

// forgetOldest drops the least recently used version other than the one
// just seen (keepPath, keepTag). It reports whether it dropped one.
func (s *Store) forgetOldest(keepPath string, keepTag Tag) bool {
	var oldPath string
	oldIndex := -1
	var oldUsed uint64
	for p, vs := range s.files {
		for i, v := range vs {
			if (p == keepPath && v.tag == keepTag) || (oldIndex >= 0 && v.used >= oldUsed) {
				continue
			}
			oldPath, oldIndex, oldUsed = p, i, v.used
		}
	}
	if oldIndex < 0 {
		return false
	}
	vs := s.files[oldPath]
	s.bytes -= len(vs[oldIndex].text)
	vs = append(vs[:oldIndex:oldIndex], vs[oldIndex+1:]...)
	if len(vs) == 0 {
		delete(s.files, oldPath)
	} else {
		s.files[oldPath] = vs
	}
	return true
}

// MarkSeen records that rows of the given 1-based line numbers of the tagged
// version reached the model. Unknown versions are ignored.
func (s *Store) MarkSeen(path string, tag Tag, lines ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.find(filepath.Clean(path), tag); v != nil {
		for _, n := range lines {
			v.seen.add(n)
		}
	}
}

// MarkSeenRange marks lines from..to (inclusive, 1-based) seen.
func (s *Store) MarkSeenRange(path string, tag Tag, from, to int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.find(filepath.Clean(path), tag); v != nil {
		for n := from; n <= to; n++ {
			v.seen.add(n)
		}
	}
}

// Version returns the bytes of a version the session saw.
func (s *Store) Version(path string, tag Tag) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.find(filepath.Clean(path), tag); v != nil {
		return v.text, true
	}
	return nil, false
}

// Seen reports whether line n (1-based) of the tagged version reached the model.
func (s *Store) Seen(path string, tag Tag, n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.find(filepath.Clean(path), tag)
	return v != nil && v.seen.has(n)
}

// SeenLines returns, for the tagged version, whether each line 1..n reached
// the model (index 0 is line 1): one lookup for a whole file, where an edit
// of a large file would otherwise ask line by line.
func (s *Store) SeenLines(path string, tag Tag, n int) []bool {
	out := make([]bool, n)
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.find(filepath.Clean(path), tag); v != nil {
		for i := range out {
			out[i] = v.seen.has(i + 1)
		}
	}
	return out
}

// SawBytes reports whether content is a version of path this session saw.
func (s *Store) SawBytes(path string, content []byte) bool {
	_, ok := s.Version(path, TagOf(content))
	return ok
}

// Latest returns the tag of the version of path the session saw last.
func (s *Store) Latest(path string) (Tag, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	vs := s.files[filepath.Clean(path)]
	if len(vs) == 0 {
		return "", false
	}
	return vs[len(vs)-1].tag, true
}

func (s *Store) find(path string, tag Tag) *version {
	for _, v := range s.files[path] {
		if v.tag == tag {
			s.clock++
			v.used = s.clock
			return v
		}
	}
	return nil
}

// lineSet is a bitset of 1-based line numbers.
type lineSet []uint64

func (b *lineSet) add(n int) {
	if n < 1 {
		return
	}
	w := n / 64
	for len(*b) <= w {
		*b = append(*b, 0)
	}
	(*b)[w] |= 1 << (n % 64)
}

func (b lineSet) has(n int) bool {
	w := n / 64
	return n >= 1 && w < len(b) && b[w]&(1<<(n%64)) != 0
}
