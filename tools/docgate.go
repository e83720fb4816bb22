package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tandemdev/tandem/approvals"
	"github.com/tandemdev/tandem/documents"
	"github.com/tandemdev/tandem/refusal"
)

// gateDocument passes a document tool's read, listing or search of p (the
// workspace root when empty) through the session's gate before it happens:
// one of a secret, or a search of a directory holding one, asks; the rest
// runs within the auto set. A path the tool cannot resolve is left to the
// tool, which refuses it in its own words.
func (s *Session) gateDocument(ctx context.Context, acc approvals.Access, p string) error {
	abs := ""
	if p == "" {
		if len(s.Roots) == 0 {
			return nil
		}
		abs = s.Roots[0]
	} else {
		var err error
		if abs, err = documents.Resolve(s.Roots, p); err != nil {
			return nil
		}
	}
	if acc == approvals.AccessRead {
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			acc = approvals.AccessList
		}
	}
	_, err := s.Gate().Access(ctx, acc, filepath.Dir(abs), abs)
	if err != nil && ctx.Err() != nil {
		// The call ended (cancelled, or its session closed) before anyone
		// answered: it was cancelled, not left unanswered.
		return refusal.New(refusal.Cancelled, fmt.Sprintf("The call was cancelled while the %s awaited the user's approval; it did not run. Call again if the user still wants it.", acc))
	}
	return err
}
