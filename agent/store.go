package agent

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"golang.org/x/sys/unix"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/config"
	"github.com/tandemdev/tandem/refusal"
)

// Store keeps chats on disk, one append-only file of JSON lines per chat
// ($XDG_STATE_HOME/tandem/chats/ID.jsonl, private to the user): a first
// line naming the chat, then each message as it joins the conversation. A
// chat file holds what the model and the user said and what the tools
// answered; never a key (an endpoint is written without it).
type Store struct{ dir string }

// ChatInfo names a stored chat.
type ChatInfo struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"` // the start of the first prompt
	Model   string    `json:"model"` // PROVIDER/MODEL
	Cwd     string    `json:"cwd"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"` // the file's last change
}

// record is one line of a chat file.
type record struct {
	Chat       *ChatInfo          `json:"chat,omitempty"`
	Message    *providers.Message `json:"message,omitempty"`
	Turn       *int               `json:"turn,omitempty"` // a prompt message's turn
	Compacted  *compaction        `json:"compacted,omitempty"`
	Checkpoint *checkpointRecord  `json:"checkpoint,omitempty"`
	Before     *beforeRecord      `json:"before,omitempty"`
	Notice     *notice            `json:"notice,omitempty"`
	Usage      *usageRecord       `json:"usage,omitempty"`
	Rewind     *rewindRecord      `json:"rewind,omitempty"`
	Sub        *subRecord         `json:"sub,omitempty"`
}

// checkpointRecord is a call's changes (or a restore's), kept so a
// reloaded chat can still be rewound.
type checkpointRecord struct {
	Turn    int          `json:"turn"`
	Call    string       `json:"call,omitempty"` // the edit call whose before record it confirms
	Changes []turnChange `json:"changes"`
}

// OpenStore opens the chat store in dir, which is made (0700) when the
// first chat is written.
func OpenStore(dir string) (*Store, error) {
	if !filepath.IsAbs(dir) {
		return nil, fmt.Errorf("the chat store %q is not an absolute path", dir)
	}
	return &Store{dir: dir}, nil
}

// path is a chat's file; an id that is not a chat id names none, so no id
// can reach outside the store.
func (s *Store) path(id string) (string, error) {
	if b, err := hex.DecodeString(id); err != nil || len(b) != 8 {
		return "", fmt.Errorf("%q is not a chat id; list the chats for their ids", id)
	}
	return filepath.Join(s.dir, id+".jsonl"), nil
}

