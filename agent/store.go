package agent

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/config"
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
}

// checkpointRecord is a turn's changes, kept so a reloaded chat can still
// be rewound.
type checkpointRecord struct {
	Turn    int          `json:"turn"`
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
// only each file's first line.
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

// head reads a chat's first line and its file's time.
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
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil {
		return ChatInfo{}, err
	}
	var r record
	if err := json.Unmarshal(line, &r); err != nil || r.Chat == nil {
		return ChatInfo{}, fmt.Errorf("%s is not a chat file", p)
	}
	if st, err := f.Stat(); err == nil {
		r.Chat.Updated = st.ModTime()
	}
	return *r.Chat, nil
}

// Load reads a chat: what names it and its messages, in order. A last line
// cut short (tandem stopped while writing it) is left out.
func (s *Store) Load(id string) (ChatInfo, []providers.Message, error) {
	l, err := s.load(id)
	return l.info, l.messages, err
}

// loaded is a chat as its file holds it.
type loaded struct {
	info     ChatInfo
	messages []providers.Message
	turnOf   []int          // each message's turn if it is a prompt, else -1
	turns    [][]turnChange // each turn's changes, by turn number
}

// grow makes room for turn in l.turns.
func (l *loaded) grow(turn int) {
	for len(l.turns) <= turn {
		l.turns = append(l.turns, nil)
	}
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
	var l loaded
	r := bufio.NewReaderSize(f, 1<<16)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			var rec record
			if jerr := json.Unmarshal(line, &rec); jerr != nil {
				return loaded{}, fmt.Errorf("chat %s is damaged: %v", id, jerr)
			}
			switch {
			case rec.Chat != nil:
				l.info = *rec.Chat
			case rec.Message != nil:
				l.messages = append(l.messages, *rec.Message)
				turn := -1
				if rec.Turn != nil && *rec.Turn >= 0 {
					turn = *rec.Turn
					l.grow(turn) // a turn that changed nothing still counts
				}
				l.turnOf = append(l.turnOf, turn)
			case rec.Compacted != nil && rec.Compacted.Replaced <= len(l.messages):
				l.messages = append([]providers.Message{rec.Compacted.Summary}, l.messages[rec.Compacted.Replaced:]...)
				l.turnOf = append([]int{-1}, l.turnOf[rec.Compacted.Replaced:]...)
			case rec.Checkpoint != nil && rec.Checkpoint.Turn >= 0:
				l.grow(rec.Checkpoint.Turn)
				l.turns[rec.Checkpoint.Turn] = append(l.turns[rec.Checkpoint.Turn], rec.Checkpoint.Changes...)
			}
		}
		if err != nil {
			break
		}
	}
	if l.info.ID == "" {
		return loaded{}, fmt.Errorf("chat %s is damaged: it has no first line", id)
	}
	if st, err := f.Stat(); err == nil {
		l.info.Updated = st.ModTime()
	}
	return l, nil
}

// Delete removes a chat.
func (s *Store) Delete(id string) error {
	p, err := s.path(id)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil {
		return fmt.Errorf("there is no chat %s; list the chats for their ids", id)
	}
	return nil
}

// journal appends one chat's lines to its file.
type journal struct {
	mu   sync.Mutex
	f    *os.File
	info ChatInfo
}

// journal starts (or, for a loaded chat, continues) the file of info.
func (s *Store) journal(info ChatInfo) (*journal, error) {
	p, err := s.path(info.ID)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	j := &journal{f: f, info: info}
	if st, err := f.Stat(); err == nil && st.Size() == 0 {
		if err := j.write(record{Chat: &info}); err != nil {
			f.Close()
			return nil, err
		}
	}
	return j, nil
}

func (j *journal) write(r record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	_, err = j.f.Write(append(b, '\n'))
	return err
}

func (j *journal) close() error { return j.f.Close() }

// Replay is the conversation as the updates a client shows for it: the
// user's text, each prompt carrying its turn (`_meta.tandem.turn`, the
// turn a restore names), the agent's text and thinking, each tool call with
// its result and the diffs of the files it changed, and each plan the
// model showed.
func (c *Chat) Replay() []acp.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ckMu.Lock()
	diffs := map[string][]acp.ToolCallContent{}
	for _, t := range c.turns {
		for _, tc := range t {
			if tc.Call != "" {
				diffs[tc.Call] = append(diffs[tc.Call], diff(tc.FileChange))
			}
		}
	}
	c.ckMu.Unlock()
	var out []acp.SessionUpdate
	plans := map[string]bool{} // the plan calls' ids: shown as the plan
	for i, m := range c.messages {
		for _, b := range m.Blocks {
			switch {
			case b.Kind == providers.ToolUse && b.ToolName == planToolName:
				plans[b.ToolID] = true
				if entries, refusal := parsePlan(b.Input); refusal == "" {
					out = append(out, acp.UpdatePlan(entries...))
				}
			case b.Kind == providers.ToolResult && plans[b.ToolID]:
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
				out = append(out, toolCallStarted(b))
			case b.Kind == providers.ToolResult:
				status := acp.ToolCallStatusCompleted
				if b.IsError {
					status = acp.ToolCallStatusFailed
				}
				content := append([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(b.Text))}, diffs[b.ToolID]...)
				out = append(out, acp.UpdateToolCall(acp.ToolCallId(b.ToolID), acp.WithUpdateStatus(status), acp.WithUpdateContent(content)))
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
