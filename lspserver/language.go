package lspserver

import (
	"context"
	"time"

	"github.com/tandemdev/tandem/tools"
)

// languageTimeout bounds a language query past its settle time: a language
// server's first answer may take seconds (it loads the project), but an
// editor that never answers must not hold a call. Callers that need less
// (an edit's reply) bound their context tighter.
const languageTimeout = 15 * time.Second

// languageServers asks the editor what its language servers know
// (tandem/languageQuery), for a client that declared
// experimental.tandem.languageQuery.
type languageServers struct{ c *Client }

func (l languageServers) Query(ctx context.Context, q tools.LanguageQuery, answer any) error {
	ctx, cancel := context.WithTimeout(ctx, languageTimeout+time.Duration(q.SettleMs)*time.Millisecond)
	defer cancel()
	return l.c.Ask(ctx, "tandem/languageQuery", q, answer)
}

// language returns what the sessions use to query the editor's language
// servers. It returns nil when the client did not declare that it answers
// tandem/languageQuery; the code tool is then hidden.
func (s *Server) language() tools.Language {
	if !s.client.Supports("experimental.tandem.languageQuery") {
		return nil
	}
	return languageServers{s.client}
}
