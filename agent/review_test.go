package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/fake"
	"github.com/tandemdev/tandem/edits"
)

// Through _tandem/changes and _tandem/undo, as the editor's review uses
// them: a turn changes two places of a file, the user then changes a third.
// The turn's hunks are listed where they stand now; undoing one hunk puts
// back only its lines and keeps the other hunk and the user's line byte for
// byte; the undo is a turn that restoring undoes; a hunk the user changed
// since is refused, naming the line, and nothing changes; restoring the
// same turn twice says the second time that nothing changed.
func TestUndoOneHunkKeepsTheUsersLaterChange(t *testing.T) {
	m := &fake.Model{}
	svc, ws := testService(t, m, nil)
	file := filepath.Join(ws, "a.txt")
	const before = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"
	const agent = "one\nTWO\nthree\nfour\nFIVE\nsix\nseven\n"
	if err := os.WriteFile(file, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("r", "read", map[string]any{"path": "a.txt"})),
		fake.Call(fake.Use("w", "write", map[string]any{"path": "a.txt", "content": agent})),
		fake.Say("done"),
	}
	s, err := svc.New(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Prompt(context.Background(), s.SessionId, textPrompt("capitalize"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	const user = "one\nTWO\nthree\nfour\nFIVE\nsix\nseven, the user's\n"
	if err := os.WriteFile(file, []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	call := func(method string, params map[string]any) json.RawMessage {
		t.Helper()
		params["sessionId"] = s.SessionId
		raw, _ := json.Marshal(params)
		out, err := svc.Extension(context.Background(), method, raw)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		b, _ := json.Marshal(out)
		return b
	}
	changes := func(turn int) []FileReview {
		t.Helper()
		var r struct{ Files []FileReview }
		if err := json.Unmarshal(call(MethodChanges, map[string]any{"turn": turn}), &r); err != nil {
			t.Fatal(err)
		}
		return r.Files
	}
	undo := func(params map[string]any) RestoreReply {
		t.Helper()
		var r RestoreReply
		if err := json.Unmarshal(call(MethodUndo, params), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	holds := func(want string) {
		t.Helper()
		if got, _ := os.ReadFile(file); string(got) != want {
			t.Fatalf("a.txt holds %q, want %q", got, want)
		}
	}

	fs := changes(0)
	if len(fs) != 1 || fs[0].Path != file || fs[0].Before == nil || *fs[0].Before != before || len(fs[0].Hunks) != 2 {
		t.Fatalf("changes of turn 0: %+v", fs)
	}
	for i, line := range []int{1, 4} {
		h := fs[0].Hunks[i]
		if h.State != edits.HunkApplied || h.Now == nil || *h.Now != [2]int{line, line + 1} || h.After != [2]int{line, line + 1} {
			t.Fatalf("hunk %d: %+v, want applied at line %d", i, h, line)
		}
	}

	r := undo(map[string]any{"turn": 0, "path": "a.txt", "hunks": []int{0}})
	if r.IsError || r.Turn == nil || !strings.Contains(r.Text, "a.txt") {
		t.Fatalf("undo of hunk 0: %+v", r)
	}
	holds("one\ntwo\nthree\nfour\nFIVE\nsix\nseven, the user's\n")
	fs = changes(0)
	if fs[0].Hunks[0].State != edits.HunkUndone || fs[0].Hunks[1].State != edits.HunkApplied {
		t.Fatalf("after undoing hunk 0: %+v", fs[0].Hunks)
	}

	var again RestoreReply
	if err := json.Unmarshal(call(MethodRestore, map[string]any{"turn": *r.Turn}), &again); err != nil || again.IsError {
		t.Fatalf("undoing the undo: %+v %v", again, err)
	}
	holds(user)

	// The user now changes the agent's second hunk: undoing it would lose that.
	const mine = "one\nTWO\nthree\nfour\nFive, the user's\nsix\nseven, the user's\n"
	if err := os.WriteFile(file, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	if h := changes(0)[0].Hunks[1]; h.State != edits.HunkChanged || h.Now != nil {
		t.Fatalf("a hunk the user changed reads %+v", h)
	}
	r = undo(map[string]any{"turn": 0, "path": "a.txt", "hunks": []int{1}})
	if !r.IsError || r.Code != "conflict" || !strings.Contains(r.Text, "a.txt (your later changes overlap the agent's at line 5)") || r.Turn != nil {
		t.Fatalf("undo of a hunk the user changed: %+v", r)
	}
	holds(mine)

	// Restore twice: the second click changes nothing, and says so. (The
	// file as the last restore left it, so the restore puts it all back.)
	if err := os.WriteFile(file, []byte(user), 0o644); err != nil {
		t.Fatal(err)
	}
	var first, second RestoreReply
	_ = json.Unmarshal(call(MethodRestore, map[string]any{"turn": 0}), &first)
	holds(before)
	_ = json.Unmarshal(call(MethodRestore, map[string]any{"turn": 0}), &second)
	if first.IsError || strings.Count(first.Text, "Restored a.txt.") != 1 || second.IsError || second.Turn != nil ||
		second.Text != "Nothing changed: already as before that turn: a.txt.\n" {
		t.Fatalf("restore twice:\n%+v\n%+v", first, second)
	}
	holds(before)
}

// Keep is kept: the hunks a user kept in a turn's review are listed as
// kept by _tandem/changes, in the chat reopened from its file too; a file
// the turn did not change, and no hunks, are refused.
func TestKeptHunksAreListedInTheReopenedChat(t *testing.T) {
	m := &fake.Model{}
	svc, ws := testService(t, m, nil)
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\ntwo\nthree\nfour\nfive\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m.Responses = []func(providers.Request) providers.Response{
		fake.Call(fake.Use("r", "read", map[string]any{"path": "a.txt"})),
		fake.Call(fake.Use("w", "write", map[string]any{"path": "a.txt", "content": "ONE\ntwo\nthree\nfour\nFIVE\n"})),
		fake.Say("done"),
	}
	s, err := svc.New(ws, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Prompt(context.Background(), s.SessionId, textPrompt("capitalize"), func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	call := func(method string, params map[string]any) (json.RawMessage, error) {
		params["sessionId"] = s.SessionId
		raw, _ := json.Marshal(params)
		out, err := svc.Extension(context.Background(), method, raw)
		b, _ := json.Marshal(out)
		return b, err
	}
	for _, bad := range []map[string]any{
		{"turn": 0, "path": "b.txt", "hunks": []int{0}},
		{"turn": 0, "path": "a.txt", "hunks": []int{}},
		{"turn": 3, "path": "a.txt", "hunks": []int{0}},
	} {
		if _, err := call(MethodKeep, bad); err == nil {
			t.Errorf("keep %v was not refused", bad)
		}
	}
	if _, err := call(MethodKeep, map[string]any{"turn": 0, "path": "a.txt", "hunks": []int{1}}); err != nil {
		t.Fatal(err)
	}
	kept := func() []int {
		t.Helper()
		raw, err := call(MethodChanges, map[string]any{"turn": 0})
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ Files []FileReview }
		if err := json.Unmarshal(raw, &r); err != nil || len(r.Files) != 1 || len(r.Files[0].Hunks) != 2 {
			t.Fatalf("changes: %s (%v)", raw, err)
		}
		return r.Files[0].Kept
	}
	if k := kept(); len(k) != 1 || k[0] != 1 {
		t.Fatalf("kept %v; want [1]", k)
	}
	svc.Close(s.SessionId)
	if _, err := svc.Load(ws, string(s.SessionId), nil, func(acp.SessionUpdate) {}); err != nil {
		t.Fatal(err)
	}
	if k := kept(); len(k) != 1 || k[0] != 1 {
		t.Fatalf("the reopened chat lists kept %v; want [1], as the live one", k)
	}
}
