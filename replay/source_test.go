package replay

import (
	"bytes"
	"errors"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/stretchr/testify/require"
)

// heldSource is a Source of a match driven elsewhere that holds the inputs
// of frames [oldest, frame) only, as a session's window does.
type heldSource struct {
	state         world
	frame, oldest rollnet.Frame
}

func (s *heldSource) Players() int                  { return 2 }
func (s *heldSource) Frame() rollnet.Frame          { return s.frame }
func (s *heldSource) ConfirmedFrame() rollnet.Frame { return s.frame - 1 }

func (s *heldSource) ConfirmedInput(_ int, f rollnet.Frame) (uint16, bool) {
	return uint16(f), f >= s.oldest && f < s.frame
}

func (s *heldSource) StateAt(rollnet.Frame) (*world, error) { return &s.state, nil }

// TestRecordConfirmedNotHeld: a recorder called after the source let go of
// a frame it had not recorded stops with an error wrapping ErrArgument that
// names the frame, and keeps it for Close.
func TestRecordConfirmedNotHeld(t *testing.T) {
	src := &heldSource{}
	var buf bytes.Buffer
	r, err := NewRecorder[world, uint16](RecorderConfig{Players: 2}, &buf, &src.state)
	require.NoError(t, err)
	require.NoError(t, r.Attach(src))

	src.frame = 10
	require.NoError(t, r.RecordConfirmed(src))
	require.Equal(t, rollnet.Frame(10), r.Frame())

	src.frame, src.oldest = 30, 20 // frames 10 to 19 went unrecorded
	err = r.RecordConfirmed(src)
	require.ErrorIs(t, err, ErrArgument)
	require.ErrorContains(t, err, "no longer held by the source: frame 10 player 0")
	require.Equal(t, rollnet.Frame(10), r.Frame())
	require.True(t, errors.Is(r.Close(), ErrArgument))
}
