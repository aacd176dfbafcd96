package wire

import (
	"math/bits"
	"testing"

	"github.com/rollnet/rollnet/codec"
)

// Each benchmark has its physical baseline in this file, paired by name
// (BenchmarkXBaselineCopy/sub is the baseline of BenchmarkX/sub): for the
// Input message the seed's plain packing of the same frames (a header and a
// copy), for the other messages a copy of as many bytes.

type inputCase struct {
	name string
	m    Input
}

func inputCases() []inputCase {
	twoPlayers := make([]byte, 8*2*2) // 8 frames of 2 players, a button pressed then held, a direction changing
	for f := range 8 {
		twoPlayers[4*f+0] = byte(f / 3)     // p1 direction: changes every third frame
		twoPlayers[4*f+1] = 0x10            // p1 button held
		twoPlayers[4*f+2] = byte(f%2) + 1   // p2 direction: flips every frame
		twoPlayers[4*f+3] = byte(f/4) * 0x4 // p2 button pressed at frame 4
	}
	held2 := make([]byte, 8*2*2)
	for i := range held2 {
		held2[i] = byte(i%4 + 1)
	}
	return []inputCase{
		{"held-8f-1p", Input{Seq: 9, Ack: 1004, Start: 1000, Frames: 8, Players: 1, Size: 2, Inputs: heldInputs(8)}},
		{"changing-8f-1p", Input{Seq: 9, Ack: 1004, Start: 1000, Frames: 8, Players: 1, Size: 2, Inputs: changingInputs(8)}},
		{"held-8f-2p", Input{Seq: 9, Ack: 1004, Start: 1000, Frames: 8, Players: 0b11, Size: 2, Inputs: held2}},
		{"mixed-8f-2p", Input{Seq: 9, Ack: 1004, Start: 1000, Frames: 8, Players: 0b11, Size: 2, Inputs: twoPlayers}},
		{"random-8f-2p", Input{Seq: 9, Ack: 1004, Start: 1000, Frames: 8, Players: 0b11, Size: 2, Inputs: patternInputs(32, 3)}},
		{"mixed-64f-4p-status", Input{Seq: 9, Ack: 1004, Start: 1000, Frames: 64, Players: 0b1111, Size: 4,
			Inputs: patternInputs(64*4*4, 5), Status: []PeerStatus{{true, 1060}, {true, 1059}, {false, 900}, {true, 1063}}}},
	}
}

func BenchmarkInput(b *testing.B) {
	buf := make([]byte, 0, MaxPacket)
	inputs := make([]byte, MaxFrames*MaxPlayers*MaxInputSize)
	status := make([]PeerStatus, MaxPlayers)
	for _, c := range inputCases() {
		m := c.m
		if err := m.Check(); err != nil {
			b.Fatal(err)
		}
		pkt := m.Append(nil)
		b.Run(c.name+"/encode", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(m.Inputs)))
			cpu0 := cpuNanos()
			for b.Loop() {
				buf = m.Append(buf[:0])
			}
			reportCPU(b, cpu0)
			b.ReportMetric(float64(len(buf)), "bytes/packet")
		})
		b.Run(c.name+"/decode", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(m.Inputs)))
			got := Input{Size: m.Size}
			cpu0 := cpuNanos()
			for b.Loop() {
				if _, err := ParseInput(pkt, &got, inputs, status); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0)
		})
		b.Run(c.name+"/roundtrip", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(m.Inputs)))
			got := Input{Size: m.Size}
			cpu0 := cpuNanos()
			for b.Loop() {
				buf = m.Append(buf[:0])
				if _, err := ParseInput(buf, &got, inputs, status); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0)
		})
	}
}

