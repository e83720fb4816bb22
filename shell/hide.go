package shell

import (
	"bytes"
	"sort"
)

// hider keeps the values of the session's credentials and keys out of what
// a run shows — its output, its steps' texts and paths, its errors — so
// they reach no model, chat file or log: each is replaced by a marker that
// names its variable. A step may still need a value (the bridge's token for
// `tandem mcp call`, a variable the user passes): it gets it, and whatever
// it prints of it verbatim is hidden. A nil hider hides nothing.
type hider struct {
	values [][]byte          // longest first, so a value holding another is hidden whole
	names  map[string]string // value → its variable
	first  [256]bool         // the first bytes of the values
}

func newHider(hidden map[string]string) *hider {
	if len(hidden) == 0 {
		return nil
	}
	h := &hider{names: hidden}
	for v := range hidden {
		h.values = append(h.values, []byte(v))
		h.first[v[0]] = true
	}
	sort.Slice(h.values, func(i, j int) bool {
		if len(h.values[i]) != len(h.values[j]) {
			return len(h.values[i]) > len(h.values[j])
		}
		return bytes.Compare(h.values[i], h.values[j]) < 0
	})
	return h
}

// marker returns the text that stands for a hidden value of the variable
// name.
func marker(name string) string { return "[hidden: $" + name + "]" }

// text returns s with every value hidden.
func (h *hider) text(s string) string {
	out, _ := h.scan([]byte(s), true)
	return string(out)
}

// scan hides every value in b. Unless final, a tail of b that may begin a
// value is held back (rest) to be scanned again with the bytes that follow
// it, so a value written in two pieces is hidden too.
func (h *hider) scan(b []byte, final bool) (out, rest []byte) {
	if h == nil {
		return b, nil
	}
	out = make([]byte, 0, len(b))
	start := 0
	for i := 0; i < len(b); {
		if !h.first[b[i]] {
			i++
			continue
		}
		// A value cut short here may yet be the longer one of two.
		if !final && h.begins(b[i:]) {
			return append(out, b[start:i]...), b[i:]
		}
		if v := h.at(b[i:]); v != nil {
			out = append(append(out, b[start:i]...), marker(h.names[string(v)])...)
			i += len(v)
			start = i
			continue
		}
		i++
	}
	return append(out, b[start:]...), nil
}

// at returns the value b starts with, or nil when none does.
func (h *hider) at(b []byte) []byte {
	for _, v := range h.values {
		if bytes.HasPrefix(b, v) {
			return v
		}
	}
	return nil
}

// begins reports whether b is the start of a value, cut short.
func (h *hider) begins(b []byte) bool {
	for _, v := range h.values {
		if len(b) < len(v) && bytes.HasPrefix(v, b) {
			return true
		}
	}
	return false
}
