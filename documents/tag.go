package documents

import (
	"fmt"

	"github.com/cespare/xxhash/v2"
)

// Tag is a short content hash naming exactly the bytes a read or a grep
// showed. Edits name the tag they were based on; a tag of bytes the session
// never saw is refused.
type Tag string

// TagOf hashes the whole file content (BOM included) with xxHash64 and keeps 32
// bits: enough to tell the handful of versions one session holds apart, short
// enough that models copy it without error.
func TagOf(content []byte) Tag {
	return tagOfSum(xxhash.Sum64(content))
}

// tagOfSum returns the tag of content whose xxHash64 is sum.
func tagOfSum(sum uint64) Tag {
	return Tag(fmt.Sprintf("%08X", uint32(sum)))
}
