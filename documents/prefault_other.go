//go:build !linux

package documents

// prefault is a no-op where the system has no advice to map pages ahead.
func prefault([]byte) {}
