package agent

import (
	"fmt"
	"slices"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/refusal"
)

// Rewind: an earlier prompt edited and sent again replaces it and
// everything after it, as Claude Code and Cline do. The conversation the
// model sees is cut back to just before that prompt; the chat's file keeps
// every line (it is append-only) and records the cut, so a reopened chat
// is cut the same way. A cut changes no file: the files are as the user
// left them (restore is a step of its own, asked first), and every turn
// keeps its checkpoint, so a restore made before the cut can still be
// undone.

// rewindRecord is a chat file's record of a cut: the messages from the
// prompt of Turn on left the conversation.
type rewindRecord struct {
	Turn int `json:"turn"`
}

// cutAt is where a cut back to before turn's prompt starts: the first
// prompt of that turn or a later one; -1 when there is none.
func cutAt(turnOf []int, turn int) int {
	return slices.IndexFunc(turnOf, func(t int) bool { return t >= turn })
}

// cutNotices is the notices once the messages from at on are cut: an
// answer goes with the call it was asked in, and an earlier cut with the
// conversation it cut; what happened to the files (a restore) and what
// names the model stand where the cut is, so a restore made before the
// cut can still be undone from the chat.
func cutNotices(ns []placedNotice, at int) []placedNotice {
	out := ns[:0:0]
	for _, n := range ns {
		if n.at > at {
			if n.Kind == noticeAnswer || n.Kind == noticeRewind {
				continue
			}
			n.at = at
		}
		out = append(out, n)
	}
	return out
}

// cutDropped is the damaged lines' notes once the messages from at on are
// cut: those among the cut go with them.
func cutDropped(ds []dropped, at int) []dropped {
	return slices.DeleteFunc(slices.Clone(ds), func(d dropped) bool { return d.at > at })
}

// rewind cuts the conversation back to just before turn's prompt, in the
// chat and in its file, and tells emit. It refuses a turn whose prompt
// the conversation no longer holds.
func (c *Chat) rewind(turn int, emit func(acp.SessionUpdate)) error {
	at := cutAt(c.turnOf, turn)
	if at < 0 || c.turnOf[at] != turn {
		return refusal.New(refusal.Invalid, fmt.Sprintf("turn %d's message is not in the conversation the model sees (it is a restore, was summarised when the chat was compacted, or there is no such turn), so the chat cannot be cut back to it; send the message as a new one instead", turn))
	}
	prompts := 0
	for _, t := range c.turnOf[at:] {
		if t >= 0 {
			prompts++
		}
	}
	words := promptTitle(c.messages[at])
	c.save(record{Rewind: &rewindRecord{Turn: turn}}, true, emit)
	c.ckMu.Lock()
	c.messages = slices.Clip(c.messages[:at])
	c.notices = cutNotices(c.notices, at)
	c.ckMu.Unlock()
	c.turnOf = slices.Clip(c.turnOf[:at])
	c.dropped = cutDropped(c.dropped, at)
	c.replan()
	// The model no longer sees what the cut turns showed it, and no one
	// knows which of what it saw before them it still holds word for
	// word: every edit reads again before it anchors.
	c.opts.Session.Seen.Forget()
	// What the last call used counted the turns cut: the next call says
	// again (what is left was under the window when that turn began).
	c.lastUsed = 0
	gone := "it or what answered it"
	switch {
	case prompts == 2:
		gone = "it, the message after it or what answered them"
	case prompts > 2:
		gone = fmt.Sprintf("it, the %d messages after it or what answered them", prompts-1)
	}
	n := notice{Kind: noticeRewind, Turn: &turn, Text: fmt.Sprintf(
		"Cut back to before %q: the model no longer sees %s. A cut changes no file.", words, gone)}
	c.keep(n)
	if u, shown := noticeUpdate(n); shown {
		emit(u)
	}
	return nil
}

// rewind is the cut of a chat file's rewind record, applied to what was
// loaded before it.
func (l *loaded) rewind(turn int) {
	at := cutAt(l.turnOf, turn)
	l.messages = slices.Clip(l.messages[:at])
	l.turnOf = slices.Clip(l.turnOf[:at])
	l.notices = cutNotices(l.notices, at)
	l.dropped = cutDropped(l.dropped, at)
}