// List is every stored chat, the most recently changed first. It reads
// only each file's first line, unless that line is damaged.
func (s *Store) List() ([]ChatInfo, error) {
	es, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []ChatInfo{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]ChatInfo, 0, len(es))
	for _, e := range es {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok {
			continue
		}
		info, err := s.head(id)
		if err != nil {
			continue // a file that is not a chat: skipped, not fatal to the list
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

// damagedTitle starts the title of a chat whose file lost the line that
// names it: its folder, model and start are unknown.
const damagedTitle = "(damaged) "

// head reads what names a chat, and its file's time. That is its first
// line; where that line is damaged the chat is listed all the same, as it
// loads (a bad line costs that line alone): marked damaged and named by
// the first readable record after it that can name it — a chat record, or
// the first prompt — else by its id. A file with no line is no chat.
func (s *Store) head(id string) (ChatInfo, error) {
	p, err := s.path(id)
	if err != nil {
		return ChatInfo{}, err
	}
	f, err := os.Open(p)
	if err != nil {
		return ChatInfo{}, err
	}
	defer f.Close()
	info := ChatInfo{ID: id, Title: damagedTitle + id}
	r := bufio.NewReader(f)
	for lines := 0; ; {
		line, err := r.ReadBytes('\n')
		var rec record
		body := bytes.TrimSpace(line)
		if len(body) > 0 {
			lines++
		}
		if len(body) > 0 && json.Unmarshal(body, &rec) == nil && rec.valid() {
			if rec.Chat != nil {
				info = *rec.Chat
				break
			}
			if rec.Message != nil && rec.Turn != nil && rec.Message.Role == providers.User {
				if t := promptTitle(*rec.Message); t != "" {
					info.Title = damagedTitle + t
				}
				break
			}
		}
		if err != nil {
			if lines == 0 {
				return ChatInfo{}, fmt.Errorf("%s is empty", p)
			}
			break
		}
	}
	if st, err := f.Stat(); err == nil {
		info.Updated = st.ModTime()
	}
	return info, nil
}

// promptTitle is the title a stored prompt gives, as title does at the
// prompt: the user's words, without the files attached and tandem's own
// notes (in parentheses); "" when it holds none.
func promptTitle(m providers.Message) string {
	var words []acp.ContentBlock
	for _, b := range m.Blocks {
		t := strings.TrimSpace(b.Text)
		note := strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")")
		if b.Kind == providers.Text && !strings.HasPrefix(t, "<context ") && !note {
			words = append(words, acp.TextBlock(b.Text))
		}
	}
	return title(words)
}

// Load reads a chat: what names it and its messages, in order. A line
// that is not a record (a torn write, garbage) costs that line alone.
func (s *Store) Load(id string) (ChatInfo, []providers.Message, error) {
	l, err := s.load(id)
	return l.info, l.messages, err
}

// loaded is a chat as its file holds it.
type loaded struct {
	info     ChatInfo
	messages []providers.Message
	turnOf   []int                          // each message's turn if it is a prompt, else -1
	turns    [][]turnChange                 // each turn's changes, by turn number
	dropped  []dropped                      // the lines that were not records
	notices  []placedNotice                 // what the user saw besides the messages
	usage    *usageRecord                   // the meter after the last turn
	subs     map[string][]providers.Message // the subagents' conversations, by their task call
	ids      *callIDs                       // the calls' ids, every record's call named by them
	size     int64                          // the bytes read: where this process's appends start
	// befores are the files calls were about to change, whose changes
	// no checkpoint record confirms: the calls a crash cut.
	befores []beforeRecord
}

// dropped is a run of damaged lines of a chat file, left out where they
// stood: before message at (an index of messages), during turn (-1:
// before the first prompt).
type dropped struct {
	at, turn, lines int
}

// grow makes room for turn in l.turns.
func (l *loaded) grow(turn int) {
	for len(l.turns) <= turn {
		l.turns = append(l.turns, nil)
	}
}

// drop counts a damaged line at the current end of the conversation.
func (l *loaded) drop() {
	turn := len(l.turns) - 1
	if n := len(l.dropped); n > 0 && l.dropped[n-1].at == len(l.messages) && l.dropped[n-1].turn == turn {
		l.dropped[n-1].lines++
		return
	}
	l.dropped = append(l.dropped, dropped{at: len(l.messages), turn: turn, lines: 1})
}

// compacted is where damaged lines stand once the messages before start
// are replaced by one summary: those among the replaced, before it.
func compacted(ds []dropped, start int) []dropped {
	for i := range ds {
		ds[i].at = compactedAt(ds[i].at, start)
	}
	return ds
}

// compactedAt is where a place before message at stands once the messages
// before start are replaced by one summary: a place among the replaced is
// before it.
func compactedAt(at, start int) int {
	if at < start {
		return 0
	}
	return at - (start - 1)
}

// noticesCompacted is compacted for notices.
func noticesCompacted(ns []placedNotice, start int) []placedNotice {
	for i := range ns {
		ns[i].at = compactedAt(ns[i].at, start)
	}
	return ns
}

// note is what the chat is told about its damaged lines.
func (d dropped) note() string {
	where := "before its first prompt"
	if d.turn >= 0 {
		where = fmt.Sprintf("in turn %d", d.turn)
	}
	records := "record was"
	if d.lines > 1 {
		records = "records were"
	}
	return fmt.Sprintf("(%d damaged %s left out of this chat's file here, %s; the chat goes on without them)\n", d.lines, records, where)
}

func (s *Store) load(id string) (loaded, error) {
	p, err := s.path(id)
	if err != nil {
		return loaded{}, err
	}
	f, err := os.Open(p)
	if err != nil {
		return loaded{}, fmt.Errorf("there is no chat %s; list the chats for their ids", id)
	}
	defer f.Close()
	l := loaded{info: ChatInfo{ID: id}, ids: newCallIDs()}
	confirmed := map[string]bool{} // "turn/call" of the calls whose changes a checkpoint record holds
	r := bufio.NewReaderSize(f, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		l.size += int64(len(line))
		// A last line without its newline counts when it is whole: the
		// next append writes the newline first (see journal.own).
		if body := bytes.TrimSpace(line); len(body) > 0 {
			var rec record
			switch {
			case json.Unmarshal(body, &rec) != nil || !rec.valid() || !l.fits(rec):
				l.drop()
			case rec.Chat != nil:
				l.info = *rec.Chat
			case rec.Message != nil:
				*rec.Message = loadPictures(imagesDir(s.dir), *rec.Message)
				l.ids.name(*rec.Message, nil)
				l.messages = append(l.messages, *rec.Message)
				turn := -1
				if rec.Turn != nil && *rec.Turn >= 0 {
					turn = *rec.Turn
					l.grow(turn) // a turn that changed nothing still counts
				}
				l.turnOf = append(l.turnOf, turn)
			case rec.Compacted != nil:
				l.messages = append([]providers.Message{rec.Compacted.Summary}, l.messages[rec.Compacted.Replaced:]...)
				l.turnOf = append([]int{-1}, l.turnOf[rec.Compacted.Replaced:]...)
				l.dropped = compacted(l.dropped, rec.Compacted.Replaced)
				l.notices = noticesCompacted(l.notices, rec.Compacted.Replaced)
			case rec.Checkpoint != nil:
				rec.Checkpoint.Call = l.ids.of(rec.Checkpoint.Call)
				for i := range rec.Checkpoint.Changes {
					rec.Checkpoint.Changes[i].Call = l.ids.of(rec.Checkpoint.Changes[i].Call)
				}
				l.grow(rec.Checkpoint.Turn)
				l.turns[rec.Checkpoint.Turn] = append(l.turns[rec.Checkpoint.Turn], rec.Checkpoint.Changes...)
				confirmed[fmt.Sprint(rec.Checkpoint.Turn, "/", rec.Checkpoint.Call)] = true
			case rec.Before != nil:
				rec.Before.Call = l.ids.of(rec.Before.Call)
				l.grow(rec.Before.Turn)
				l.befores = append(l.befores, *rec.Before)
			case rec.Notice != nil:
				rec.Notice.Call = l.ids.of(rec.Notice.Call)
				l.notices = append(l.notices, placedNotice{at: len(l.messages), notice: *rec.Notice})
			case rec.Usage != nil:
				u := *rec.Usage
				l.usage = &u
			case rec.Rewind != nil:
				l.rewind(rec.Rewind.Turn)
			case rec.Sub != nil:
				l.ids.name(rec.Sub.Message, nil)
				if l.subs == nil {
					l.subs = map[string][]providers.Message{}
				}
				parent := l.ids.of(rec.Sub.Parent)
				l.subs[parent] = append(l.subs[parent], rec.Sub.Message)
			}
		}
		if err != nil {
			break
		}
	}
	l.befores = slices.DeleteFunc(l.befores, func(b beforeRecord) bool { return confirmed[fmt.Sprint(b.Turn, "/", b.Call)] })
	if st, err := f.Stat(); err == nil {
		l.info.Updated = st.ModTime()
	}
	return l, nil
}

// fits reports whether a record can follow what l holds: a compaction
// replaces messages there are, and a turn is one there is or the next.
func (l *loaded) fits(r record) bool {
	switch {
	case r.Compacted != nil:
		return r.Compacted.Replaced <= len(l.messages)
	case r.Message != nil && r.Turn != nil:
		return *r.Turn <= len(l.turns)
	case r.Checkpoint != nil:
		return r.Checkpoint.Turn <= len(l.turns)
	case r.Before != nil:
		return r.Before.Turn <= len(l.turns)
	case r.Rewind != nil:
		return cutAt(l.turnOf, r.Rewind.Turn) >= 0
	}
	return true
}

// valid reports whether a parsed line is a record this version can apply:
// anything else is a damaged line, left out.
func (r *record) valid() bool {
	switch {
	case r.Chat != nil:
		return r.Chat.ID != ""
	case r.Message != nil:
		return r.Message.Role == providers.User || r.Message.Role == providers.Assistant
	case r.Compacted != nil:
		return r.Compacted.Replaced >= 0
	case r.Checkpoint != nil:
		return r.Checkpoint.Turn >= 0
	case r.Before != nil:
		return r.Before.Turn >= 0 && r.Before.Call != ""
	case r.Notice != nil:
		return r.Notice.Kind != ""
	case r.Usage != nil:
		return r.Usage.Used >= 0 && r.Usage.Size >= 0
	case r.Rewind != nil:
		return r.Rewind.Turn >= 0
	case r.Sub != nil:
		return r.Sub.Parent != "" && (r.Sub.Message.Role == providers.User || r.Sub.Message.Role == providers.Assistant)
	}
	return false
}

// Delete removes a chat, and the images no other chat names.
func (s *Store) Delete(id string) error {
	p, err := s.path(id)
	if err != nil {
		return err
	}
	lines, err := os.ReadFile(p)
	if err == nil {
		err = os.Remove(p)
	}
	if err != nil {
		return fmt.Errorf("there is no chat %s; list the chats for their ids", id)
	}
	if err := dropPictures(s.dir, lines, time.Now()); err != nil {
		return fmt.Errorf("the chat %s is deleted, but not all of its images: %w", id, err)
	}
	return nil
}

// journal appends one chat's lines to its file. One process writes a chat
// at a time: a turn holds an advisory lock on the file (own) from its
// start to its end, and starts from what the file holds then, so two
// editors on one chat take turns instead of interleaving them.
type journal struct {
	mu   sync.Mutex // the file: its writes, a turn's hold (own, release) and closing
	f    *os.File
	info ChatInfo
	// size is the bytes of whole records the file holds, as far as this
	// process knows: a failed append is cut back to it.
	size int64
	// pending are lines not yet in the file (an append failed: a full
	// disk); each append writes them first, so the file never skips one.
	pending [][]byte
	owned   bool   // this process holds the file's lock: a turn or a restore runs
	images  string // where the chat's images are kept (imagestore.go)
}

// journal starts (or, for a loaded chat, continues) the file of info;
// size is the bytes a load read of it.
func (s *Store) journal(info ChatInfo, size int64) (*journal, error) {
	p, err := s.path(info.ID)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	j := &journal{f: f, info: info, size: size, images: imagesDir(s.dir)}
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		if _, err := j.own(); err != nil {
			f.Close()
			return nil, err
		}
		defer j.release()
		if err := j.write(record{Chat: &info}, true); err != nil {
			f.Close()
			return nil, err
		}
		if err := syncDir(s.dir); err != nil { // the file's name is as durable as its lines
			f.Close()
			return nil, err
		}
	}
	return j, nil
}

