package wire

import (
	"bytes"
	"fmt"
	"math"
	"testing"
)

// Shared by the tests, fuzz targets and benchmarks of every message.

// inputBuf and statusBuf are big enough for any Input message.
var (
	inputBuf  = make([]byte, MaxFrames*MaxPlayers*MaxInputSize)
	statusBuf = make([]PeerStatus, MaxPlayers)
)

// reencode parses a whole packet of type t with the matching parse function
// and re-encodes what it got. For Input, size is the session's input size.
func reencode(t Type, b []byte, size int) ([]byte, error) {
	var out []byte
	var n int
	var err error
	switch t {
	case TypeSyncRequest:
		var m SyncRequest
		if m, n, err = ParseSyncRequest(b); err == nil {
			out = m.Append(nil)
		}
	case TypeSyncReply:
		var m SyncReply
		if m, n, err = ParseSyncReply(b); err == nil {
			out = m.Append(nil)
		}
	case TypeInput:
		m := Input{Size: size}
		if n, err = ParseInput(b, &m, inputBuf, statusBuf); err == nil {
			if cerr := m.Check(); cerr != nil {
				return nil, fmt.Errorf("parsed input fails Check: %w", cerr)
			}
			out = m.Append(nil)
		}
	case TypeInputAck:
		var m InputAck
		if m, n, err = ParseInputAck(b); err == nil {
			out = m.Append(nil)
		}
	case TypeQualityReport:
		var m QualityReport
		if m, n, err = ParseQualityReport(b); err == nil {
			out = m.Append(nil)
		}
	case TypeQualityReply:
		var m QualityReply
		if m, n, err = ParseQualityReply(b); err == nil {
			out = m.Append(nil)
		}
	case TypeKeepAlive:
		var m KeepAlive
		if m, n, err = ParseKeepAlive(b); err == nil {
			out = m.Append(nil)
		}
	case TypeChecksum:
		var m Checksum
		if m, n, err = ParseChecksum(b); err == nil {
			out = m.Append(nil)
		}
	case TypeDisconnect:
		var m Disconnect
		if m, n, err = ParseDisconnect(b); err == nil {
			out = m.Append(nil)
		}
	case TypeRejoin:
		var m Rejoin
		if m, n, err = ParseRejoin(b); err == nil {
			out = m.Append(nil)
		}
	default:
		return nil, fmt.Errorf("no parser for type %d", t)
	}
	if err != nil {
		return nil, err
	}
	if n != len(b) {
		return nil, fmt.Errorf("parsed %d of %d bytes", n, len(b))
	}
	return out, nil
}

// sample is one valid encoded message.
type sample struct {
	name     string
	t        Type
	size     int // input size, for Input
	b        []byte
	checksum bool // an Input or InputAck carrying a checksum
}

// heldInputs is one player's 2-byte input held for n frames.
func heldInputs(n int) []byte {
	b := make([]byte, 2*n)
	for f := range n {
		b[2*f], b[2*f+1] = 0x11, 0x02
	}
	return b
}

// changingInputs is one player's 2-byte input changing (both bytes) every frame.
func changingInputs(n int) []byte {
	b := make([]byte, 2*n)
	for f := range n {
		b[2*f], b[2*f+1] = byte(f+1), byte(0x80|f)
	}
	return b
}

// patternInputs is a deterministic pseudo-random mix of held and changing
// inputs, with zeros, exercising every token shape.
func patternInputs(n int, seed uint32) []byte {
	b := make([]byte, n)
	x := seed | 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		switch x % 4 {
		case 0:
			b[i] = 0
		case 1:
			b[i] = byte(x >> 8)
		default:
			if i >= 4 {
				b[i] = b[i-4]
			}
		}
	}
	return b
}

