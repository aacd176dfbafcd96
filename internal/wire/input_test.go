package wire

import (
	"bytes"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"

	"github.com/rollnet/rollnet/codec"
)

func TestInputRoundTrip(t *testing.T) {
	for _, m := range inputSamples() {
		require.NoError(t, m.Check())
		b := m.Append(nil)
		require.Len(t, b, m.Len())
		got := Input{Size: m.Size}
		n, err := ParseInput(b, &got, inputBuf, statusBuf)
		require.NoError(t, err)
		require.Equal(t, len(b), n)
		if len(m.Inputs) == 0 {
			require.Empty(t, got.Inputs)
			got.Inputs = m.Inputs
		}
		require.Equal(t, m, got)
	}
}

// Random messages, random mixes of held and changing inputs: every one
// round-trips and Len is exact.
func TestInputRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := make([]byte, MaxFrames*MaxPlayers*MaxInputSize)
	status := make([]PeerStatus, MaxPlayers)
	out := make([]byte, MaxFrames*MaxPlayers*MaxInputSize)
	outStatus := make([]PeerStatus, MaxPlayers)
	for range 3000 {
		m := Input{
			Seq:     uint16(rng.Uint32()),
			Start:   int32(rng.Int64N(1 << uint(rng.IntN(31)+1))),
			Frames:  rng.IntN(MaxFrames + 1),
			Players: rng.Uint64() >> uint(rng.IntN(64)+1) << uint(rng.IntN(4)),
			Size:    rng.IntN(MaxInputSize) + 1,
		}
		if m.Frames > 0 && rng.IntN(4) == 0 {
			m.Players = 1 << rng.IntN(64)
		}
		m.Ack = int32(rng.Int64N(int64(m.Start)+1) - 1)
		if int64(m.Start)+int64(m.Frames) > math.MaxInt32 {
			m.Frames = 0
		}
		for m.Frames*bits.OnesCount64(m.Players)*m.Size > 8192 { // keep the test quick
			m.Frames /= 2
		}
		m.Inputs = inputs[:m.Frames*bits.OnesCount64(m.Players)*m.Size]
		change := rng.Float64()
		zero := rng.Float64()
		stride := bits.OnesCount64(m.Players) * m.Size
		for i := range m.Inputs {
			switch {
			case i >= stride && rng.Float64() > change:
				m.Inputs[i] = m.Inputs[i-stride]
			case rng.Float64() < zero:
				m.Inputs[i] = 0
			default:
				m.Inputs[i] = byte(rng.Uint32())
			}
		}
		if rng.IntN(3) == 0 {
			m.Status = status[:rng.IntN(MaxPlayers+1)]
			for k := range m.Status {
				m.Status[k] = PeerStatus{Connected: rng.IntN(2) == 0, LastFrame: rng.Int32() - math.MaxInt32/2}
			}
			if len(m.Status) == 0 {
				m.Status = nil
			}
		}
		err := m.Check()
		b := m.Append(nil)
		if err != nil {
			require.ErrorIs(t, err, ErrTooLarge)
			require.Empty(t, b, "Append must refuse what Check refuses")
			continue
		}
		require.Len(t, b, m.Len())
		require.LessOrEqual(t, len(b), MaxPacket)
		got := Input{Size: m.Size}
		n, err := ParseInput(b, &got, out, outStatus)
		require.NoError(t, err)
		require.Equal(t, len(b), n)
		require.Equal(t, m.Inputs, got.Inputs[:len(got.Inputs):len(got.Inputs)])
		got.Inputs = m.Inputs
		require.Equal(t, m.Status, got.Status)
		got.Status = m.Status
		require.Equal(t, m, got)
	}
}