// syncDir flushes a directory's entries to the disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// errChatBusy is a second process's turn on a chat another one is running.
var errChatBusy = refusal.New(refusal.Busy, "another tandem is running a turn of this chat right now; wait for that turn to end (or stop it there), then send the prompt again")

// own takes the chat's lock for a turn and makes the file's tail whole: a
// last line cut short (a crash, a full disk) is cut off, one that is whole
// but lacks its newline gets it, so the next record starts on a line of
// its own. It reports whether another process changed the file since this
// one last read or wrote it; the caller then loads the chat again.
func (j *journal) own() (changed bool, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := unix.Flock(int(j.f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			return false, errChatBusy
		}
		return false, refusal.New(refusal.Failed, fmt.Sprintf("the chat's file cannot be locked (%v); check the file system of the chat store, then send the prompt again", err))
	}
	j.owned = true
	st, err := j.f.Stat()
	if err != nil {
		j.releaseLocked()
		return false, err
	}
	changed = st.Size() != j.size
	if err := j.mend(st.Size()); err != nil {
		j.releaseLocked()
		return false, err
	}
	return changed, nil
}

// mend makes the tail of a file of size bytes end with a newline, and sets
// j.size to the bytes it then holds.
func (j *journal) mend(size int64) error {
	start := size // where the last line starts
	buf := make([]byte, 64<<10)
	for start > 0 {
		n := int64(len(buf))
		if n > start {
			n = start
		}
		if _, err := j.f.ReadAt(buf[:n], start-n); err != nil {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			start = start - n + int64(i) + 1
			break
		}
		start -= n
	}
	j.size = size
	if start == size {
		return nil
	}
	tail := make([]byte, size-start)
	if _, err := j.f.ReadAt(tail, start); err != nil {
		return err
	}
	var rec record
	if json.Unmarshal(tail, &rec) == nil && rec.valid() {
		if _, err := j.f.Write([]byte{'\n'}); err != nil {
			return j.cut(err)
		}
		j.size++
		return nil
	}
	if err := j.f.Truncate(start); err != nil {
		return err
	}
	j.size = start
	return nil
}