// inputSamples are Input messages covering the shapes a session sends.
func inputSamples() []Input {
	return []Input{
		{Seq: 1, Ack: -1, Start: 0, Frames: 0, Players: 0b1, Size: 2},
		{Seq: 2, Ack: 990, Start: 1000, Frames: 8, Players: 0b1, Size: 2, Inputs: heldInputs(8)},
		{Seq: 3, Ack: 1003, Start: 1000, Frames: 8, Players: 0b1, Size: 2, Inputs: changingInputs(8)},
		{Seq: 4, Ack: 7, Start: 9, Frames: 8, Players: 0b11, Size: 2, Inputs: patternInputs(32, 7)},
		{Seq: 5, Ack: -1, Start: 0, Frames: 1, Players: 0b1, Size: 1, Inputs: []byte{0}},
		{Seq: 6, Ack: 100, Start: 50, Frames: 3, Players: 0b1010, Size: 4, Inputs: patternInputs(24, 3),
			Status: []PeerStatus{{true, 49}, {false, -1}, {true, 60}, {true, math.MaxInt32}}},
		{Seq: 7, Ack: math.MaxInt32, Start: math.MaxInt32 - 127, Frames: MaxFrames, Players: 1 << 63,
			Size: 1, Inputs: patternInputs(MaxFrames, 11)},
		{Seq: 8, Ack: 0, Start: 12345678, Frames: 20, Players: 0xF0F0, Size: 3, Inputs: patternInputs(20*8*3, 5)},
		{Seq: 0xffff, Ack: 5, Start: 5, Frames: 4, Players: 0b1, Size: MaxInputSize, Inputs: make([]byte, 4*MaxInputSize)},
		{Seq: 10, Ack: 1, Start: 2, Frames: 2, Players: 0b1, Size: 2, Inputs: []byte{0, 5, 0, 5}},
		{Seq: 11, Ack: 1, Start: 2, Frames: 3, Players: 0b1, Size: 2, Inputs: []byte{7, 0, 0, 0, 7, 1}},
		{Seq: 12, Ack: 1, Start: 2, Frames: 100, Players: 0b1, Size: 2, Inputs: changingInputs(100)}, // a 200-byte literal
		{Seq: 13, Ack: 1, Start: 2, Frames: 1, Players: 0b1, Size: 1, Inputs: []byte{0}},
		{Seq: 14, Ack: 1, Start: 2, Frames: 3, Players: 0b1, Size: 1, Inputs: []byte{0, 0, 0}},
		{Seq: 15, Ack: 1, Start: 2, Frames: 4, Players: 0b1, Size: 1, Inputs: []byte{0, 0, 1, 0}},
		{Seq: 16, Ack: 1, Start: 2, Frames: 0, Players: 0b1, Size: 2, HasChecksum: true, CheckFrame: 0, Checksum: 0xfeedface},
		{Seq: 17, Ack: 100, Start: 50, Frames: 3, Players: 0b1010, Size: 4, Inputs: patternInputs(24, 3),
			Status:      []PeerStatus{{true, 49}, {false, -1}, {true, 60}, {true, math.MaxInt32}},
			HasChecksum: true, CheckFrame: 40, Checksum: 1},
		{Seq: 18, Ack: math.MaxInt32, Start: math.MaxInt32 - 127, Frames: MaxFrames, Players: 1 << 63,
			Size: 1, Inputs: patternInputs(MaxFrames, 11), HasChecksum: true, CheckFrame: math.MaxInt32, Checksum: math.MaxUint32},
		{Seq: 19, Ack: 1, Start: 2, Frames: 1, Players: 0b1, Size: 2, Inputs: []byte{1, 2},
			HasDelay: true, DelayWish: 5, DelayFrom: 2, DelayTo: 5, DelayAt: 40},
		{Seq: 20, Ack: 100, Start: 50, Frames: 3, Players: 0b1010, Size: 4, Inputs: patternInputs(24, 3),
			Status:      []PeerStatus{{true, 49}, {false, -1}, {true, 60}, {true, math.MaxInt32}},
			HasChecksum: true, CheckFrame: 40, Checksum: 1, HasDelay: true, DelayWish: MaxDelay, DelayFrom: MaxDelay, DelayTo: 0, DelayAt: 0},
		{Seq: 21, Ack: math.MaxInt32, Start: math.MaxInt32 - 127, Frames: MaxFrames, Players: 1 << 63, Size: 1, Inputs: patternInputs(MaxFrames, 11),
			HasDelay: true, DelayWish: 1, DelayFrom: 1, DelayTo: 1, DelayAt: math.MaxInt32},
	}
}

