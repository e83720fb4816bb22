//go:build !linux

package bridge

// resultBuffer returns a zeroed buffer for a reply of n bytes.
func resultBuffer(n int) []byte { return make([]byte, n) }