// TestInputSize prints what the size targets measure and holds them: one
// player's 2-byte input over 8 unacknowledged frames, held then changing
// every frame (GGPO spends about 40 bytes on the held packet, the plain
// packing 72).
func TestInputSize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		start  int32
		inputs []byte
		limit  int
	}{
		{"held 8 frames, frame 1000", 1000, heldInputs(8), 16},
		{"held 8 frames, frame 2000000", 2000000, heldInputs(8), 16},
		{"changing 8 frames, frame 1000", 1000, changingInputs(8), 16 + 2*8},
		{"changing 8 frames, frame 2000000", 2000000, changingInputs(8), 16 + 2*8},
	} {
		m := Input{Seq: 300, Ack: tc.start + 4, Start: tc.start, Frames: 8, Players: 0b1, Size: 2, Inputs: tc.inputs}
		require.NoError(t, m.Check())
		n := len(m.Append(nil))
		plain := len(codec.AppendInputs(nil, uint32(tc.start)+7, 1, tc.inputs)) + 4 + 2 // + an ack and a header
		t.Logf("%-34s %2d bytes (limit %d; plain packing of the same frames %d)", tc.name, n, tc.limit, plain)
		require.LessOrEqual(t, n, tc.limit, tc.name)
	}
	// Held for the whole window: a full 128-frame packet still fits a few bytes.
	m := Input{Ack: 5000, Start: 5000, Frames: MaxFrames, Players: 0b11, Size: 2, Inputs: make([]byte, MaxFrames*4)}
	for i := range m.Inputs {
		m.Inputs[i] = byte(i%4 + 1)
	}
	t.Logf("%-34s %2d bytes", "2 players held 128 frames", m.Len())
	require.LessOrEqual(t, m.Len(), 20)
}

func TestInputCheck(t *testing.T) {
	ok := func() Input {
		return Input{Ack: 3, Start: 5, Frames: 2, Players: 0b101, Size: 3, Inputs: make([]byte, 12)}
	}
	base := ok()
	require.NoError(t, base.Check())
	for _, tc := range []struct {
		name string
		mod  func(*Input)
		err  error
	}{
		{"negative frames", func(m *Input) { m.Frames = -1 }, ErrMalformed},
		{"too many frames", func(m *Input) { m.Frames = MaxFrames + 1 }, ErrLimit},
		{"zero size", func(m *Input) { m.Size = 0 }, ErrMalformed},
		{"size too large", func(m *Input) { m.Size = MaxInputSize + 1 }, ErrLimit},
		{"negative start", func(m *Input) { m.Start = -1 }, ErrMalformed},
		{"ack below -1", func(m *Input) { m.Ack = -2 }, ErrMalformed},
		{"last frame overflows", func(m *Input) { m.Start = math.MaxInt32 }, ErrMalformed},
		{"inputs short", func(m *Input) { m.Inputs = m.Inputs[:11] }, ErrMalformed},
		{"inputs long", func(m *Input) { m.Inputs = make([]byte, 13) }, ErrMalformed},
		{"mask disagrees", func(m *Input) { m.Players = 0b111 }, ErrMalformed},
		{"too many statuses", func(m *Input) { m.Status = make([]PeerStatus, MaxPlayers+1) }, ErrLimit},
		{"too large", func(m *Input) {
			m.Frames, m.Players, m.Size = MaxFrames, 0b1, 16
			m.Inputs = patternInputs(MaxFrames*16, 9)
		}, ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := ok()
			tc.mod(&m)
			require.ErrorIs(t, m.Check(), tc.err)
			prefix := []byte{0xAA}
			require.Equal(t, prefix, m.Append(prefix), "Append must append nothing")
		})
	}
}

// encodeFields builds an Input packet field by field, so tests can write
// what the encoder never would.
func encodeFields(start, ackDelta, frames, players, count uint64, rest ...byte) []byte {
	b := appendHeader(nil, TypeInput, 1)
	for _, v := range []uint64{start, ackDelta, frames, players, count} {
		b = appendUvarintRaw(b, v)
	}
	return append(b, rest...)
}

