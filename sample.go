// Package tandem holds what the whole module shares: the bundled sample
// workspace the demo and the editor tests work on.
package tandem

import "embed"

// Sample is the sample workspace (testdata/sample), embedded so the demo
// runs from the binary alone.
//
//go:embed all:testdata/sample
var Sample embed.FS
