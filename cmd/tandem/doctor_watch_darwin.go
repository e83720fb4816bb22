package main

// watchesInUse: macOS watches with kqueue, one descriptor per watch, bounded
// by the open-files limit rather than a count to read.
func watchesInUse() (used, limit int, ok bool) { return 0, 0, false }
