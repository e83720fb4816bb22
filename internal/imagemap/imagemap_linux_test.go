package imagemap

import (
	"os"
	"reflect"
	"slices"
	"testing"
)

func TestImageRangesAreTheExecutablesReadOnlyMappings(t *testing.T) {
	maps, err := os.ReadFile("testdata/maps")
	if err != nil {
		t.Fatal(err)
	}
	want := []addrRange{{0x400000, 0xa25000}, {0xa25000, 0x1089000}}
	if got := imageRanges(maps); !slices.Equal(got, want) {
		t.Fatalf("ranges %x, want %x", got, want)
	}
	// A line the read cut short is not taken.
	if got := imageRanges(maps[:120]); !slices.Equal(got, want[:1]) {
		t.Fatalf("ranges of a cut read %x, want %x", got, want[:1])
	}
}

// The ranges of this very process hold its code: what the init maps in is
// what a start touches.
func TestImageRangesHoldThisProcessCode(t *testing.T) {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	pc := reflect.ValueOf(imageRanges).Pointer()
	for _, r := range imageRanges(maps[:min(len(maps), 4096)]) {
		if r.start <= pc && pc < r.end {
			return
		}
	}
	t.Fatalf("no range of %x holds the code at %x:\n%s", imageRanges(maps), pc, maps)
}
