//go:build !linux

package main

// releaseExePages does nothing where the kernel keeps no per-process map of
// the executable's pages to read (/proc/self/maps).
func releaseExePages() {}
