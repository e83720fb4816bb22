package documents

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"github.com/tandemdev/tandem/refusal"
)

// MaxFileBytes is the one size limit (4 MiB) of every documents tool: a
// larger file has no tag, so it can be read in ranges but not edited by line.
const MaxFileBytes = 4 << 20

// Snapshot is what the agent sees of a path: the open editor buffer if the
// editor has the path open, else the bytes on disk.
type Snapshot struct {
	Content    []byte
	FromBuffer bool  // Content is the editor's buffer, not the disk
	Dirty      bool  // the buffer has changes the editor has not saved
	Version    int32 // the buffer's version (0 when from disk)
	// Lost is why the editor's buffer of the file is not mirrored although
	// the editor has it open: Content is the disk, which may lack what the
	// user typed. Empty when the mirror is in step or the file is not open.
	Lost string
}

// Tag returns the tag that names exactly the snapshot's content.
func (s Snapshot) Tag() Tag { return TagOf(s.Content) }

// Load returns the snapshot of the file at abs. A file over MaxFileBytes is
// the refusal too_large; a binary or non-UTF-8 file is the refusal encoding,
// naming the path and what was found. A directory or missing file is a
// refusal too. buffers may be nil.
func Load(buffers *Overlay, abs string) (Snapshot, error) {
	if s, open, err := loadBuffer(buffers, abs); open {
		if err != nil {
			return Snapshot{}, err
		}
		return s, nil
	}
	info, err := os.Stat(abs)
	if err != nil {
		return Snapshot{}, statRefusal(abs, err)
	}
	s, err := loadFile(abs, info)
	s.Lost = lostReason(buffers, abs)
	return s, err
}

// lostReason returns why the editor's buffer of abs is not mirrored although
// the editor has it open; empty when it is mirrored or not open.
func lostReason(buffers *Overlay, abs string) string {
	if buffers == nil {
		return ""
	}
	reason, _ := buffers.Lost(abs)
	return reason
}

// loadBuffer returns the snapshot of the editor's buffer of abs; open is
// false when the editor does not have abs open. A buffer that fails Check
// comes back with its content and the refusal, so a ranged read can still
// show it.
func loadBuffer(buffers *Overlay, abs string) (s Snapshot, open bool, err error) {
	if buffers == nil {
		return Snapshot{}, false, nil
	}
	b, ok := buffers.Get(abs)
	if !ok {
		return Snapshot{}, false, nil
	}
	s = Snapshot{Content: b.Text, FromBuffer: true, Dirty: b.Dirty, Version: b.Version}
	return s, true, Check(abs, s.Content)
}

// loadFile reads the file at abs, whose stat the caller already has.
func loadFile(abs string, info fs.FileInfo) (Snapshot, error) {
	if info.IsDir() {
		return Snapshot{}, refusal.New(refusal.Invalid, fmt.Sprintf(
			"%s is a directory, not a file. Read the directory to list its entries, then name a file in it.", abs))
	}
	if !info.Mode().IsRegular() {
		// A pipe or a device can block a read forever, or never end.
		return Snapshot{}, refusal.New(refusal.Invalid, fmt.Sprintf(
			"%s is not a regular file (%s), so tandem does not read it. Use the shell if you need its data.", abs, info.Mode().Type()))
	}
	if info.Size() > MaxFileBytes {
		return Snapshot{}, tooLarge(abs, info.Size())
	}
	content, _, _, err := readCapped(abs)
	if err != nil {
		return Snapshot{}, statRefusal(abs, err)
	}
	if err := Check(abs, content); err != nil {
		return Snapshot{}, err
	}
	return Snapshot{Content: content}, nil
}

// Check applies the size limit and the encoding rule to content of path.
func Check(path string, content []byte) error {
	if len(content) > MaxFileBytes {
		return tooLarge(path, int64(len(content)))
	}
	if what := Encoding(content); what != "" {
		return refusal.New(refusal.Encoding, fmt.Sprintf(
			"%s is not UTF-8 text: %s. tandem shows text files only; inspect it with the shell (for example xxd or iconv) if you need it.", path, what))
	}
	return nil
}

