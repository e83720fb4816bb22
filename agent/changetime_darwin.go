package agent

import (
	"os"
	"syscall"
	"time"
)

// changeTime is the inode's change time: a write that keeps the size and
// restores the modification time still moves it.
func changeTime(fi os.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctimespec.Unix())
	}
	return time.Time{}
}
