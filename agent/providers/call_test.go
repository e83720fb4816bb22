package providers

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		header http.Header
		want   time.Duration
	}{
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}, 7 * time.Second},
		{http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"3"}}, 250 * time.Millisecond}, // the finer one wins
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{}, 0},
	}
	for _, c := range cases {
		if got := retryAfter(c.header, now); got != c.want {
			t.Errorf("%v: %v, want %v", c.header, got, c.want)
		}
	}
}

func TestBackoffGrowsAndStaysCapped(t *testing.T) {
	for n := 1; n <= 10; n++ {
		d := backoff(n)
		top := min(firstBackoff<<(n-1), maxBackoff)
		if d > top || d < top*3/4 {
			t.Errorf("backoff(%d) = %v, want within [%v, %v]", n, d, top*3/4, top)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`: "Overloaded",
		`{"error":{"message":"bad model","type":"invalid_request_error"}}`:            "bad model",
		`{"error":"model not found"}`:                                                 "model not found",
		`{"message":"nope"}`:                                                          "nope",
		"<html>502</html>\n":                                                          "<html>502</html>",
		"":                                                                            "no message",
	} {
		if got := errorMessage([]byte(body)); got != want {
			t.Errorf("%s: %q, want %q", body, got, want)
		}
	}
}