func appendUvarintRaw(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

func lit(bs ...byte) []byte { return append([]byte{byte(len(bs)-1)<<1 | 1}, bs...) }
func run(n int) byte        { return byte(n-2) << 1 }

// Non-canonical or impossible encodings are refused, each for its reason.
func TestParseInputRejects(t *testing.T) {
	cat := func(parts ...[]byte) []byte {
		var b []byte
		for _, p := range parts {
			b = append(b, p...)
		}
		return b
	}
	// One player, size 2, frames as given; the stream holds 2*frames bytes.
	for _, tc := range []struct {
		name string
		b    []byte
		err  error
	}{
		{"reference: held", encodeFields(10, 0, 2, 1, 0, cat(lit(1, 2), []byte{run(2)})...), nil},
		{"reference: literal edge zeros", encodeFields(10, 0, 2, 1, 0, lit(0, 1, 2, 0)...), nil},
		{"over-long start", append(append(appendHeader(nil, TypeInput, 1), 0x8a, 0x00), 0, 1, 1, 0, 1, 5), ErrMalformed},
		{"over-long control", encodeFields(10, 0, 1, 1, 0, 0x83, 0x00, 1, 2), ErrMalformed},
		{"varint overflow", append(appendHeader(nil, TypeInput, 1), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), ErrMalformed},
		{"start beyond int32", encodeFields(math.MaxInt32+1, 0, 0, 1, 0), ErrMalformed},
		{"ack below -1", encodeFields(0, zigzag(-2), 0, 1, 0), ErrMalformed},
		{"ack beyond int32", encodeFields(math.MaxInt32, zigzag(1), 0, 1, 0), ErrMalformed},
		{"ack delta huge", encodeFields(5, math.MaxUint64, 0, 1, 0), ErrMalformed},
		{"frames past int32", encodeFields(math.MaxInt32, 0, 2, 1, 0, lit(1, 2, 3, 4)...), ErrMalformed},
		{"too many frames", encodeFields(0, 0, MaxFrames+1, 1, 0), ErrLimit},
		{"too many statuses", encodeFields(0, 0, 0, 1, (MaxPlayers+1)<<1), ErrLimit},
		{"status frame beyond int32", encodeFields(0, 0, 0, 1, 1, appendUvarintRaw(nil, zigzag(math.MaxInt32+1)<<1)...), ErrMalformed},
		{"run after run", encodeFields(10, 0, 2, 1, 0, run(2), run(2)), ErrMalformed},
		{"literal after literal", encodeFields(10, 0, 1, 1, 0, cat(lit(1), lit(2))...), ErrMalformed},
		{"literal with two zeros", encodeFields(10, 0, 2, 1, 0, lit(1, 0, 0, 2)...), ErrMalformed},
		{"literal zero after run", encodeFields(10, 0, 2, 1, 0, cat([]byte{run(2)}, lit(0, 1))...), ErrMalformed},
		{"literal zero before run", encodeFields(10, 0, 2, 1, 0, cat(lit(1, 0), []byte{run(2)})...), ErrMalformed},
		{"run past the frames", encodeFields(10, 0, 2, 1, 0, cat(lit(1, 2), []byte{run(3)})...), ErrMalformed},
		{"literal past the frames", encodeFields(10, 0, 1, 1, 0, lit(1, 2, 3)...), ErrMalformed},
		{"huge run", encodeFields(10, 0, 1, 1, 0, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), ErrMalformed},
		{"a checksum cut short", encodeFields(10, 0, 1, 1, 1, cat(lit(1, 2), []byte{0})...), ErrShort},
		{"checksum cut short", encodeFields(10, 0, 1, 1, 1, cat(lit(1, 2), []byte{0, 1, 2, 3})...), ErrShort},
		{"checksum", encodeFields(10, 0, 1, 1, 1, cat(lit(1, 2), []byte{0, 1, 2, 3, 4})...), nil},
		{"checksum flag, no checksum", encodeFields(10, 0, 1, 1, 1, lit(1, 2)...), ErrShort},
		// Protocol 2 read these as a checksum: a spoofed copy of a real
		// input with five bytes appended raised a false desync.
		{"bytes left over without the flag", encodeFields(10, 0, 1, 1, 0, cat(lit(1, 2), []byte{0, 1, 2, 3, 4})...), ErrMalformed},
		{"one byte left over", encodeFields(10, 0, 1, 1, 0, cat(lit(1, 2), []byte{0})...), ErrMalformed},
		{"byte after the checksum", encodeFields(10, 0, 1, 1, 0, cat(lit(1, 2), []byte{0, 1, 2, 3, 4, 0})...), ErrMalformed},
		{"checksum frame before 0", encodeFields(10, 0, 1, 1, 0, cat(lit(1, 2), []byte{21, 1, 2, 3, 4})...), ErrMalformed},
		{"literal cut short", encodeFields(10, 0, 2, 1, 0, lit(1, 2, 3, 4)[:3]...), ErrShort},
		{"delay", encodeFields(10, 0, 1, 1, statusDelay, cat(lit(1, 2), []byte{2, 1, 2, 20})...), nil},
		{"delay and checksum", encodeFields(10, 0, 1, 1, statusDelay|1, cat(lit(1, 2), []byte{0, 1, 2, 3, 4}, []byte{2, 1, 2, 20})...), nil},
		{"delay above MaxDelay", encodeFields(10, 0, 1, 1, statusDelay, cat(lit(1, 2), []byte{0x80, 0x02, 1, 2, 20})...), ErrMalformed},
		{"delay frame before 0", encodeFields(10, 0, 1, 1, statusDelay, cat(lit(1, 2), []byte{2, 1, 2, 21})...), ErrMalformed},
		{"delay cut short", encodeFields(10, 0, 1, 1, statusDelay, cat(lit(1, 2), []byte{2, 1})...), ErrShort},
		{"delay flag, no delay", encodeFields(10, 0, 1, 1, statusDelay, lit(1, 2)...), ErrShort},
		{"byte after the delay", encodeFields(10, 0, 1, 1, statusDelay, cat(lit(1, 2), []byte{2, 1, 2, 20, 0})...), ErrMalformed},
		{"too many statuses with the delay", encodeFields(0, 0, 0, 1, statusDelay|(MaxPlayers+1)<<1), ErrLimit},
		{"a status word past the delay bit", encodeFields(0, 0, 0, 1, statusDelay<<1), ErrLimit},
		{"too large", append(encodeFields(10, 0, 1, 1, 0, lit(1, 2)...), make([]byte, MaxPacket)...), ErrTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Input{Size: 2}
			_, err := ParseInput(tc.b, &m, inputBuf, statusBuf)
			if tc.err == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.err)
			require.Equal(t, Input{Size: 2}, m, "m must be unchanged on error")
		})
	}
}

