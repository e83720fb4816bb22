package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"golang.org/x/sys/unix"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/internal/prereq"
)

// smallDisk mounts a tmpfs of size bytes on a fresh directory, for the
// time of the test.
func smallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0700"); err != nil {
		prereq.Missing(t, "mounting a tmpfs ("+err.Error()+")", "run the tests as root, as the test command and CI do")
	}
	t.Cleanup(func() { _ = unix.Unmount(dir, 0) })
	return dir
}

// fill takes every free byte of the file system of dir but spare's.
func fill(t *testing.T, dir string, spare int) (release func()) {
	t.Helper()
	keep := filepath.Join(dir, "spare")
	if err := os.WriteFile(keep, make([]byte, spare), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			break
		}
	}
	f.Close()
	if err := os.Remove(keep); err != nil {
		t.Fatal(err)
	}
	return func() { _ = os.Remove(filepath.Join(dir, "fill")) }
}

// A full disk: a record whose write fails partway is cut off, so the file
// stays loadable (a fresh load has every turn before it); the chat says so
// once and goes on; once there is room again, the next turn writes what
// was missing, then its own messages, and the chat loads whole.
func TestFullDiskCutsTheTornRecordAndCatchesUp(t *testing.T) {
	const id = "00000000000000d1"
	disk := smallDisk(t, "256k")
	s := newStoredChat(t, filepath.Join(disk, "chats"))
	s.m.Responses = []func(providers.Request) providers.Response{fake.Say("first"), fake.Say("second"), fake.Say("third")}
	c := NewChat(s.options(id))
	defer c.Close()
	if _, err := c.Prompt(context.Background(), textPrompt("one"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	release := fill(t, disk, 8192)
	big := strings.Repeat("a long prompt that does not fit on the disk ", 1000) // 44 KB: its write fails partway
	var u updates
	if _, err := c.Prompt(context.Background(), textPrompt(big), u.emit); err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, x := range u.all {
		if x.AgentThoughtChunk != nil {
			notes = append(notes, x.AgentThoughtChunk.Content.Text.Text)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "could not be saved just now") || !strings.Contains(notes[0], "no space left on device") {
		t.Fatalf("the chat was told %q", notes)
	}
	file := filepath.Join(s.store.dir, id+".jsonl")
	raw, _ := os.ReadFile(file)
	if !strings.HasSuffix(string(raw), "\n") || strings.Contains(string(raw), "a long prompt") {
		t.Fatalf("the failed record was not cut off: %d bytes, ends %q", len(raw), raw[max(0, len(raw)-40):])
	}
	if _, msgs, err := s.store.Load(id); err != nil || len(msgs) != 2 {
		t.Fatalf("a fresh load on the full disk: %d messages, %v", len(msgs), err)
	}
	if notes := s.replayNotes(id); len(notes) != 0 {
		t.Fatalf("the cut file still has damage: %q", notes)
	}

	release()
	u = updates{}
	if _, err := c.Prompt(context.Background(), textPrompt("three"), u.emit); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(thoughtText(u.all), "this chat is saved again") {
		t.Fatalf("the chat was not told it is saved again: %q", thoughtText(u.all))
	}
	_, msgs, err := s.store.Load(id)
	if err != nil || len(msgs) != 6 {
		t.Fatalf("after room was made: %d messages, %v", len(msgs), err)
	}
	var said []string
	for _, m := range msgs {
		said = append(said, m.Blocks[0].Text[:min(5, len(m.Blocks[0].Text))])
	}
	if strings.Join(said, ",") != "one,first,a lon,secon,three,third" {
		t.Fatalf("the chat on disk: %v", said)
	}
}

// A process whose records could not be saved (a full disk: the prompt, the
// answer and the turn's meter) while another process went on with the chat
// drops them, and says so, rather than write
// them after the other's turns out of order.
func TestUnsavedRecordsGiveWayToAnotherProcessesTurns(t *testing.T) {
	const id = "00000000000000d2"
	disk := smallDisk(t, "256k")
	s := newStoredChat(t, filepath.Join(disk, "chats"))
	s.turn(id, "one", fake.Say("first"))
	c, err := ResumeChat(s.options(id), id)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	release := fill(t, disk, 4096)
	s.m.Responses = []func(providers.Request) providers.Response{fake.Say("not saved")}
	if _, err := c.Prompt(context.Background(), textPrompt(strings.Repeat("too big for the disk ", 1000)), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	release()
	s.turn(id, "elsewhere", fake.Say("from the other process"))
	s.m.Responses = []func(providers.Request) providers.Response{fake.Say("back")}
	var u updates
	if _, err := c.Prompt(context.Background(), textPrompt("back here"), u.emit); err != nil {
		t.Fatal(err)
	}
	if got := thoughtText(u.all); !strings.Contains(got, "(3 records of this chat that could not be saved here were dropped: the chat went on in another tandem meanwhile)") {
		t.Fatalf("the client was told %q", got)
	}
	_, msgs, err := s.store.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, m := range msgs {
		said = append(said, m.Blocks[0].Text)
	}
	if strings.Join(said, "|") != "one|first|elsewhere|from the other process|back here|back" {
		t.Fatalf("the chat file holds %q", said)
	}
}
