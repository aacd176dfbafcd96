package replay

import (
	"bytes"
	"io"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/rollback"
)

// countWriter counts what it is given.
type countWriter struct{ n int }

func (c *countWriter) Write(b []byte) (int, error) { c.n += len(b); return len(b), nil }

// recordInputs are a frame's inputs in the record benchmarks: held for a
// few frames, then changed, as a player's are.
func recordInputs(f int, in []uint16) {
	in[0], in[1] = uint16(f/7%3), uint16(f/5%4)
}

// BenchmarkRecord: Record of one frame (two uint16 inputs, the 48-byte
// test world, a checksum every frame) into a writer that keeps nothing.
func BenchmarkRecord(b *testing.B) {
	var w world
	cw := &countWriter{}
	r, err := NewRecorder[world, uint16](RecorderConfig{Players: 2}, cw, &w)
	if err != nil {
		b.Fatal(err)
	}
	in := make([]uint16, 2)
	f := 0
	b.ReportAllocs()
	for b.Loop() {
		recordInputs(f, in)
		if err := r.Record(in, &w); err != nil {
			b.Fatal(err)
		}
		f++
	}
	b.ReportMetric(float64(cw.n)/float64(f), "bytes/frame")
}

// BenchmarkRecordBaselineChecksum: the physical floor of recording a
// frame: copy its inputs' bytes and CRC32-C the state.
func BenchmarkRecordBaselineChecksum(b *testing.B) {
	var w world
	in := make([]uint16, 2)
	buf := make([]byte, 0, 4*recordBlock)
	sums := make([]uint32, 0, recordBlock)
	f := 0
	b.ReportAllocs()
	for b.Loop() {
		recordInputs(f, in)
		for i := range in {
			buf = append(buf, rollback.BytesOf(&in[i])...)
		}
		sums = append(sums, rollback.Checksum(rollback.BytesOf(&w)))
		if len(sums) == recordBlock {
			buf, sums = buf[:0], sums[:0]
		}
		f++
	}
}

// replayBench runs step once per op over a recording of 1<<14 frames,
// starting again (timer stopped) at its end.
func replayBench(b *testing.B, step func(p *Replayer[world, uint16]) error) {
	file := recordMatch(b, RecorderConfig{Players: 2}, 1<<14)
	var p *Replayer[world, uint16]
	open := func() {
		var err error
		if p, err = NewReplayer[world, uint16](ReplayerConfig{}, bytes.NewReader(file), simWorld); err != nil {
			b.Fatal(err)
		}
	}
	open()
	b.ReportAllocs()
	for b.Loop() {
		err := step(p)
		if err == io.EOF {
			b.StopTimer()
			open()
			b.StartTimer()
			err = step(p)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkReplay: one replayed frame: decode its inputs, simulate the
// test world, check its checksum.
func BenchmarkReplay(b *testing.B) {
	replayBench(b, func(p *Replayer[world, uint16]) error { return p.AdvanceFrame() })
}

// BenchmarkReplayBaselineSimulate: the physical floor of a replayed
// frame: simulate the test world with inputs read from memory (the
// recording's, decoded beforehand) and CRC32-C it.
func BenchmarkReplayBaselineSimulate(b *testing.B) {
	const n = 1 << 14
	ins := make([]uint16, 2*n)
	for f := range n {
		for p := range 2 {
			ins[2*f+p] = uint16((f/(5+p) + p) % 4) // as recordMatch
		}
	}
	var w world
	var sum uint32
	f := 0
	b.ReportAllocs()
	for b.Loop() {
		i := 2 * (f & (n - 1))
		simWorld(&w, ins[i:i+2:i+2], rollnet.Frame(f))
		sum ^= rollback.Checksum(rollback.BytesOf(&w))
		f++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
	_ = sum
}
