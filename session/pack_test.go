package session

import (
	"encoding/binary"
	"reflect"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/internal/inputbytes"
	"github.com/stretchr/testify/require"
)

// pad is an input with a bool, to check that decoding refuses bytes a
// bool cannot hold.
type pad struct {
	Buttons uint8
	Jump    bool
	X       int16
}

func TestPackLayout(t *testing.T) {
	s := newWorld(t, Config[uint16]{Players: 3})
	for f := range 3 {
		require.NoError(t, s.AddLocalInput(1, uint16(0x100+f)))
		require.NoError(t, s.AddLocalInput(0, 9)) // not in the mask
		step(t, s, 1)
	}
	pkt, err := s.PackInputs(nil, 2, 2, 0b010)
	require.NoError(t, err)
	want := []byte{2, 0, 0, 0, 0b010, 0, 0, 0}
	want = append(want, 0, 0, 0x01, 0x01, 0, 0) // frame 1: players 0..2, only 1 meaningful
	want = append(want, 0, 0, 0x02, 0x01, 0, 0) // frame 2
	require.Equal(t, want, pkt)
	require.Equal(t, 2, s.inputSize())

	// n clamped to baseFrame+1: never a frame before 0.
	pkt, err = s.PackInputs(pkt[:0], 1, 10, 0b010)
	require.NoError(t, err)
	require.Len(t, pkt, codec.InputsHeaderLen+2*6)

	// Appends to dst.
	pkt, err = s.PackInputs([]byte("xy"), 0, 1, 0b010)
	require.NoError(t, err)
	require.Equal(t, []byte("xy"), pkt[:2])
	require.Len(t, pkt, 2+codec.InputsHeaderLen+6)
}

func TestPackClampsToWindow(t *testing.T) {
	s := newWorld(t, Config[uint16]{Players: 2, Capacity: 8})
	for range 30 {
		require.NoError(t, s.AddLocalInput(0, 1))
		require.NoError(t, s.AddLocalInput(1, 1))
		step(t, s, 1)
	}
	lo, _ := s.acceptWindow()
	pkt, err := s.PackInputs(nil, s.Frame()-1, 64, 0b11)
	require.NoError(t, err)
	require.Equal(t, int(s.Frame()-lo), (len(pkt)-codec.InputsHeaderLen)/4)
	_, err = s.PackInputs(nil, lo-1, 1, 0b11)
	require.ErrorIs(t, err, ErrOutOfWindow)
}

func TestPackErrors(t *testing.T) {
	s := newWorld(t, Config[uint16]{Players: 2, InputDelay: 2})
	require.NoError(t, s.AddLocalInput(0, 1)) // frame 2
	dst := []byte{7}
	for _, tc := range []struct {
		base rollnet.Frame
		n    int
		mask uint32
		err  error
	}{
		{2, 0, 1, ErrArgument},
		{-1, 1, 1, ErrOutOfWindow},
		{2, 1, 0b100, ErrPlayer},
		{2, 1, 0b11, ErrNotConfirmed},
		{3, 1, 0b01, ErrNotConfirmed},
		{100, 1, 0b01, ErrOutOfWindow},
	} {
		out, err := s.PackInputs(dst, tc.base, tc.n, tc.mask)
		require.ErrorIs(t, err, tc.err, "%+v", tc)
		require.Equal(t, dst, out)
	}
	// Confirmed at the base but not before it: clamped to the run.
	pkt, err := s.PackInputs(nil, 2, 3, 0b11)
	require.ErrorIs(t, err, ErrNotConfirmed)
	require.Nil(t, pkt)
	pkt, err = s.PackInputs(nil, 2, 3, 0b01)
	require.NoError(t, err)
	require.Len(t, pkt, codec.InputsHeaderLen+3*4, "frames 0 and 1 are the delay's, confirmed")
}

func TestUnpackFeedsInputs(t *testing.T) {
	a := newRecord(t, Config[uint16]{Players: 2})
	b := newRecord(t, Config[uint16]{Players: 2})
	for f := range 5 {
		require.NoError(t, a.AddLocalInput(0, uint16(10+f)))
		step(t, a, 1)
	}
	pkt, err := a.PackInputs(nil, 4, 5, 0b01)
	require.NoError(t, err)
	require.NoError(t, b.UnpackInputs(pkt))
	for f := range rollnet.Frame(5) {
		in, ok := b.confirmedInput(0, f)
		require.True(t, ok)
		require.Equal(t, uint16(10+f), in)
		_, ok = b.confirmedInput(1, f)
		require.False(t, ok, "player 1 was not in the mask")
	}
	require.NoError(t, b.UnpackInputs(pkt), "a duplicate packet is harmless")
}

// TestUnpackRecoversLostPacketWithTwoFrames: with N = 2 frames per packet,
// losing any one packet loses no input.
func TestUnpackRecoversLostPacketWithTwoFrames(t *testing.T) {
	for _, n := range []int{1, 2} {
		a := newRecord(t, Config[uint16]{Players: 2, InputDelay: 1})
		b := newRecord(t, Config[uint16]{Players: 2, InputDelay: 1})
		var buf []byte
		for f := range 40 {
			require.NoError(t, a.AddLocalInput(0, uint16(f%3)))
			pkt, err := a.PackInputs(buf[:0], a.Frame()+1, n, 0b01)
			require.NoError(t, err)
			buf = pkt
			if f != 17 { // packet 17 is lost
				require.NoError(t, b.UnpackInputs(pkt))
			}
			require.NoError(t, b.AddLocalInput(1, 0))
			require.NoError(t, a.AddRemoteInput(1, a.Frame()+1, 0))
			step(t, a, 1)
			if err := b.AdvanceFrame(); n == 2 || f < 18 {
				require.NoError(t, err)
			}
		}
		_, ok := b.confirmedInput(0, 18)
		if n == 1 {
			require.False(t, ok, "N = 1 loses frame 18 with its packet")
			require.Equal(t, rollnet.Frame(17), b.ConfirmedFrame())
		} else {
			require.True(t, ok, "N = 2: the next packet carries frame 18 too")
			require.Equal(t, rollnet.Frame(40), b.ConfirmedFrame())
		}
	}
}

