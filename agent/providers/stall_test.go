package providers_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tandemdev/tandem/agent/providers"
	"github.com/tandemdev/tandem/agent/providers/scripted"
)

func stallAfter(n int) scripted.Faults { return scripted.Faults{StallAfter: &n} }

// firstText is how many events of a stream come before its first text:
// Anthropic's message_start and content_block_start, Chat Completions'
// opening chunk.
var firstText = map[scripted.Format]int{scripted.Anthropic: 2, scripted.OpenAIChat: 1}

// A provider that goes silent before its headers, after them, or before
// any text is cut after the idle timeout (the default, on the bubble's
// clock) and tried again, the status saying why.
func TestLaw_stalled_provider_is_cut_and_retried(t *testing.T) {
	for _, f := range formats {
		for name, faults := range map[string]scripted.Faults{
			"before headers":  {StallHeaders: true},
			"after headers":   stallAfter(0),
			"before any text": stallAfter(firstText[f]),
		} {
			t.Run(string(f)+"/"+name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					s, hc := servePiped(t, f, scripted.Response{Parts: []scripted.Part{text("lost")}, Faults: faults},
						scripted.Response{Parts: []scripted.Part{text("fine")}})
					start := time.Now()
					r := run(t.Context(), clientOver(hc, f, s.URL(), "", 0), hello)
					took := time.Since(start)
					if r.err != nil || r.text() != "fine" || len(s.Requests()) != 2 {
						t.Fatalf("%v %q after %d requests", r.err, r.text(), len(s.Requests()))
					}
					retries := r.retries()
					if len(retries) != 1 || !strings.Contains(retries[0].Reason, "sent nothing for 2m0s") {
						t.Fatalf("retries %+v", retries)
					}
					if idle := providers.DefaultIdleTimeout; took < idle || took > idle+retries[0].Wait+time.Second {
						t.Errorf("the stall was noticed after %v; want %v and the retry's wait", took, idle)
					}
				})
			})
		}
	}
}

// A stall after text was shown is tried again from the start: the retry
// is marked Restart, so the caller can void what the cut attempt showed,
// and the response holds the new answer alone. Every byte puts the
// watchdog back, so a slow stream is not cut.
func TestStallMidTextRestartsTheCall(t *testing.T) {
	const idle = 30 * time.Second
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				slow := scripted.Response{Parts: []scripted.Part{text("slow "), text("but "), text("steady ")}, Faults: scripted.Faults{DelayMs: 20_000}}
				stalled := scripted.Response{Parts: []scripted.Part{text("half"), text("never")}, Faults: stallAfter(firstText[f] + 1)}
				s, hc := servePiped(t, f, slow, stalled, scripted.Response{Parts: []scripted.Part{text("whole")}})
				p := clientOverIdle(hc, f, s.URL(), idle, 1)
				if r := run(t.Context(), p, hello); r.err != nil || r.text() != "slow but steady " {
					t.Fatalf("a stream with 20 s between events under a 30 s idle timeout: %v %q", r.err, r.text())
				}
				start := time.Now()
				r := run(t.Context(), p, hello)
				if r.err != nil || r.text() != "halfwhole" || len(r.resp.Message.Blocks) != 1 || r.resp.Message.Blocks[0].Text != "whole" {
					t.Fatalf("error %v, text shown %q, response %+v", r.err, r.text(), r.resp.Message.Blocks)
				}
				retries := r.retries()
				if len(retries) != 1 || !retries[0].Restart || !strings.Contains(retries[0].Reason, "sent nothing for 30s") {
					t.Fatalf("retries %+v", retries)
				}
				if len(s.Requests()) != 3 {
					t.Errorf("%d requests", len(s.Requests()))
				}
				if took := time.Since(start); took != idle+retries[0].Wait {
					t.Errorf("answered after %v, want %v and the retry's wait", took, idle)
				}
			})
		})
	}
}

