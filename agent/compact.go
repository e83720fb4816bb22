package agent

import (
	"context"
	"fmt"
	"sort"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/documents"
)

// DefaultCompactAt is the share of the model's window at which a chat's
// older turns are summarised (the setting agent.compactAt).
const DefaultCompactAt = 0.85

// summarise asks the model for the summary that replaces older turns.
const summarise = `The conversation above is about to be replaced by your summary of it, because it nears the context window. Write that summary for yourself: what the user asked for, what you did (each file you changed), decisions and their reasons, what is left to do, and anything the user told you to keep in mind. Be complete but brief; do not call tools.`

// compact replaces the turns before the current one by one summary the
// model writes, when the last call used at least compactAt of the window.
// The system prompt (and with it the instructions) is not touched; the
// summary message lists the files read with their latest tags, so the
// model can still edit them, and the plan the user sees. The client is told, and the chat file records
// it. Nothing is dropped silently: without a summary nothing is dropped.
func (c *Chat) compact(ctx context.Context, used int, emit func(acp.SessionUpdate)) {
	w := c.opts.Model.Window
	if w == 0 || float64(used) < c.compactAt*float64(w) {
		return
	}
	start := c.turnStart()
	if start <= 0 {
		return // only the current turn: nothing older to summarise
	}
	c.summarise(ctx, start, fmt.Sprintf("the conversation neared the context window, %d of %d tokens", used, w), emit)
}

// Compact summarises the whole conversation now, as /compact asks.
func (c *Chat) Compact(ctx context.Context, emit func(acp.SessionUpdate)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.switchModel()
	if err := c.begin(emit); err != nil {
		return err
	}
	defer c.end()
	if len(c.messages) < 2 {
		emit(acp.UpdateAgentMessageText("There is nothing to compact yet: the conversation has no turn.\n"))
		return nil
	}
	c.summarise(ctx, len(c.messages), "you asked for it", emit)
	return nil
}

// summarise replaces the messages before start by the summary the model
// writes of them; why says what made it.
func (c *Chat) summarise(ctx context.Context, start int, why string, emit func(acp.SessionUpdate)) {
	older := append(append([]providers.Message(nil), c.messages[:start]...),
		providers.Message{Role: providers.User, Blocks: []providers.Block{{Kind: providers.Text, Text: summarise}}})
	resp, err := c.opts.Provider.Stream(ctx, providers.Request{Model: c.opts.Endpoint.Model, System: c.opts.System, Messages: sendable(older), MaxTokens: c.opts.MaxTokens}, func(providers.Event) {})
	var summary strings.Builder
	for _, b := range resp.Message.Blocks {
		if b.Kind == providers.Text {
			summary.WriteString(b.Text)
		}
	}
	if err != nil || summary.Len() == 0 {
		emit(acp.UpdateAgentThoughtText(fmt.Sprintf("(%s; the conversation could not be summarised: %v; nothing was dropped)\n", why, err)))
		return
	}
	text := "(Summary of the earlier conversation:)\n" + summary.String()
	if tags := c.latestTags(); tags != "" {
		text += "\n\nFiles read, with the tag of the latest version seen: " + tags
	}
	if plan := c.planText(); plan != "" {
		text += "\n\n" + plan
	}
	c.replaceOlder(start, providers.Message{Role: providers.User, Blocks: []providers.Block{{Kind: providers.Text, Text: text}}}, emit)
	update := acp.UpdateAgentThoughtText(fmt.Sprintf("(%s: its %d earlier messages were summarised into one)\n", why, start))
	update.AgentThoughtChunk.Meta = map[string]any{"tandem": map[string]any{"compacted": start}}
	emit(update)
}

// turnStart is the index of the current turn's prompt: the last user
// message that is not tool results.
func (c *Chat) turnStart() int {
	for i := len(c.messages) - 1; i >= 0; i-- {
		m := c.messages[i]
		if m.Role == providers.User && (len(m.Blocks) == 0 || m.Blocks[0].Kind != providers.ToolResult) {
			return i
		}
	}
	return -1
}

// replaceOlder puts summary in place of the messages before start, in the
// conversation and in the chat file.
func (c *Chat) replaceOlder(start int, summary providers.Message, emit func(acp.SessionUpdate)) {
	c.ckMu.Lock()
	c.messages = append([]providers.Message{summary}, c.messages[start:]...)
	c.notices = noticesCompacted(c.notices, start)
	c.ckMu.Unlock()
	c.turnOf = append([]int{-1}, c.turnOf[start:]...)
	c.dropped = compacted(c.dropped, start)
	c.save(record{Compacted: &compaction{Replaced: start, Summary: summary}}, false, emit)
}

// compaction is a chat file's record of older messages replaced.
type compaction struct {
	Replaced int               `json:"replaced"` // how many messages, from the first
	Summary  providers.Message `json:"summary"`
}

// latestTags names each file the chat read with its latest seen tag.
func (c *Chat) latestTags() string {
	c.watch.mu.Lock()
	files := make([]string, 0, len(c.watch.files))
	for f := range c.watch.files {
		files = append(files, f)
	}
	c.watch.mu.Unlock()
	sort.Strings(files)
	var out []string
	for _, f := range files {
		if tag, ok := c.opts.Session.Seen.Latest(f); ok {
			out = append(out, documents.Display(c.opts.Session.Roots, f)+"#"+string(tag))
		}
	}
	return strings.Join(out, ", ")
}