func TestUnpackErrors(t *testing.T) {
	s := newRecord(t, Config[uint16]{Players: 2})
	frame := []byte{1, 0, 2, 0}
	for _, tc := range []struct {
		name string
		pkt  []byte
		err  error
	}{
		{"short", []byte{1, 2, 3}, codec.ErrShort},
		{"header only", codec.AppendInputs(nil, 0, 1, nil), ErrMalformed},
		{"partial frame", codec.AppendInputs(nil, 0, 1, frame[:3]), ErrMalformed},
		{"frame and a half", codec.AppendInputs(nil, 1, 1, append(frame, 1, 0)), ErrMalformed},
		{"before frame 0", codec.AppendInputs(nil, 0, 1, append(frame, frame...)), ErrMalformed},
		{"base frame too big", codec.AppendInputs(nil, 1<<31, 1, frame), ErrMalformed},
		{"mask past players", codec.AppendInputs(nil, 0, 0b100, frame), ErrPlayer},
		{"too far ahead", codec.AppendInputs(nil, 1000, 1, frame), ErrOutOfWindow},
	} {
		err := s.UnpackInputs(tc.pkt)
		require.ErrorIs(t, err, tc.err, tc.name)
	}
	require.ErrorIs(t, s.UnpackInputs(codec.AppendInputs(nil, 0, 1, frame)), nil)
	require.ErrorIs(t, s.UnpackInputs(codec.AppendInputs(nil, 0, 1, []byte{2, 0, 2, 0})), ErrConflict)
	require.ErrorIs(t, codec.ErrMalformed, codec.ErrMalformed)
	require.ErrorIs(t, ErrMalformed, codec.ErrMalformed)
}

func TestUnpackRefusesBadBool(t *testing.T) {
	s, err := New[world](Config[pad]{Players: 2}, func(*world, []pad, rollnet.Frame) {})
	require.NoError(t, err)
	require.Equal(t, 4, s.inputSize())
	good := []byte{1, 1, 0, 0, 0, 0, 0, 0}
	bad := []byte{1, 2, 0, 0, 0, 0, 0, 0}
	// Frame 0 good, frame 1 bad: nothing is fed.
	err = s.UnpackInputs(codec.AppendInputs(nil, 1, 0b01, append(good, bad...)))
	require.ErrorIs(t, err, ErrMalformed)
	_, ok := s.confirmedInput(0, 0)
	require.False(t, ok, "nothing fed when any input is malformed")
	// A bad byte in an unmasked slot does not matter.
	require.NoError(t, s.UnpackInputs(codec.AppendInputs(nil, 0, 0b01, []byte{3, 1, 5, 0, 9, 9, 9, 9})))
	in, ok := s.confirmedInput(0, 0)
	require.True(t, ok)
	require.Equal(t, pad{Buttons: 3, Jump: true, X: 5}, in)

	// The bool offsets inside arrays and nested structs.
	type nested struct {
		A [2]struct {
			B uint8
			C bool
		}
		D bool
		_ [3]byte
	}
	c, err := newInputCodec[nested]()
	require.NoError(t, err)
	require.Equal(t, []int{1, 3, 4}, inputbytes.BoolOffsets(reflect.TypeFor[nested](), 0, nil))
	require.Equal(t, int(reflect.TypeFor[nested]().Size()), c.size)
}

// FuzzUnpackInputs: untrusted bytes never panic, and whatever is accepted
// is confirmed exactly as sent.
func FuzzUnpackInputs(f *testing.F) {
	s := newRecord(f, Config[uint16]{Players: 2})
	for i := range 3 {
		require.NoError(f, s.AddLocalInput(0, uint16(i)))
		step(f, s, 1)
	}
	pkt, err := s.PackInputs(nil, 2, 3, 0b01)
	require.NoError(f, err)
	f.Add(pkt)
	f.Add(codec.AppendInputs(nil, 0, 0b11, []byte{1, 2, 3, 4}))
	f.Add([]byte{})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		s := newRecord(t, Config[uint16]{Players: 2})
		if err := s.UnpackInputs(b); err != nil {
			return
		}
		base := binary.LittleEndian.Uint32(b)
		mask := binary.LittleEndian.Uint32(b[4:])
		frames := (len(b) - codec.InputsHeaderLen) / 4
		for i := range frames {
			f := rollnet.Frame(int(base) - frames + 1 + i)
			for p := range 2 {
				if mask&(1<<p) == 0 || f < 0 {
					continue
				}
				in, ok := s.confirmedInput(p, f)
				require.True(t, ok)
				require.Equal(t, binary.LittleEndian.Uint16(b[codec.InputsHeaderLen+i*4+p*2:]), in)
			}
		}
	})
}
