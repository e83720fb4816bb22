// Package imagemap maps tandem's own program image into its page tables in
// one system call as the process starts, before most package set-up runs.
//
// A tandem command is often one short process (tandem tool, tandem mcp
// call), and its start is dominated by first touches of the executable's
// code and read-only data: each is a page fault, which on a virtual machine
// costs 10–30 µs. Mapping the image in at once took `tandem version` from
// 20 ms to 17 ms on the development machine. Importing the package (for
// its side effect) is all a main package does; elsewhere than Linux, or on
// a kernel without MADV_POPULATE_READ (before 5.14), it does nothing.
package imagemap