// samples is one or more valid encodings of every message type.
func samples() []sample {
	s := []sample{
		{"sync request", TypeSyncRequest, 0, (&SyncRequest{Seq: 1, Nonce: 0xdeadbeefcafe, Protocol: 1, Settings: 0x1234567890abcdef}).Append(nil), false},
		{"sync reply", TypeSyncReply, 0, (&SyncReply{Seq: 2, Nonce: 0xdeadbeefcafe, Protocol: 1, Settings: 0x1234567890abcdef}).Append(nil), false},
		{"input ack none", TypeInputAck, 0, (&InputAck{Seq: 3, Ack: -1}).Append(nil), false},
		{"input ack", TypeInputAck, 0, (&InputAck{Seq: 3, Ack: 100000}).Append(nil), false},
		{"input ack max", TypeInputAck, 0, (&InputAck{Seq: 3, Ack: math.MaxInt32}).Append(nil), false},
		{"input ack checksum", TypeInputAck, 0, (&InputAck{Seq: 3, Ack: 40, HasChecksum: true, CheckFrame: 30, Checksum: 0xfeedface}).Append(nil), true},
		{"input ack checksum max", TypeInputAck, 0, (&InputAck{Seq: 3, Ack: 40, HasChecksum: true, CheckFrame: math.MaxInt32, Checksum: 7}).Append(nil), true},
		{"quality report", TypeQualityReport, 0, (&QualityReport{Seq: 4, FrameAdvantage: -3, Ping: 1234567}).Append(nil), false},
		{"quality report max", TypeQualityReport, 0, (&QualityReport{Seq: 4, FrameAdvantage: math.MinInt32, Ping: math.MaxUint64}).Append(nil), false},
		{"quality reply", TypeQualityReply, 0, (&QualityReply{Seq: 5, Pong: 1234567}).Append(nil), false},
		{"keep-alive", TypeKeepAlive, 0, (&KeepAlive{Seq: 6}).Append(nil), false},
		{"checksum", TypeChecksum, 0, (&Checksum{Seq: 7, Frame: 600, Checksum: 0xfeedface}).Append(nil), false},
		{"checksum negative", TypeChecksum, 0, (&Checksum{Seq: 7, Frame: math.MinInt32, Checksum: 1}).Append(nil), false},
		{"disconnect", TypeDisconnect, 0, (&Disconnect{Seq: 8}).Append(nil), false},
		{"rejoin request", TypeRejoin, 0, (&Rejoin{Seq: 9, Kind: RejoinRequest, Players: 0b100, Match: 0xabcdef, Secret: [SecretLen]byte{1, 2, 3, 15: 0xff}}).Append(nil), false},
		{"rejoin accept", TypeRejoin, 0, (&Rejoin{Seq: 10, Kind: RejoinAccept, Players: 1 << 63, Frame: math.MaxInt32}).Append(nil), false},
		{"rejoin refuse", TypeRejoin, 0, (&Rejoin{Seq: 11, Kind: RejoinRefuse, Reason: 2}).Append(nil), false},
	}
	for i, m := range inputSamples() {
		s = append(s, sample{fmt.Sprintf("input %d", i), TypeInput, m.Size, m.Append(nil), m.HasChecksum})
	}
	return s
}

// fuzzParse is the fuzz target body shared by every message type: seeded from
// real encoder output (every sample, so each parser also sees the others'
// messages), it checks no panic and that anything that parses re-encodes to
// the same bytes.
func fuzzParse(f *testing.F, t Type) {
	for _, s := range samples() {
		f.Add(s.b)
	}
	f.Fuzz(func(tt *testing.T, b []byte) {
		out, err := reencode(t, b, 2)
		if err != nil {
			return
		}
		if !bytes.Equal(out, b) {
			tt.Fatalf("re-encoding differs:\n in % x\nout % x", b, out)
		}
	})
}
