package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/tandemdev/tandem/acpserver/acptest"
	"github.com/tandemdev/tandem/agent/providers/scripted"
)

// Through the real binary under an ACP client, a scripted model calls
// fetch on a page served on loopback: with net in the user's auto set (the
// default) it runs unasked, and the model's next request carries the page
// as markdown under its final URL; with net left out, the client is asked,
// as a fetch, in the model's call, and told the address is loopback. The
// provider's key never reaches the page's server.
func TestACPFetchesAPage(t *testing.T) {
	onBothWires(t, acpFetchesAPage)
}

func acpFetchesAPage(t *testing.T, format scripted.Format) {
	var mu sync.Mutex
	var got []http.Header
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		mu.Unlock()
		if r.URL.Path == "/start" {
			http.Redirect(w, r, "/notes", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Release notes</title></head><body><h1>Release notes</h1><h2>Version 2</h2><p>The widget now turns both ways.</p></body></html>`)
	}))
	defer page.Close()
	const key = "sk-test-fetch-51c2"
	for _, c := range []struct {
		name  string
		auto  string
		asked bool
	}{
		{"net in the auto set", "", false},
		{"net asked", `, "shell": {"autoEffects": ["read"]}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := startScripted(t, scripted.Script{Format: format, Responses: []scripted.Response{
				{Parts: []scripted.Part{{Tool: &scripted.ToolCall{ID: "toolu_f", Name: "fetch", Input: json.RawMessage(`{"url":"` + page.URL + `/start"}`)}}}},
				{Parts: []scripted.Part{{Text: "Read it."}}},
			}})
			xdg := t.TempDir()
			settings := fakeProviderSettings(srv, format, "", c.auto)
			writeUserSettings(t, xdg, settings)
			ws := t.TempDir()
			client := &acptest.Client{Answer: acptest.Select("allow_once")}
			p := startACP(t, builtTandem(t), ws, client, "FAKE_PROVIDER_KEY="+key,
				"XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"))
			id := p.open(t, ws)
			if stop, err := p.prompt(id, "What changed in version 2?"); err != nil || stop != acp.StopReasonEndTurn {
				t.Fatalf("prompt: %q, %v\n%s", stop, err, p.stderr)
			}
			if got := client.Statuses("toolu_f"); len(got) == 0 || got[len(got)-1] != acp.ToolCallStatusCompleted {
				t.Errorf("fetch statuses: %v", got)
			}
			for _, u := range client.Updates() {
				if u.ToolCall != nil && u.ToolCall.ToolCallId == "toolu_f" && (u.ToolCall.Kind != acp.ToolKindFetch || u.ToolCall.Title != "Fetch "+page.URL+"/start") {
					t.Errorf("the call is shown as %q, %q", u.ToolCall.Kind, u.ToolCall.Title)
				}
			}
			asked := client.Asked()
			if !c.asked && len(asked) != 0 {
				t.Errorf("asked %d questions with net in the auto set", len(asked))
			}
			if c.asked {
				if len(asked) != 1 || asked[0].ToolCall.ToolCallId != "toolu_f" || asked[0].ToolCall.Kind == nil || *asked[0].ToolCall.Kind != acp.ToolKindFetch ||
					asked[0].ToolCall.Title == nil || !strings.Contains(*asked[0].ToolCall.Title, "fetch "+page.URL+"/start — 127.0.0.1 is a loopback address, a service on this machine\n  effects: net") {
					t.Fatalf("permission requests: %+v", asked)
				}
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("the provider got %d requests", len(reqs))
			}
			for _, want := range []string{`[` + page.URL + `/notes] Release notes`, `(redirected from ` + page.URL + `/start)`, `:## Version 2`, `:The widget now turns both ways.`} {
				if b, _ := json.Marshal(want); !strings.Contains(string(reqs[1].Body), strings.Trim(string(b), `"`)) {
					t.Errorf("the model did not get %q:\n%s", want, reqs[1].Body)
				}
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 4 {
		t.Errorf("the page's server got %d requests, want 4", len(got))
	}
	for _, h := range got {
		for name, vs := range h {
			if strings.Contains(strings.Join(vs, " "), key) || name == "Authorization" || name == "Cookie" || name == "X-Api-Key" {
				t.Errorf("the page's server got %s: %v", name, vs)
			}
		}
	}
}

// `tandem tool fetch` prints the page; with net left out of the user's
// auto set and no one to answer (standard input is not a terminal), it is
// refused as unanswered, exit 1, and the server gets nothing.
func TestToolFetchPrintsThePage(t *testing.T) {
	var mu sync.Mutex
	requests := 0
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		fmt.Fprint(w, "hello from the page\n")
	}))
	defer page.Close()
	run := func(settings string) (string, int) {
		xdg := t.TempDir()
		if settings != "" {
			writeUserSettings(t, xdg, settings)
		}
		cmd := exec.Command(builtTandem(t), "tool", "fetch", `{"url":"`+page.URL+`/p"}`)
		cmd.Dir = t.TempDir()
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(xdg, "config"), "XDG_STATE_HOME="+filepath.Join(xdg, "state"))
		out, _ := cmd.Output()
		return string(out), cmd.ProcessState.ExitCode()
	}
	if out, code := run(""); code != 0 || !strings.HasPrefix(out, "["+page.URL+"/p]\n(text/plain, 20 B)\n1:hello from the page\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	if out, code := run(`{"shell": {"autoEffects": ["read"]}}`); code != 1 || !strings.Contains(out, "(net) it needs the user's approval, and no answer came") {
		t.Errorf("without net: exit %d:\n%s", code, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if requests != 1 {
		t.Errorf("the server got %d requests, want 1", requests)
	}
}