// release ends a turn's hold on the chat.
func (j *journal) release() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.releaseLocked()
}

// releaseLocked is release with j.mu held.
func (j *journal) releaseLocked() {
	if j.owned {
		_ = unix.Flock(int(j.f.Fd()), unix.LOCK_UN)
		j.owned = false
	}
}

// write appends a record, after any the file still lacks; durable ones
// are synced to the disk before write returns. A failed append is cut back,
// so the file ends with a whole record, and is tried again with the next.
func (j *journal) write(r record, durable bool) error {
	r, err := keepPictures(j.images, r, durable)
	if err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.pending = append(j.pending, append(b, '\n'))
	for len(j.pending) > 0 {
		n, err := j.f.Write(j.pending[0])
		if err != nil {
			return j.cut(err)
		}
		j.size += int64(n)
		j.pending = j.pending[1:]
	}
	if durable {
		return j.f.Sync()
	}
	return nil
}

// dropPending forgets the records the file still lacks, and says how many.
func (j *journal) dropPending() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := len(j.pending)
	j.pending = nil
	return n
}

// cut takes the file back to its whole records after a failed append.
func (j *journal) cut(err error) error {
	if terr := j.f.Truncate(j.size); terr != nil {
		return fmt.Errorf("%w; and its cut-short last line could not be taken off (%v)", err, terr)
	}
	return err
}

