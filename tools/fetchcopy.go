package tools

import (
	"sync"
	"time"
)

// The copies of pages a session keeps: how many, and for how long. A
// page's text is at most what 2 MiB of body converts to.
const (
	pageCopiesKept = 4
	pageCopyFor    = 15 * time.Minute
)

// pageCopy is a page a session fetched, under the URL and full a call
// asked with.
type pageCopy struct {
	key  string
	page *fetchedPage
	at   time.Time
}

// pageCopies keeps each session's last pages, so that paging one with
// lines neither fetches it nor asks about it again; a session's copies go
// when it closes.
var pageCopies = &pageStore{bySession: map[*Session][]pageCopy{}}

type pageStore struct {
	mu        sync.Mutex
	bySession map[*Session][]pageCopy
}

// keep puts the session's copy of key first, dropping the oldest past
// pageCopiesKept.
func (ps *pageStore) keep(s *Session, key string, p *fetchedPage) {
	ps.mu.Lock()
	copies, known := ps.bySession[s]
	copies = append([]pageCopy{{key, p, time.Now()}}, dropKey(copies, key)...)
	ps.bySession[s] = copies[:min(len(copies), pageCopiesKept)]
	ps.mu.Unlock()
	if !known {
		s.OnClose(func() {
			ps.mu.Lock()
			delete(ps.bySession, s)
			ps.mu.Unlock()
		})
	}
}

// take returns the session's copy of key and its age, unless it is older
// than pageCopyFor.
func (ps *pageStore) take(s *Session, key string) (*fetchedPage, time.Duration, bool) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, c := range ps.bySession[s] {
		if age := time.Since(c.at); c.key == key && age <= pageCopyFor {
			return c.page, age, true
		}
	}
	return nil, 0, false
}

// dropKey returns copies without key's.
func dropKey(copies []pageCopy, key string) []pageCopy {
	out := copies[:0:0]
	for _, c := range copies {
		if c.key != key {
			out = append(out, c)
		}
	}
	return out
}
