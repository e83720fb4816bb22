package agent

import (
	"fmt"
	"sync"

	"github.com/tandemdev/tandem/agent/providers"
)

// Tool calls' ids for clients: some providers repeat their ids across
// responses (call_0 in every one), and a client matching cards by id would
// draw a later call's updates on an earlier card. Each call gets an id
// unique in the chat — the provider's own when it is new to the chat,
// else the provider's with a suffix — kept in the message (Block.CallID)
// and used for everything a client or the chat's file names a call by:
// updates, questions, checkpoints, answers. The provider is sent its own
// ids back.

// callID is a call's (or its result's) id for clients.
func callID(b providers.Block) string {
	if b.CallID != "" {
		return b.CallID
	}
	return b.ToolID
}

// callIDs are the ids a chat's calls were given, and for a chat file
// being read, which call a record names.
type callIDs struct {
	mu   sync.Mutex // subagents running side by side name their calls
	used map[string]bool
	// latest is, by a provider's id or a call's id, the id of the last
	// call so named: a record naming a call follows its message.
	latest map[string]string
}

func newCallIDs() *callIDs {
	return &callIDs{used: map[string]bool{}, latest: map[string]string{}}
}

// next is the id for a call the provider named id: id itself when no call
// of the chat has it yet.
func (ids *callIDs) next(id string) string {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	return ids.unused(id)
}

// unused is next, with ids.mu held.
func (ids *callIDs) unused(id string) string {
	out := id
	for n := 1; ids.used[out]; n++ {
		out = fmt.Sprintf("%s-%d", id, n)
	}
	ids.used[out] = true
	return out
}

// name gives the calls of m their ids, in order: named[i] for the i-th
// (the id its streamed update was shown with), a new one where none was
// given or a stored one (CallID) is not. A result takes the id of the
// last call of its provider's id.
func (ids *callIDs) name(m providers.Message, named []string) {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	k := 0
	for i, b := range m.Blocks {
		switch b.Kind {
		case providers.ToolUse:
			id := b.CallID
			switch {
			case k < len(named):
				id = named[k]
			case id == "":
				id = ids.unused(b.ToolID)
			default:
				ids.used[id] = true
			}
			k++
			if id != b.ToolID {
				m.Blocks[i].CallID = id
			}
			ids.latest[b.ToolID], ids.latest[id] = id, id
		case providers.ToolResult:
			if id, ok := ids.latest[b.ToolID]; ok && b.CallID == "" && id != b.ToolID {
				m.Blocks[i].CallID = id
			}
		}
	}
}

// of is the id of the call a chat file's record names: the last so named.
func (ids *callIDs) of(call string) string {
	ids.mu.Lock()
	defer ids.mu.Unlock()
	if id, ok := ids.latest[call]; ok {
		return id
	}
	return call
}
