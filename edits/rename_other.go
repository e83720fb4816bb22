//go:build !linux && !darwin

package edits

import "errors"

// renameNoReplace has no atomic form here: a move on a filesystem without
// hard links fails rather than risk replacing a file.
func renameNoReplace(from, to string) error { return errors.ErrUnsupported }