// A provider that stalls mid-text on every attempt ends the call after
// the retries with ErrStalled, the last attempt's text in the response.
func TestStallMidTextGivesUpAfterRetries(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stalled := func(s string) scripted.Response {
					return scripted.Response{Parts: []scripted.Part{text(s), text("never")}, Faults: stallAfter(firstText[f] + 1)}
				}
				s, hc := servePiped(t, f, stalled("first"), stalled("second"), scripted.Response{Parts: []scripted.Part{text("unasked")}})
				r := run(t.Context(), clientOverIdle(hc, f, s.URL(), time.Second, 1), hello)
				if !errors.Is(r.err, providers.ErrStalled) || !strings.Contains(r.err.Error(), "sent nothing for 1s (gave up after 1 retries)") {
					t.Fatalf("error %v", r.err)
				}
				if e, ok := errors.AsType[*providers.Error](r.err); !ok || !e.Retryable {
					t.Errorf("error %#v is not a retryable *Error", r.err)
				}
				if r.text() != "firstsecond" || r.resp.Message.Blocks[0].Text != "second" || len(s.Requests()) != 2 {
					t.Errorf("text shown %q, response %+v, %d requests", r.text(), r.resp.Message.Blocks, len(s.Requests()))
				}
			})
		})
	}
}

// A provider that always stalls is given up after the retries, with a
// clear error.
func TestStallGivesUpAfterRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stall := scripted.Response{Faults: scripted.Faults{StallHeaders: true}}
		s, hc := servePiped(t, scripted.Anthropic, stall, stall, stall)
		p := providers.NewAnthropic(providers.AnthropicOptions{URL: s.URL(), HTTPClient: hc, MaxRetries: 2, IdleTimeout: time.Second})
		r := run(t.Context(), p, hello)
		if !errors.Is(r.err, providers.ErrStalled) || !strings.Contains(r.err.Error(), "sent nothing for 1s (gave up after 2 retries)") {
			t.Fatalf("error %v", r.err)
		}
		if len(r.retries()) != 2 || len(s.Requests()) != 3 {
			t.Errorf("%d retries, %d requests", len(r.retries()), len(s.Requests()))
		}
	})
}

// A 100 MB line is read no further than MaxEventBytes: the call ends with
// ErrEventTooLong, not retried, and the client's memory does not grow
// with the line.
func TestEventTooLong(t *testing.T) {
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			s := serve(t, f, scripted.Response{Parts: []scripted.Part{text("x")}, Faults: scripted.Faults{LongLine: 100 << 20}},
				scripted.Response{Parts: []scripted.Part{text("unasked")}})
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r := run(t.Context(), client(f, s.URL(), "", 0), hello)
			runtime.ReadMemStats(&after)
			if !errors.Is(r.err, providers.ErrEventTooLong) || !strings.Contains(r.err.Error(), "over 16 MiB") {
				t.Fatalf("error %v", r.err)
			}
			if len(s.Requests()) != 1 || len(r.events) != 0 {
				t.Errorf("%d requests, events %v", len(s.Requests()), r.kinds())
			}
			// Reading to the line's end would allocate more than its 100 MB.
			grew := after.TotalAlloc - before.TotalAlloc
			if grew > 3*providers.MaxEventBytes {
				t.Errorf("%d MiB allocated while reading the stream", grew>>20)
			}
			t.Logf("%d MiB allocated while reading a 100 MB line", grew>>20)
		})
	}
}

// Time tandem spends between reads — a client slow to take what is shown
// — is not the provider's silence: the stream is not cut.
func TestSlowClientIsNoStall(t *testing.T) {
	const idle = 30 * time.Second
	for _, f := range formats {
		t.Run(string(f), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, hc := servePiped(t, f, scripted.Response{Parts: []scripted.Part{text("one "), text("two "), text("three")}})
				var got strings.Builder
				_, err := clientOverIdle(hc, f, s.URL(), idle, -1).Stream(t.Context(), hello, func(e providers.Event) {
					got.WriteString(e.Text)
					time.Sleep(2 * idle) // on the bubble's clock
				})
				if err != nil || got.String() != "one two three" {
					t.Fatalf("%v %q", err, got.String())
				}
			})
		})
	}
}