// Encoding says what makes content not UTF-8 text, or "" when it is text.
// A NUL byte means binary (as git and ripgrep decide).
func Encoding(content []byte) string {
	switch {
	case bytes.HasPrefix(content, []byte{0xFF, 0xFE}):
		return "UTF-16 little-endian (byte order mark FF FE)"
	case bytes.HasPrefix(content, []byte{0xFE, 0xFF}):
		return "UTF-16 big-endian (byte order mark FE FF)"
	}
	if i := bytes.IndexByte(content, 0); i >= 0 {
		return fmt.Sprintf("binary data (a NUL byte at offset %d)", i)
	}
	if utf8.Valid(content) {
		return ""
	}
	off := 0
	for off < len(content) {
		r, size := utf8.DecodeRune(content[off:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		off += size
	}
	line := bytes.Count(content[:off], []byte{'\n'}) + 1
	return fmt.Sprintf("invalid UTF-8 (byte 0x%02X at offset %d, line %d; perhaps Latin-1 or another 8-bit encoding)", content[off], off, line)
}

func tooLarge(path string, size int64) error {
	return refusal.New(refusal.TooLarge, fmt.Sprintf(
		"%s is %s, over the 4 MiB limit, so it has no tag and cannot be edited by line. Read it in ranges (lines, such as \"1-200\"); neither edit nor write changes a file this large, so change it with the shell (sed, a script).",
		path, humanSize(size)))
}

// NamedAs gives a refusal about abs, as Load makes it (it knows no
// roots), the path as the model sees it, so no refusal shows an absolute
// path where everything else is relative.
func NamedAs(err error, abs, show string) error {
	var r *refusal.Error
	if !errors.As(err, &r) || abs == show || !strings.HasPrefix(r.Text, abs) {
		return err
	}
	return refusal.New(r.Code, show+strings.TrimPrefix(r.Text, abs))
}

func statRefusal(path string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return refusal.New(refusal.NotFound, fmt.Sprintf(
			"%s does not exist. Check the name, or find it with glob.", path))
	case errors.Is(err, syscall.ELOOP):
		return refusal.New(refusal.Failed, fmt.Sprintf(
			"%s is a loop of symbolic links that never reaches a file. Name the file the links should lead to.", path))
	case errors.Is(err, fs.ErrPermission):
		return refusal.New(refusal.Failed, fmt.Sprintf(
			"%s cannot be read (%v). Check its permissions, or read another path.", path, err))
	}
	return refusal.New(refusal.Failed, fmt.Sprintf(
		"%s cannot be read (%v). Check the path, or read another one.", path, err))
}

func humanSize(n int64) string {
	if n < 1<<10 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%s (%d bytes)", ShortSize(n), n)
}

// readCapped reads a file, stopping after MaxFileBytes+1 bytes
// (large: more was there) or at the first chunk holding a NUL byte (binary:
// the rest need not be read). It uses raw system calls: a search opens
// thousands of files, and os.File's poller registration and finalizer
// would cost more than the read of a small file.
func readCapped(path string) (content []byte, large, binary bool, err error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false, false, err
	}
	defer unix.Close(fd)
	// Room for the whole file and one byte more, where the read meets its
	// end, in one allocation: a buffer grown step by step leaves its
	// smaller copies to the collector.
	var buf []byte
	mapped := false // the pages of all of buf are mapped in
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil {
		buf = make([]byte, 0, int(min(st.Size, MaxFileBytes+1))+1)
	}
	for {
		if len(buf) == cap(buf) { // the file grew since its stat
			grown := make([]byte, len(buf), 2*cap(buf)+64<<10)
			prefault(grown)
			copy(grown, buf)
			buf = grown
		}
		end := cap(buf)
		if len(buf) == 0 { // a binary file shows its NUL early: read a little first
			end = min(end, 64<<10)
			prefault(buf[:0:end])
		} else if !mapped {
			prefault(buf[len(buf):]) // the rest, once the first read found text
		}
		mapped = len(buf) > 0
		n, err := unix.Read(fd, buf[len(buf):end])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return buf, false, false, err
		}
		if bytes.IndexByte(buf[len(buf):len(buf)+n], 0) >= 0 {
			return buf[:len(buf)+n], false, true, nil
		}
		buf = buf[:len(buf)+n]
		if len(buf) > MaxFileBytes {
			return buf, true, false, nil
		}
		if n == 0 {
			return buf, false, false, nil
		}
	}
}
