//go:build !amd64

package documents

// hasAVX2: there is no vector pair scan here.
const hasAVX2 = false

// foldPairBlocks has no vector scan here: foldPairIndex scans every place.
func foldPairBlocks([]byte, byte, byte) (at, scanned int) { return -1, 0 }
