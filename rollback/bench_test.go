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
//	BenchmarkPeek               vs BenchmarkPeekBaselineIndex
//
// The copy baselines write into (or read from) as many rotating buffers as
// the ring has slots (benchCapacity), in one allocation laid out like the
// ring's: a ring writes a different slot each time, so a copy into one
// cache-hot buffer is not a limit it could reach. "36 KB" is 36000 bytes,
// the seed's state size.
//
// Run: go test -run '^$' -bench . -count 5 ./rollback/

const benchCapacity = 16

type (
	state192B [192 / 8]uint64
	state8KiB [8 << 10 / 8]uint64
	state36KB [36000 / 8]uint64
	state1MiB [1 << 20 / 8]uint64
)

var benchSizes = []struct {
	name string
	size int
}{{"192B", 192}, {"8KiB", 8 << 10}, {"36000B", 36000}, {"1MiB", 1 << 20}}

// typedSizes runs one instantiation of a generic benchmark per state size;
// the timed loops are generic functions, not closures, so the ring stays in
// registers as it would in a caller's frame loop.
func typedSizes(b *testing.B, f192, f8K, f36K, f1M func(*testing.B)) {
	for i, f := range []func(*testing.B){f192, f8K, f36K, f1M} {
		b.Run(benchSizes[i].name, f)
	}
}

// byteSizes runs f once per state size.
func byteSizes(b *testing.B, f func(b *testing.B, size int)) {
	for _, s := range benchSizes {
		b.Run(s.name, func(b *testing.B) { f(b, s.size) })
	}
}

var sink uint32

// fullRing returns a ring of benchCapacity whose live state is non-zero and
// whose every slot holds a commit.
func fullRing[T any](b *testing.B) *Ring[T] {
	r, err := New[T](benchCapacity)
	if err != nil {
		b.Fatal(err)
	}
	fill(BytesOf(r.Live()))
	for range benchCapacity {
		r.Commit()
	}
	b.SetBytes(int64(len(BytesOf(r.Live()))))
	b.ReportAllocs()
	return r
}

func fill(b []byte) {
	for i := range b {
		b[i] = byte(i*7 + 1)
	}
}

func benchCommit[T any](b *testing.B) {
	r := fullRing[T](b)
	for b.Loop() {
		r.Commit()
	}
}

func benchRollback[T any](b *testing.B) {
	r := fullRing[T](b)
	for b.Loop() {
		// Keep the ring full (the slots still hold their commits) so
		// Rollback(1) reads a different slot each time, as a session
		// rolling back does.
		r.depth = benchCapacity
		if err := r.Rollback(1); err != nil {
			b.Fatal(err)
		}
	}
}

func benchChecksum[T any](b *testing.B) {
	r := fullRing[T](b)
	for b.Loop() {
		sink += r.Checksum()
	}
}

func benchChecksumAt[T any](b *testing.B) {
	r := fullRing[T](b)
	i := 0
	for b.Loop() {
		c, _ := r.ChecksumAt(i & (benchCapacity - 1))
		sink += c
		i++
	}
}

func BenchmarkCommit(b *testing.B) {
	typedSizes(b, benchCommit[state192B], benchCommit[state8KiB], benchCommit[state36KB], benchCommit[state1MiB])
}

// BenchmarkCommitBaselineCopy is the floor for Commit: copy the same bytes
// into benchCapacity rotating destinations.
func BenchmarkCommitBaselineCopy(b *testing.B) {
	byteSizes(b, func(b *testing.B, size int) {
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
	typedSizes(b, benchRollback[state192B], benchRollback[state8KiB], benchRollback[state36KB], benchRollback[state1MiB])
}

// BenchmarkRollbackBaselineCopy is the floor for Rollback: copy the same
// bytes from benchCapacity rotating sources.
func BenchmarkRollbackBaselineCopy(b *testing.B) {
	byteSizes(b, func(b *testing.B, size int) {
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
	byteSizes(b, func(b *testing.B, size int) {
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
	byteSizes(b, func(b *testing.B, size int) {
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
	r := fullRing[state192B](b)
	b.SetBytes(0)
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
	typedSizes(b, benchChecksum[state192B], benchChecksum[state8KiB], benchChecksum[state36KB], benchChecksum[state1MiB])
}

func BenchmarkChecksumAt(b *testing.B) {
	typedSizes(b, benchChecksumAt[state192B], benchChecksumAt[state8KiB], benchChecksumAt[state36KB], benchChecksumAt[state1MiB])
}

// BenchmarkChecksumBaselineCRC32C is the floor for Checksum: the standard
// library's CRC32-C of the same number of bytes.
func BenchmarkChecksumBaselineCRC32C(b *testing.B) {
	table := crc32.MakeTable(crc32.Castagnoli)
	byteSizes(b, func(b *testing.B, size int) {
		buf := make([]byte, size)
		fill(buf)
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			sink += crc32.Checksum(buf, table)
		}
	})
}
