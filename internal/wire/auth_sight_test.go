package wire

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// steadySights is n frames of a client drawing 12.3 frames back, blending
// two consecutive states, as a render clock running at the host's rate
// does.
func steadySights(n int) []byte {
	var b []byte
	for range n {
		b = AppendSight(b, Sight{Lag: 12*256 + 77, Gap: 1})
	}
	return b
}

func TestSightValid(t *testing.T) {
	for _, c := range []struct {
		s    Sight
		want bool
	}{
		{Sight{Lag: 3000, Gap: 1}, true},
		{Sight{Lag: 3}, true},
		{Sight{}, true},
		{Sight{Lag: 900, Down: 1, Gap: 3}, true},
		{Sight{Lag: NoSight}, true},
		{Sight{Lag: NoSight, Gap: 1}, false},
		{Sight{Lag: NoSight, Down: 1}, false},
		{Sight{Lag: 900, Down: 2, Gap: 2}, false}, // T past To
	} {
		require.Equal(t, c.want, c.s.Valid(), "%+v", c.s)
	}
}

// Sights are refused where they are not canonical: a sight not Valid, the
// flag on a marker, a length that is not the frames'.
func TestAuthInputSightsRefused(t *testing.T) {
	in := make([]byte, 8)
	one := func(s Sight) []byte { return AppendSight(nil, s) }
	require.Empty(t, AuthInput{Start: 1, Frames: 1, Slots: 1, Size: 1, Inputs: in[:1], Sights: one(Sight{Lag: NoSight, Gap: 1})}.Append(nil))
	require.Empty(t, AuthInput{Start: 1, Frames: 2, Slots: 1, Size: 1, Inputs: in[:2], Sights: one(Sight{Lag: 3})}.Append(nil))
	m := AuthInput{Start: 1, Frames: 2, Slots: 1, Size: 1, Inputs: in[:2], Sights: append(one(Sight{Lag: 300}), one(Sight{Lag: 400, Gap: 1})...)}
	b := m.Append(nil)
	require.NotEmpty(t, b)
	var got AuthInput
	_, err := ParseAuthInput(b, &got, authInputBuf, authSightBuf)
	require.NoError(t, err)
	require.Equal(t, Sight{Lag: 400, Gap: 1}, SightAt(got.Sights, 1))

	// A sight that is not Valid, coded by hand: Down past Gap, in the
	// last literal's bytes.
	bad := AuthInput{Start: 1, Frames: 1, Slots: 1, Size: 1, Inputs: in[:1], Sights: one(Sight{Lag: 300, Down: 1, Gap: 2})}.Append(nil)
	bad[len(bad)-1] = 1 // Gap 1, Down 1
	_, err = ParseAuthInput(bad, &got, authInputBuf, authSightBuf)
	require.ErrorIs(t, err, ErrMalformed)

	// A marker with the flag.
	mk := AuthInput{Ack: -1, Start: 5, Slots: 1, Size: 1}.Append(nil)
	mk[len(mk)-2] |= sightsFlag
	_, err = ParseAuthInput(mk, &got, authInputBuf, authSightBuf)
	require.ErrorIs(t, err, ErrMalformed)
	// A marker given sights sends none.
	require.Equal(t, AuthInput{Ack: -1, Start: 5, Slots: 1, Size: 1}.Append(nil), AuthInput{Ack: -1, Start: 5, Slots: 1, Size: 1, Sights: []byte{}}.Append(nil))
}

// A client's sights cost a few bytes a message, however many frames it
// carries, while its render clock runs steadily.
func TestAuthInputSightsCompact(t *testing.T) {
	base := AuthInput{Ack: 70, Start: 75, Frames: 8, Slots: 1, Size: 2, Inputs: heldInputs(8)}
	with := base
	with.Sights = steadySights(8)
	extra := with.Len() - base.Len()
	require.LessOrEqual(t, extra, SightLen+2, "8 frames of a steady sight")
	t.Logf("8 frames of inputs: %d bytes, with sights %d", base.Len(), with.Len())
}
