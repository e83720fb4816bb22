package edits

import "golang.org/x/sys/unix"

// renameNoReplace renames from to to, failing when to exists
// (renamex_np RENAME_EXCL).
func renameNoReplace(from, to string) error {
	return unix.RenamexNp(from, to, unix.RENAME_EXCL)
}
