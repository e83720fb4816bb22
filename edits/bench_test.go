package edits

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tandemdev/tandem/documents"
)

// The benchmarks behind scripts/bench. Each pairs tandem's work with the
// bare work a user would otherwise do; scripts/bench prints the ratios.

func benchFiles(b *testing.B, n int) (*ws, []string) {
	b.Helper()
	files := map[string]string{}
	var names []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("pkg%d/file%03d.go", i%10, i)
		files[name] = strings.Repeat(fmt.Sprintf("// line of file %d\n", i), 40)
		names = append(names, name)
	}
	root := b.TempDir()
	return newWSIn(b, root, files), names
}

// interleave times a and b alternately, rounds times each, and reports
// their medians in ms and the ratio a/b.
func interleave(b *testing.B, rounds int, nameA string, a func(), nameB string, bb func()) {
	var ta, tb []float64
	for r := 0; r < rounds; r++ {
		start := time.Now()
		a()
		ta = append(ta, float64(time.Since(start).Microseconds())/1000)
		start = time.Now()
		bb()
		tb = append(tb, float64(time.Since(start).Microseconds())/1000)
	}
	ma, mb := median(ta), median(tb)
	b.ReportMetric(ma, nameA+"-ms")
	b.ReportMetric(mb, nameB+"-ms")
	b.ReportMetric(ma/mb, "ratio")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// BenchmarkCommit100Files: one edit call changing 100 files — all checked,
// then published (locked temporary file, fsync, rename, directory syncs) —
// against the bare filesystem work in a tight loop: per file a temporary
// file written, flushed and renamed over it.
func BenchmarkCommit100Files(b *testing.B) {
	w, names := benchFiles(b, 100)
	bare, bareNames := benchFiles(b, 100)
	for _, n := range names {
		w.read(n, "")
	}
	content := []byte(strings.Repeat("// line of a file\n", 40))
	i := 0
	edit := func() {
		i++
		var fe []FileEdit
		for _, n := range names {
			a, text := Anchor("1"), fmt.Sprintf("// edit %d", i)
			fe = append(fe, FileEdit{Path: n, Ops: []Op{{Replace: &a, Text: &text}}})
		}
		if _, err := Edit(context.Background(), w.env, Args{Files: fe}); err != nil {
			b.Fatal(err)
		}
	}
	write := func() {
		for _, n := range bareNames {
			p := bare.abs(n)
			f, err := os.CreateTemp(filepath.Dir(p), ".bare-")
			if err != nil {
				b.Fatal(err)
			}
			f.Write(content)
			f.Sync()
			f.Close()
			if err := os.Rename(f.Name(), p); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	interleave(b, max(b.N, 5), "tandem", edit, "bare", write)
}

func bigText(lines int) []string {
	r := rand.New(rand.NewPCG(3, 4))
	out := make([]string, lines)
	for i := range out {
		out[i] = fmt.Sprintf("\tvalue%d := compute(%d, %q) // %d", i, r.IntN(1000), "some text", i)
	}
	return out
}

func fourMiB(b *testing.B) (*ws, string) {
	var lines []string
	for size := 0; size < 4<<20-200; {
		l := fmt.Sprintf("\tvalue%d := compute(%d, \"some text\")", len(lines), len(lines)%1000)
		if size+len(l)+1 > 4<<20-100 {
			break
		}
		lines = append(lines, l)
		size += len(l) + 1
	}
	return newWSIn(b, b.TempDir(), map[string]string{"big.go": strings.Join(lines, "\n") + "\n"}), "big.go"
}

// BenchmarkEdit4MiB: one edit of one line in a 4 MiB file (load, check,
// weave, publish with fsync, reply) against reading that file with the read
// tool.
func BenchmarkEdit4MiB(b *testing.B) {
	w, name := fourMiB(b)
	w.read(name, "1-10")
	i := 0
	edit := func() {
		i++
		a, text := Anchor("5"), fmt.Sprintf("\t// edit %d", i)
		if _, err := Edit(context.Background(), w.env, Args{Files: []FileEdit{{Path: name, Ops: []Op{{Replace: &a, Text: &text}}}}}); err != nil {
			b.Fatal(err)
		}
	}
	read := func() {
		if _, err := documents.Read(context.Background(), documents.NewStore(), w.env.Buffers, w.env.Roots, name, ""); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	interleave(b, max(b.N, 5), "edit", edit, "read", read)
}

// BenchmarkRebase50k: a stale edit of 25 places on a 50,000-line file after
// 1,000 changed lines elsewhere (its exactness is TestRebase50kLinesExact).
func BenchmarkRebase50k(b *testing.B) {
	orig := bigText(50_000)
	protected := map[string]bool{}
	for k := 0; k < 25; k++ {
		protected[orig[k*2000]] = true
	}
	now := churn(rand.New(rand.NewPCG(5, 6)), orig, 1000, protected)
	base, cur := documents.Scan([]byte(join(orig))), documents.Scan([]byte(join(now)))
	var ps []planned
	for k := 0; k < 25; k++ {
		ps = append(ps, planned{index: k + 1, shape: shapeRange, from: k*2000 + 1, to: k*2000 + 1, lines: [][]byte{[]byte("x")}})
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		match, err := lineMatch(base, cur)
		if err != nil {
			b.Fatal(err)
		}
		var moved []planned
		for _, p := range ps {
			q, ok := mapOp(p, match)
			if !ok {
				b.Fatal("an anchor moved")
			}
			moved = append(moved, q)
		}
		weave(cur, spliceLines(cur, splices(cur.Len(), moved)))
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "rebase-ms")
}

// BenchmarkRecordOldBytesVsLinks: what keeping the old bytes costs a
// commit of five files, against the other way a journal keeps them —
// hard-linked backups of the originals, flushed in their directories
// before anything is renamed. Each side is the real begin (record written
// and flushed, journal flushed) and the record's removal; the links side
// writes its record without old bytes. Sizes: a source file, a 4 MiB one.
func BenchmarkRecordOldBytesVsLinks(b *testing.B) {
	for _, size := range []int{4 << 10, 4 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			dir := b.TempDir()
			journal := filepath.Join(dir, "journal")
			old := []byte(strings.Repeat("x", size))
			var bytesSteps, linkSteps []*step
			for i := 0; i < 5; i++ {
				p := filepath.Join(dir, fmt.Sprint("d", i), "f")
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, old, 0o644)
				bytesSteps = append(bytesSteps, &step{Op: opReplace, Path: p, before: old})
				linkSteps = append(linkSteps, &step{Op: opReplace, Path: p})
			}
			withBytes := func() {
				j, err := begin(OS{}, journal, bytesSteps)
				if err != nil {
					b.Fatal(err)
				}
				j.end()
			}
			withLinks := func() {
				j, err := begin(OS{}, journal, linkSteps)
				if err != nil {
					b.Fatal(err)
				}
				for _, s := range linkSteps {
					if err := os.Link(s.Path, s.Path+".bak"); err != nil {
						b.Fatal(err)
					}
				}
				for _, s := range linkSteps {
					OS{}.SyncDir(filepath.Dir(s.Path))
				}
				for _, s := range linkSteps {
					os.Remove(s.Path + ".bak")
				}
				j.end()
			}
			b.ResetTimer()
			interleave(b, max(b.N, 15), "old-bytes", withBytes, "links", withLinks)
		})
	}
}