// BenchmarkInputBaselineCopy is the seed's plain packing of the same frames:
// an 8-byte header and a copy each way.
func BenchmarkInputBaselineCopy(b *testing.B) {
	buf := make([]byte, 0, 1<<16)
	inputs := make([]byte, MaxFrames*MaxPlayers*MaxInputSize)
	for _, c := range inputCases() {
		m := c.m
		mask := uint32(m.Players)
		pkt := codec.AppendInputs(nil, uint32(m.Start)+uint32(m.Frames)-1, mask, m.Inputs)
		stride := bits.OnesCount64(m.Players) * m.Size
		b.Run(c.name+"/encode", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(m.Inputs)))
			cpu0 := cpuNanos()
			for b.Loop() {
				buf = codec.AppendInputs(buf[:0], uint32(m.Start), mask, m.Inputs)
			}
			reportCPU(b, cpu0)
			b.ReportMetric(float64(len(buf)), "bytes/packet")
		})
		b.Run(c.name+"/decode", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(m.Inputs)))
			cpu0 := cpuNanos()
			for b.Loop() {
				_, _, block, err := codec.ParseInputs(pkt)
				if err != nil || len(block)%stride != 0 {
					b.Fatal(err)
				}
				copy(inputs, block)
			}
			reportCPU(b, cpu0)
		})
		b.Run(c.name+"/roundtrip", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(m.Inputs)))
			cpu0 := cpuNanos()
			for b.Loop() {
				buf = codec.AppendInputs(buf[:0], uint32(m.Start), mask, m.Inputs)
				_, _, block, err := codec.ParseInputs(buf)
				if err != nil || len(block)%stride != 0 {
					b.Fatal(err)
				}
				copy(inputs, block)
			}
			reportCPU(b, cpu0)
		})
	}
}

// message is the common shape of the small messages, for the benchmarks.
type message interface {
	Append([]byte) []byte
	Len() int
}

func smallMessages() []struct {
	name  string
	m     message
	parse func([]byte) error
} {
	return []struct {
		name  string
		m     message
		parse func([]byte) error
	}{
		{"SyncRequest", &SyncRequest{Seq: 1, Nonce: 0xdeadbeefcafe, Protocol: 1, Settings: 0x1234567890abcdef},
			func(b []byte) error { _, _, err := ParseSyncRequest(b); return err }},
		{"SyncReply", &SyncReply{Seq: 1, Nonce: 0xdeadbeefcafe, Protocol: 1, Settings: 0x1234567890abcdef},
			func(b []byte) error { _, _, err := ParseSyncReply(b); return err }},
		{"InputAck", &InputAck{Seq: 1, Ack: 100000},
			func(b []byte) error { _, _, err := ParseInputAck(b); return err }},
		{"QualityReport", &QualityReport{Seq: 1, FrameAdvantage: -2, Ping: 1 << 40},
			func(b []byte) error { _, _, err := ParseQualityReport(b); return err }},
		{"QualityReply", &QualityReply{Seq: 1, Pong: 1 << 40},
			func(b []byte) error { _, _, err := ParseQualityReply(b); return err }},
		{"KeepAlive", &KeepAlive{Seq: 1},
			func(b []byte) error { _, _, err := ParseKeepAlive(b); return err }},
		{"Checksum", &Checksum{Seq: 1, Frame: 100000, Checksum: 0xfeedface},
			func(b []byte) error { _, _, err := ParseChecksum(b); return err }},
		{"Disconnect", &Disconnect{Seq: 1},
			func(b []byte) error { _, _, err := ParseDisconnect(b); return err }},
	}
}

func BenchmarkMessages(b *testing.B) {
	buf := make([]byte, 0, MaxPacket)
	for _, c := range smallMessages() {
		pkt := c.m.Append(nil)
		b.Run(c.name+"/encode", func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuNanos()
			for b.Loop() {
				buf = c.m.Append(buf[:0])
			}
			reportCPU(b, cpu0)
			b.ReportMetric(float64(len(buf)), "bytes/packet")
		})
		b.Run(c.name+"/decode", func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuNanos()
			for b.Loop() {
				if err := c.parse(pkt); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu0)
		})
	}
}

// BenchmarkMessagesBaselineCopy copies as many bytes as each message takes.
func BenchmarkMessagesBaselineCopy(b *testing.B) {
	buf := make([]byte, 0, MaxPacket)
	dst := make([]byte, MaxPacket)
	for _, c := range smallMessages() {
		pkt := c.m.Append(nil)
		b.Run(c.name+"/encode", func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuNanos()
			for b.Loop() {
				buf = append(buf[:0], pkt...)
			}
			reportCPU(b, cpu0)
		})
		b.Run(c.name+"/decode", func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := cpuNanos()
			for b.Loop() {
				copy(dst, pkt)
			}
			reportCPU(b, cpu0)
		})
	}
}

// reportCPU adds the CPU time per operation since cpu0, which a loaded
// machine does not inflate the way it does wall-clock ns/op.
func reportCPU(b *testing.B, cpu0 int64) {
	if cpu1 := cpuNanos(); cpu1 > 0 && b.N > 0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N), "cpu-ns/op")
	}
}
