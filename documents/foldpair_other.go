//go:build !amd64

package documents

// foldPairBlocks has no vector scan here: foldPairIndex scans every place.
func foldPairBlocks([]byte, byte, byte) (at, scanned int) { return -1, 0 }
