package documents

import (
	"container/list"
	"path/filepath"
	"slices"
	"sync"
)

// versionsKept is how many versions of one file a session remembers:
// an edit based on one of them can be rebased; older tags must be read again.
const versionsKept = 8

// SeenBytesKept is the bound a process gives the versions its sessions
// remember together (see Budget): enough for dozens of files at the size
// limit, far below what the sessions of one process could otherwise gather
// (six sessions paging grep through large files held over a gigabyte).
const SeenBytesKept = 256 << 20

// Budget bounds the bytes of all the versions the stores sharing it
// remember, so sessions together cannot grow without end. Past the bound the
// versions used least recently are forgotten, whichever store holds them; an
// edit on a forgotten tag is told to read the file again, as for any unknown
// tag. A store gives its bytes back when it closes. Safe for concurrent use.
type Budget struct {
	mu    sync.Mutex // guards the budget and every store that shares it
	max   int
	bytes int       // total text of all versions of all its stores
	lru   list.List // every version, used least recently first
}

// NewBudget returns a budget of maxBytes for the stores to share.
func NewBudget(maxBytes int) *Budget {
	return &Budget{max: maxBytes}
}

// Store is one session's memory of what the model has seen: for each file the
// last versions it was shown (by tag, with their bytes) and, per version, the
// line numbers whose rows actually reached the model. Edits anchor only on
// seen lines. Safe for concurrent use.
type Store struct {
	b      *Budget
	files  map[string][]*version // newest last
	closed bool
	// grepNext is where the last directory grep's next page starts.
	grepNext grepCursor
	// grepKept and globKept are the last directory grep and glob with
	// more pages, kept to serve those pages (walkkeep.go).
	grepKept, globKept *keptSearch
	// oneCall means the session serves one call and then ends
	// (NewStoreForOneCall).
	oneCall bool
}

type version struct {
	tag  Tag
	text []byte
	seen lineSet
	// windows are the columns (1-based bytes) of long lines that reached
	// the model in a read's window row: no row shows such a line whole,
	// but an old/new edit inside what was shown changes nothing unseen.
	windows map[int][]Span
	// where the version is: its store, its path there, its place in the
	// budget's order of use
	store *Store
	path  string
	use   *list.Element
}

// NewStore returns an empty store for a new session that shares b.
func (b *Budget) NewStore() *Store {
	return &Store{b: b, files: make(map[string][]*version)}
}

// NewStore returns an empty store with a budget of its own, SeenBytesKept:
// for a store that is the only one of its process.
func NewStore() *Store {
	return NewBudget(SeenBytesKept).NewStore()
}

// NewStoreForOneCall returns a store for a session that serves one call
// and ends (tandem tool): no later call can use what it shows, so a grep
// there need not hold its page's files to record them.
func NewStoreForOneCall() *Store {
	s := NewStore()
	s.oneCall = true
	return s
}

// Saw records that the model was shown (part of) text as the content of path
// and returns its tag. Seeing a version again moves it to the newest place.
// A closed store returns the tag and remembers nothing.
func (s *Store) Saw(path string, text []byte) Tag {
	tag := TagOf(text)
	s.sawTagged(path, tag, text)
	return tag
}

// sawTagged is Saw of text whose tag the caller has already computed.
func (s *Store) sawTagged(path string, tag Tag, text []byte) {
	path = filepath.Clean(path)
	b := s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.closed {
		return
	}
	vs := s.files[path]
	for i, v := range vs {
		if v.tag == tag {
			s.files[path] = append(append(vs[:i:i], vs[i+1:]...), v)
			b.lru.MoveToBack(v.use)
			return
		}
	}
	v := &version{tag: tag, text: text, store: s, path: path}
	v.use = b.lru.PushBack(v)
	b.bytes += len(text)
	s.files[path] = append(vs, v)
	for _, old := range s.files[path][:max(0, len(vs)+1-versionsKept)] {
		b.forget(old)
	}
	for b.bytes > b.max && b.lru.Front() != v.use {
		b.forget(b.lru.Front().Value.(*version))
	}
}

// forget drops v from its store and gives its bytes back.
func (b *Budget) forget(v *version) {
	b.lru.Remove(v.use)
	b.bytes -= len(v.text)
	vs := v.store.files[v.path]
	i := slices.Index(vs, v)
	vs = append(vs[:i:i], vs[i+1:]...)
	if len(vs) == 0 {
		delete(v.store.files, v.path)
	} else {
		v.store.files[v.path] = vs
	}
}

// Close forgets every version of the store and gives their bytes back to its
// budget: the session has ended, and other sessions may use them.
func (s *Store) Close() {
	s.Forget()
	s.b.mu.Lock()
	s.closed = true
	s.b.mu.Unlock()
}

// Forget forgets every version the store remembers, as if the model had
// seen nothing yet: what it was shown is no longer in its context (the
// chat was cut back), so an edit must read again before it anchors.
func (s *Store) Forget() {
	b := s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, vs := range s.files {
		for _, v := range vs {
			b.forget(v)
		}
	}
	s.grepKept, s.globKept = nil, nil
}

// MarkSeen records that rows of the given 1-based line numbers of the tagged
// version reached the model. Unknown versions are ignored.
func (s *Store) MarkSeen(path string, tag Tag, lines ...int) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if v := s.find(filepath.Clean(path), tag); v != nil {
		for _, n := range lines {
			v.seen.add(n)
		}
	}
}

// MarkSeenRange marks lines from..to (inclusive, 1-based) seen.
func (s *Store) MarkSeenRange(path string, tag Tag, from, to int) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if v := s.find(filepath.Clean(path), tag); v != nil {
		for n := from; n <= to; n++ {
			v.seen.add(n)
		}
	}
}

// MarkWindow records that columns from..to (1-based bytes, inclusive) of
// line n of the tagged version reached the model.
func (s *Store) MarkWindow(path string, tag Tag, n, from, to int) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if v := s.find(filepath.Clean(path), tag); v != nil && from <= to {
		if v.windows == nil {
			v.windows = map[int][]Span{}
		}
		v.windows[n] = MergeSpans(append(v.windows[n], Span{from, to}))
	}
}

// SeenWindow reports whether columns from..to of line n of the tagged
// version reached the model, in one window or in windows that touch.
func (s *Store) SeenWindow(path string, tag Tag, n, from, to int) bool {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	v := s.find(filepath.Clean(path), tag)
	if v == nil {
		return false
	}
	for _, w := range v.windows[n] {
		if w.From <= from && to <= w.To {
			return true
		}
	}
	return false
}

// Version returns the bytes of a version the session saw.
func (s *Store) Version(path string, tag Tag) ([]byte, bool) {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if v := s.find(filepath.Clean(path), tag); v != nil {
		return v.text, true
	}
	return nil, false
}

// Seen reports whether line n (1-based) of the tagged version reached the model.
func (s *Store) Seen(path string, tag Tag, n int) bool {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	v := s.find(filepath.Clean(path), tag)
	return v != nil && v.seen.has(n)
}

// SeenLines returns, for the tagged version, whether each line 1..n reached
// the model (index 0 is line 1): one lookup for a whole file, where an edit
// of a large file would otherwise ask line by line.
func (s *Store) SeenLines(path string, tag Tag, n int) []bool {
	out := make([]bool, n)
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
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
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	vs := s.files[filepath.Clean(path)]
	if len(vs) == 0 {
		return "", false
	}
	return vs[len(vs)-1].tag, true
}

func (s *Store) find(path string, tag Tag) *version {
	for _, v := range s.files[path] {
		if v.tag == tag {
			s.b.lru.MoveToBack(v.use)
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
