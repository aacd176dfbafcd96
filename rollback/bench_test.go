package rollback

import (
	"hash/crc32"
	"testing"
)

// Benchmarks pair each ring operation with its physical baseline in the same
// run, named so the pairs sort side by side:
//
//	BenchmarkCommit/36000B      vs BenchmarkCommitBaselineCopy/36000B
//	BenchmarkRollback/36000B    vs BenchmarkRollbackBaselineCopy/36000B
//	BenchmarkChecksum/36000B    vs BenchmarkChecksumBaselineCRC32C/36000B
//
// The copy baselines write into (or read from) as many rotating buffers as
// the ring has slots (benchCapacity), in one allocation like the ring's: a
// ring writes a different slot each time, so a copy into one cache-hot
// buffer is not a limit it could reach. "36 KB" is 36000 bytes, the seed's
// state size.
//
// Run: go test -run '^$' -bench . -count 5 ./rollback/

const benchCapacity = 16

type (
	state192B [192 / 8]uint64
	state8KiB [8 << 10 / 8]uint64
	state36KB [36000 / 8]uint64
	state1MiB [1 << 20 / 8]uint64
)

var sizeNames = []string{"192B", "8KiB", "36000B", "1MiB"}

// forSizes runs f once per state size with the typed ring's constructor.
func forSizes(b *testing.B, f func(b *testing.B, size int, typed func() typedBench)) {
	b.Run(sizeNames[0], func(b *testing.B) { f(b, 192, newTypedBench[state192B]) })
	b.Run(sizeNames[1], func(b *testing.B) { f(b, 8<<10, newTypedBench[state8KiB]) })
	b.Run(sizeNames[2], func(b *testing.B) { f(b, 36000, newTypedBench[state36KB]) })
	b.Run(sizeNames[3], func(b *testing.B) { f(b, 1<<20, newTypedBench[state1MiB]) })
}

// typedBench hides the state type of a Ring[T] behind closures built once,
// outside the timed loop.
type typedBench struct {
	commit     func(b *testing.B)
	rollback   func(b *testing.B)
	checksum   func(b *testing.B)
	checksumAt func(b *testing.B)
}

var sink uint32

func newTypedBench[T any]() typedBench {
	r, err := New[T](benchCapacity)
	if err != nil {
		panic(err)
	}
	fill(BytesOf(r.Live()))
	for range benchCapacity {
		r.Commit()
	}
	return typedBench{
		commit: func(b *testing.B) {
			for b.Loop() {
				r.Commit()
			}
		},
		rollback: func(b *testing.B) {
			for b.Loop() {
				// Keep the ring full (the slots still hold their
				// commits) so Rollback(1) reads a different slot each
				// time, as a session rolling back does.
				r.depth = benchCapacity
				if err := r.Rollback(1); err != nil {
					b.Fatal(err)
				}
			}
		},
		checksum: func(b *testing.B) {
			for b.Loop() {
				sink += r.Checksum()
			}
		},
		checksumAt: func(b *testing.B) {
			i := 0
			for b.Loop() {
				c, _ := r.ChecksumAt(i & (benchCapacity - 1))
				sink += c
				i++
			}
		},
	}
}

func fill(b []byte) {
	for i := range b {
		b[i] = byte(i*7 + 1)
	}
}

func BenchmarkCommit(b *testing.B) {
	forSizes(b, func(b *testing.B, size int, typed func() typedBench) {
		tb := typed()
		b.SetBytes(int64(size))
		b.ReportAllocs()
		tb.commit(b)
	})
}

// BenchmarkCommitBaselineCopy is the floor for Commit: copy the same bytes
// into benchCapacity rotating destinations.
func BenchmarkCommitBaselineCopy(b *testing.B) {
	forSizes(b, func(b *testing.B, size int, _ func() typedBench) {
		buf := make([]byte, size*(benchCapacity+1))
		src := buf[:size]
		fill(src)
		i := 0
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			i = (i + 1) & (benchCapacity - 1)
			off := (i + 1) * size
			copy(buf[off:off+size], src)
		}
	})
}

func BenchmarkRollback(b *testing.B) {
	forSizes(b, func(b *testing.B, size int, typed func() typedBench) {
		tb := typed()
		b.SetBytes(int64(size))
		b.ReportAllocs()
		tb.rollback(b)
	})
}

// BenchmarkRollbackBaselineCopy is the floor for Rollback: copy the same
// bytes from benchCapacity rotating sources.
func BenchmarkRollbackBaselineCopy(b *testing.B) {
	forSizes(b, func(b *testing.B, size int, _ func() typedBench) {
		buf := make([]byte, size*(benchCapacity+1))
		fill(buf)
		dst := buf[:size]
		i := 0
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			i = (i - 1) & (benchCapacity - 1)
			off := (i + 1) * size
			copy(dst, buf[off:off+size])
		}
	})
}

func BenchmarkBytesCommit(b *testing.B) {
	forSizes(b, func(b *testing.B, size int, _ func() typedBench) {
		r, err := NewBytes(benchCapacity, size)
		if err != nil {
			b.Fatal(err)
		}
		fill(r.Live())
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			r.Commit()
		}
	})
}

func BenchmarkBytesRollback(b *testing.B) {
	forSizes(b, func(b *testing.B, size int, _ func() typedBench) {
		r, err := NewBytes(benchCapacity, size)
		if err != nil {
			b.Fatal(err)
		}
		fill(r.Live())
		for range benchCapacity {
			r.Commit()
		}
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			r.depth = benchCapacity
			if err := r.Rollback(1); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkPeek(b *testing.B) {
	r, err := New[state192B](benchCapacity)
	if err != nil {
		b.Fatal(err)
	}
	for range benchCapacity {
		r.Commit()
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p, _ := r.Peek(i & (benchCapacity - 1))
		sink += uint32(p[0])
		i++
	}
}

// BenchmarkPeekBaselineIndex is the floor for Peek: index a slice of states
// with a mask and read a word, the loop's own cost included.
func BenchmarkPeekBaselineIndex(b *testing.B) {
	slots := make([]state192B, benchCapacity)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := &slots[i&(benchCapacity-1)]
		sink += uint32(p[0])
		i++
	}
}

func BenchmarkBytesPeek(b *testing.B) {
	r, err := NewBytes(benchCapacity, 192)
	if err != nil {
		b.Fatal(err)
	}
	for range benchCapacity {
		r.Commit()
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p, _ := r.Peek(i & (benchCapacity - 1))
		sink += uint32(p[0])
		i++
	}
}

func BenchmarkChecksum(b *testing.B) {
	forSizes(b, func(b *testing.B, size int, typed func() typedBench) {
		tb := typed()
		b.SetBytes(int64(size))
		b.ReportAllocs()
		tb.checksum(b)
	})
}

func BenchmarkChecksumAt(b *testing.B) {
	forSizes(b, func(b *testing.B, size int, typed func() typedBench) {
		tb := typed()
		b.SetBytes(int64(size))
		b.ReportAllocs()
		tb.checksumAt(b)
	})
}

// BenchmarkChecksumBaselineCRC32C is the floor for Checksum: the standard
// library's CRC32-C of the same number of bytes.
func BenchmarkChecksumBaselineCRC32C(b *testing.B) {
	table := crc32.MakeTable(crc32.Castagnoli)
	forSizes(b, func(b *testing.B, size int, _ func() typedBench) {
		buf := make([]byte, size)
		fill(buf)
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			sink += crc32.Checksum(buf, table)
		}
	})
}