// A claim beyond the caller's buffers is ErrLimit before anything is copied.
func TestParseInputLimits(t *testing.T) {
	m := Input{Ack: 1, Start: 2, Frames: 2, Players: 0b11, Size: 2, Inputs: []byte{1, 2, 3, 4, 5, 6, 7, 8},
		Status: []PeerStatus{{true, 1}, {true, 2}}}
	b := m.Append(nil)
	fill := func(n int) []byte {
		s := make([]byte, n)
		for i := range s {
			s[i] = 0xEE
		}
		return s
	}
	for _, tc := range []struct {
		name   string
		size   int
		inputs []byte
		status []PeerStatus
		err    error
	}{
		{"exact room", 2, fill(MaxFrames * 4), make([]PeerStatus, MaxPlayers), nil},
		{"inputs one short", 2, fill(MaxFrames*4 - 1), make([]PeerStatus, MaxPlayers), ErrLimit},
		{"status one short", 2, fill(MaxFrames * 4), make([]PeerStatus, MaxPlayers-1), ErrLimit},
		{"no status room", 2, fill(MaxFrames * 4), nil, ErrLimit},
		{"size too large", MaxInputSize + 1, fill(1 << 20), make([]PeerStatus, MaxPlayers), ErrLimit},
		{"size unset", 0, fill(MaxFrames * 4), make([]PeerStatus, MaxPlayers), ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Input{Size: tc.size}
			_, err := ParseInput(b, &got, tc.inputs, tc.status)
			if tc.err == nil {
				require.NoError(t, err)
				require.Equal(t, m.Inputs, got.Inputs)
				require.Equal(t, m.Status, got.Status)
				return
			}
			require.ErrorIs(t, err, tc.err)
			require.Equal(t, fill(len(tc.inputs)), tc.inputs, "nothing copied")
			for _, s := range tc.status {
				require.Zero(t, s, "nothing copied")
			}
		})
	}
	// Without statuses, no status room is needed.
	m.Status = nil
	got := Input{Size: 2}
	_, err := ParseInput(m.Append(nil), &got, inputBuf, nil)
	require.NoError(t, err)
	require.Nil(t, got.Status)
}

func TestInputAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	ms := inputSamples()
	buf := make([]byte, 0, MaxPacket)
	inputs := make([]byte, MaxFrames*MaxPlayers*MaxInputSize)
	status := make([]PeerStatus, MaxPlayers)
	for _, m := range ms {
		var got Input
		allocs.RequireZero(t, 50, func() {
			b := m.Append(buf[:0])
			_ = m.Len()
			_ = m.Check()
			got.Size = m.Size
			if _, err := ParseInput(b, &got, inputs, status); err != nil {
				panic(err)
			}
			_, _ = ParseInput(b[:len(b)-1], &got, inputs, status)         // error path
			_, _ = ParseInput(append(b, 0), &got, inputs[:1], status[:1]) // limits
		})
	}
}

// FuzzParseInput fuzzes the input size too: it is session config, so any
// value may meet any packet.
func FuzzParseInput(f *testing.F) {
	for _, s := range samples() {
		f.Add(s.b, uint8(s.size))
	}
	f.Fuzz(func(t *testing.T, b []byte, size uint8) {
		m := Input{Size: int(size)}
		n, err := ParseInput(b, &m, inputBuf, statusBuf)
		if err != nil {
			return
		}
		if n != len(b) {
			t.Fatalf("parsed %d of %d bytes", n, len(b))
		}
		if err := m.Check(); err != nil {
			t.Fatalf("parsed input fails Check: %v", err)
		}
		if out := m.Append(nil); !bytes.Equal(out, b) {
			t.Fatalf("re-encoding differs:\n in % x\nout % x", b, out)
		}
	})
}

// Refusing an oversized message writes nothing, so it allocates nothing
// even into a buffer of exactly MaxPacket bytes.
func TestInputAppendRefusesWithoutAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	big := Input{Start: 1, Frames: MaxFrames, Players: 0b1, Size: 16, Inputs: patternInputs(MaxFrames*16, 9)}
	require.ErrorIs(t, big.Check(), ErrTooLarge)
	buf := make([]byte, 0, MaxPacket)
	var out []byte
	allocs.RequireZero(t, 20, func() { out = big.Append(buf) })
	require.Empty(t, out)
	// The bound behind the shortcut: the costliest coding of a stream of
	// safeInputs bytes, with every other field at its largest, fits.
	worst := Input{Ack: -1, Start: math.MaxInt32 - 82, Frames: 83, Players: 1 << 63, Size: 8,
		Inputs: make([]byte, safeInputs), Status: make([]PeerStatus, MaxPlayers)}
	for i := range worst.Inputs { // XORed stream lit(1) run(2) lit(1) ..., the costliest per byte
		var x byte
		if i%3 == 0 {
			x = byte(i/3%255 + 1)
		}
		if i >= worst.Size {
			x ^= worst.Inputs[i-worst.Size]
		}
		worst.Inputs[i] = x
	}
	for k := range worst.Status {
		worst.Status[k] = PeerStatus{LastFrame: math.MinInt32}
	}
	require.NoError(t, worst.checkFields())
	t.Logf("costliest coding of %d stream bytes: %d", len(worst.Inputs), worst.Len())
	require.LessOrEqual(t, worst.Len(), MaxPacket)
}
