package wire

// Tests written against the mutants gremlins left alive in this package;
// see torture/MUTATION.md. Identifiers are prefixed "mut" to keep clear of
// the package's other tests.

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	mutInputs = make([]byte, MaxFrames*MaxPlayers*MaxInputSize)
	mutStatus = make([]PeerStatus, MaxPlayers)
)

// mutRoundTrip encodes m after prefix, checks the encoding is Len bytes
// and parses back to m.
func mutRoundTrip(t *testing.T, m Input, prefix int) []byte {
	t.Helper()
	require.NoError(t, m.Check())
	pre := make([]byte, prefix, prefix+MaxPacket)
	for i := range pre {
		pre[i] = 0xa5
	}
	b := m.Append(pre)
	require.Len(t, b, prefix+m.Len())
	require.Equal(t, pre, b[:prefix])
	got := Input{Size: m.Size}
	n, err := ParseInput(b[prefix:], &got, mutInputs, mutStatus)
	require.NoError(t, err)
	require.Equal(t, m.Len(), n)
	if len(m.Inputs) == 0 {
		got.Inputs = m.Inputs
	}
	require.Equal(t, m, got)
	return b[prefix:]
}

// mutFullInput is an Input of exactly MaxPacket bytes (with statuses
// entries; each extra one adds a byte): 37 frames of one player's 32-byte
// input changing in every byte, so the stream is one 1184-byte literal,
// past safeInputs (the length is measured before writing).
func mutFullInput(statuses int) Input {
	in := make([]byte, 37*32)
	for i := range in {
		in[i] = byte(i%251 + 1)
	}
	return Input{Seq: 1, Ack: -1, Start: 0, Frames: 37, Players: 1, Size: 32, Inputs: in, Status: make([]PeerStatus, statuses)}
}

func TestMutationInputExactlyMaxPacket(t *testing.T) {
	m := mutFullInput(6)
	require.Greater(t, len(m.Inputs), safeInputs)
	require.Equal(t, MaxPacket, m.Len())
	for _, prefix := range []int{0, 1, 100, 1000} {
		b := mutRoundTrip(t, m, prefix)
		require.Len(t, b, MaxPacket)
	}

	over := mutFullInput(7)
	require.Equal(t, MaxPacket+1, over.Len())
	require.ErrorIs(t, over.Check(), ErrTooLarge)
	pre := make([]byte, 5, 5+MaxPacket)
	require.Equal(t, pre, over.Append(pre))
	// A packet one byte too long is refused before it is decoded.
	b := append(m.Append(nil), 0)
	got := Input{Size: 32}
	_, err := ParseInput(b, &got, mutInputs, mutStatus)
	require.ErrorIs(t, err, ErrTooLarge)
	require.Equal(t, Input{Size: 32}, got)
}

func TestMutationInputFrameExtremes(t *testing.T) {
	for _, m := range []Input{
		{Ack: math.MaxInt32, Start: math.MaxInt32, Frames: 1, Players: 1, Size: 1, Inputs: []byte{7}},
		{Ack: -1, Start: math.MaxInt32, Frames: 1, Players: 1, Size: 1, Inputs: []byte{7}},
		{Ack: math.MaxInt32, Start: 0, Frames: 0, Players: 1, Size: 1},
		{Ack: -1, Start: math.MaxInt32 - 127, Frames: MaxFrames, Players: 1, Size: 1, Inputs: make([]byte, MaxFrames)},
		{Ack: 0, Start: 5, Frames: 1, Players: 1, Size: 1, Inputs: []byte{1}, Status: []PeerStatus{
			{Connected: true, LastFrame: math.MinInt32}, {LastFrame: math.MaxInt32}, {LastFrame: -1}, {Connected: true, LastFrame: 5},
		}},
		{Ack: 0, Start: math.MaxInt32, Frames: 1, Players: 1, Size: 1, Inputs: []byte{1}, Status: []PeerStatus{
			{Connected: true, LastFrame: math.MinInt32}, {LastFrame: math.MaxInt32},
		}},
	} {
		mutRoundTrip(t, m, 0)
	}
	// One frame more than MaxInt32 allows.
	m := Input{Ack: -1, Start: math.MaxInt32 - 126, Frames: MaxFrames, Players: 1, Size: 1, Inputs: make([]byte, MaxFrames)}
	require.ErrorIs(t, m.Check(), ErrMalformed)
	require.Empty(t, m.Append(nil))
}

// mutStatusPacket is an Input packet with Start start, no frames and one
// status whose LastFrame-Start is d (any int64, as a peer may send).
func mutStatusPacket(start uint64, d int64) []byte {
	b := appendHeader(nil, TypeInput, 9)
	b = binary.AppendUvarint(b, start)
	b = binary.AppendUvarint(b, zigzag(-1-int64(start))) // Ack -1
	b = append(b, 0, 0, 1<<1)                            // no frames, no players, one status, no checksum
	return binary.AppendUvarint(b, zigzag(d)<<1|1)
}

func TestMutationInputStatusRange(t *testing.T) {
	for _, c := range []struct {
		start uint64
		d     int64
		want  int32
		err   error
	}{
		{0, math.MinInt32, math.MinInt32, nil},
		{0, math.MaxInt32, math.MaxInt32, nil},
		{math.MaxInt32, -math.MaxInt32 - math.MaxInt32 - 1, math.MinInt32, nil},
		{math.MaxInt32, 0, math.MaxInt32, nil},
		{0, math.MinInt32 - 1, 0, ErrMalformed},
		{0, math.MaxInt32 + 1, 0, ErrMalformed},
		{math.MaxInt32, -math.MaxInt32 - math.MaxInt32 - 2, 0, ErrMalformed},
		{math.MaxInt32, 1, 0, ErrMalformed},
		{100, -maxDelta - 1, 0, ErrMalformed},
		{100, maxDelta + 1, 0, ErrMalformed},
		{100, math.MinInt64 / 4, 0, ErrMalformed},
		{100, math.MaxInt64 / 4, 0, ErrMalformed},
	} {
		b := mutStatusPacket(c.start, c.d)
		var m Input
		m.Size = 1
		_, err := ParseInput(b, &m, mutInputs, mutStatus)
		if c.err != nil {
			require.ErrorIs(t, err, c.err, "%+v", c)
			require.Equal(t, Input{Size: 1}, m)
			continue
		}
		require.NoError(t, err, "%+v", c)
		require.Equal(t, []PeerStatus{{Connected: true, LastFrame: c.want}}, m.Status)
		require.Equal(t, b, m.Append(nil), "canonical")
	}
}
