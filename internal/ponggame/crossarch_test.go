package ponggame

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/crossarch"
	"github.com/stretchr/testify/require"
)

// botMatch is a minute of pong between two bots, as recorded by the
// cross-architecture check and the benchmarks.
func botMatch(frames int) crossarch.Match[State, Input] {
	return crossarch.Match[State, Input]{
		Name: "pong", Settings: 0x9096, Players: 2, Frames: frames,
		Initial: NewState(7), Simulate: Simulate,
		Inputs: func(s *State, _ rollnet.Frame, in []Input) { in[0], in[1] = Bot(s, 0), Bot(s, 1) },
	}
}

// A match of pong recorded on one architecture replays checksum for
// checksum on this one (see internal/crossarch for the modes).
func TestCrossArchPong(t *testing.T) {
	m := botMatch(3600)
	file, err := crossarch.Recording(crossarch.ModeFromEnv(), m)
	require.NoError(t, err)
	frames, checked, err := crossarch.Replay(bytes.NewReader(file), m, nil)
	require.NoError(t, err)
	require.Equal(t, m.Frames, checked)
	t.Logf("crossarch %s/%s: pong: %d frames replayed, %d checksums agree (recording %d bytes)",
		runtime.GOOS, runtime.GOARCH, frames, checked, len(file))
}