// close closes the file, once no write, hold or release is under way: a
// chat closed as its last turn ends (the client went away) must not have
// its descriptor closed under a write, nor unlock another file that took
// the descriptor's number. Later writes fail as writes to a closed file.
func (j *journal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.releaseLocked()
	return j.f.Close()
}

// Replay is the conversation as the updates a client shows for it: the
// user's text, each prompt carrying its turn (`_meta.tandem.turn`, the
// turn a restore names), the agent's text and thinking, each tool call with
// its result and the diffs of the files it changed, the answers given to
// its questions, each plan the model showed, restores and stopped turns as
// notices, and the context meter last shown. tandem's notes to the model
// are not the user's words and are left out. Where the chat's file had
// damaged lines, a note says how many were left out.
func (c *Chat) Replay() []acp.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.replay(0)
}

// replay is the updates of the messages from the index from on.
func (c *Chat) replay(from int) []acp.SessionUpdate {
	c.ckMu.Lock()
	diffs := map[string][]acp.ToolCallContent{}
	for _, t := range c.turns {
		for _, tc := range t {
			if tc.Call != "" {
				diffs[tc.Call] = append(diffs[tc.Call], diff(tc.FileChange))
			}
		}
	}
	notices := append([]placedNotice(nil), c.notices...)
	c.ckMu.Unlock()
	inSub := c.subCalls()
	subAnswers := map[string][]acp.SessionUpdate{} // shown under their subagent's call, after it
	var out []acp.SessionUpdate
	plans := map[string]bool{} // the plan calls' ids: shown as the plan
	drops := c.dropped
	for i := from; i <= len(c.messages); i++ {
		for len(drops) > 0 && drops[0].at <= i {
			if drops[0].at == i {
				out = append(out, acp.UpdateAgentThoughtText(drops[0].note()))
			}
			drops = drops[1:]
		}
		for len(notices) > 0 && notices[0].at <= i {
			if u, shown := noticeUpdate(notices[0].notice); shown && notices[0].at == i {
				if n := notices[0].notice; n.Kind == noticeAnswer && inSub[n.Call] {
					subAnswers[n.Call] = append(subAnswers[n.Call], u)
				} else {
					out = append(out, u)
				}
			}
			notices = notices[1:]
		}
		if i == len(c.messages) {
			if c.lastUsage != nil {
				out = append(out, usageUpdate(*c.lastUsage))
			}
			break
		}
		m := c.messages[i]
		for _, b := range m.Blocks {
			switch {
			case b.Kind == providers.ToolUse && b.ToolName == planToolName:
				plans[callID(b)] = true
				if entries, refusal := parsePlan(b.Input); refusal == "" {
					out = append(out, acp.UpdatePlan(entries...))
				}
			case b.Kind == providers.ToolResult && plans[callID(b)]:
			case b.Note && b.Kind == providers.Text && m.Role == providers.Assistant && strings.HasPrefix(b.Text, cutPrefix):
				out = append(out, cutNotice(b))
			case b.Note: // tandem's word to the model, shown as its notice if at all
			case b.Kind == providers.Image && b.Image != nil:
				u := acp.UpdateUserMessage(acp.ImageBlock(b.Image.Data, b.Image.MediaType))
				if c.turnOf[i] >= 0 {
					u.UserMessageChunk.Meta = map[string]any{"tandem": map[string]any{"turn": c.turnOf[i]}}
				}
				out = append(out, u)
			case b.Kind == providers.Text && m.Role == providers.User:
				u := acp.UpdateUserMessageText(b.Text)
				if c.turnOf[i] >= 0 {
					u.UserMessageChunk.Meta = map[string]any{"tandem": map[string]any{"turn": c.turnOf[i]}}
				}
				out = append(out, u)
			case b.Kind == providers.Text:
				out = append(out, acp.UpdateAgentMessageText(b.Text))
			case b.Kind == providers.Thinking:
				out = append(out, acp.UpdateAgentThoughtText(b.Text))
			case b.Kind == providers.ToolUse:
				out = append(out, toolCallStarted(b, c.opts.Session.Roots))
			case b.Kind == providers.ToolResult:
				status := acp.ToolCallStatusCompleted
				if b.IsError {
					status = acp.ToolCallStatusFailed
				}
				out = append(out, c.subReplay(callID(b), subAnswers)...)
				content := append([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(b.Text))}, diffs[callID(b)]...)
				out = append(out, acp.UpdateToolCall(acp.ToolCallId(callID(b)), acp.WithUpdateStatus(status), acp.WithUpdateContent(content)))
			}
		}
	}
	return out
}

// UserStore is the user's chat store, $XDG_STATE_HOME/tandem/chats.
// The state directory must be private (config.PrivateStateDir): a chat
// planted there would be loaded as the user's own.
func UserStore() (*Store, error) {
	dir, err := config.PrivateStateDir()
	if err != nil {
		return nil, err
	}
	return OpenStore(filepath.Join(dir, "chats"))
}
