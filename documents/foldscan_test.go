package documents

import (
	"context"
	"math/rand"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// foldPairIndex finds what a byte-by-byte scan finds, at every length and
// offset, among bytes that differ from the pair only in the 0x20 bit; so
// does its plain Go scan alone, where the CPU's vector scan takes the
// blocks. Sparse texts put the first pair anywhere, across block ends too.
func TestFoldPairIndexIsTheNaiveScan(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alphabet := []byte("xXyYpPqQ@`Aa\x00 !\nun") // with each letter's neighbour by the low bit
	for n := range 40000 {
		b := make([]byte, rng.Intn(300))
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		a, c := alphabet[rng.Intn(len(alphabet))]|0x20, alphabet[rng.Intn(len(alphabet))]|0x20
		if n%2 == 1 { // sparse: filler, and the pair planted once or twice
			for i := range b {
				b[i] = "bdfg \n"[rng.Intn(6)]
			}
			for range rng.Intn(3) {
				if i := rng.Intn(len(b) + 1); i+1 < len(b) {
					b[i], b[i+1] = a&^byte(rng.Intn(2)*0x20), c
				}
			}
		}
		want := -1
		for i := 0; i+1 < len(b); i++ {
			if b[i]|0x20 == a && b[i+1]|0x20 == c {
				want = i
				break
			}
		}
		if got := foldPairIndex(b, a, c); got != want {
			t.Fatalf("foldPairIndex(%q, %q, %q) = %d, want %d", b, a, c, got, want)
		}
		if got := foldPairIndexFrom(b, a, c, 0); got != want {
			t.Fatalf("foldPairIndexFrom(%q, %q, %q, 0) = %d, want %d", b, a, c, got, want)
		}
	}
}

// A case-insensitive literal search finds the lines Go's regexp does, on
// lines made of the literal's letters in both cases and their neighbours.
func TestFoldLiteralSearchMatchesRegexp(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, lit := range []string{"xp", "unexpected eof", "Ab", "a@", "@`", "q1", "zz"} {
		m, err := Compile(lit, true, true)
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile("(?i)" + regexp.QuoteMeta(lit))
		pool := []byte(strings.ToLower(lit) + strings.ToUpper(lit) + "@` \n\n\r")
		for range 2000 {
			body := make([]byte, rng.Intn(120))
			for i := range body {
				body[i] = pool[rng.Intn(len(pool))]
			}
			var want []int
			for i, line := range strings.Split(string(body), "\n") {
				if i == strings.Count(string(body), "\n") && line == "" {
					break
				}
				if re.MatchString(strings.TrimSuffix(line, "\r")) {
					want = append(want, i+1)
				}
			}
			var got []int
			s := m.Search(context.Background(), body)
			for h, ok := s.Next(); ok; h, ok = s.Next() {
				got = append(got, h.N)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%q in %q: lines %v, want %v", lit, body, got, want)
			}
		}
	}
}
