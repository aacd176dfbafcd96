package crossarch

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/rollnet/rollnet/replay"
	"github.com/stretchr/testify/require"
)

// cloud is the float-heavy match: a minute at 60 frames a second.
func cloud() Match[Cloud, uint8] {
	return Match[Cloud, uint8]{
		Name: "cloud", Settings: 0xc10d, Players: 2, Frames: 3600,
		Initial: NewCloud(), Simulate: SimulateCloud(MulAdd), Inputs: CloudPilots,
	}
}

// fusedProbe is x*y + z as Go compiles it on this build.
//
//go:noinline
func fusedProbe(x, y, z float64) float64 { return x*y + z }

// fuses reports whether this build fuses x*y + z into one multiply-add:
// 0.1*10 rounds to exactly 1 in two roundings, but fused the error of
// 0.1's representation survives.
func fuses() bool { return fusedProbe(0.1, 10, -1) != 0 }

// The cloud, written by the rules, replays checksum for checksum.
func TestCrossArchCloud(t *testing.T) {
	m := cloud()
	file, err := Recording(ModeFromEnv(), m)
	require.NoError(t, err)
	frames, checked, err := Replay(bytes.NewReader(file), m, nil)
	require.NoError(t, err)
	require.Equal(t, m.Frames, frames)
	require.Equal(t, m.Frames, checked)
	t.Logf("crossarch %s/%s: cloud: %d frames replayed, %d checksums agree (recording %d bytes)",
		runtime.GOOS, runtime.GOARCH, frames, checked, len(file))
}

// The same cloud with x*y + z written plainly, replayed against the
// recording of the cloud written by the rules (recorded where nothing is
// fused): it must diverge exactly where Go fuses, which it must on
// arm64, riscv64, ppc64le and s390x. Replaying it there with MulAdd
// agrees (TestCrossArchCloud), so the conversion is the whole fix.
func TestCrossArchFusedDiverges(t *testing.T) {
	m := cloud()
	file, err := Recording(ModeFromEnv(), m)
	require.NoError(t, err)
	switch runtime.GOARCH {
	case "arm64", "riscv64", "ppc64le", "s390x":
		require.True(t, fuses(), "Go fuses x*y + z on %s", runtime.GOARCH)
	case "386":
		require.False(t, fuses())
	}
	frames, checked, err := Replay(bytes.NewReader(file), m, SimulateCloud(MulAddFused))
	if !fuses() {
		require.NoError(t, err, "nothing is fused on %s, so x*y + z agrees", runtime.GOARCH)
		t.Logf("crossarch %s/%s: fused cloud: nothing fused here, %d frames agree", runtime.GOOS, runtime.GOARCH, checked)
		return
	}
	var me *replay.MismatchError
	require.True(t, errors.As(err, &me), "a fusing build must diverge: %v", err)
	require.NotEmpty(t, me.Fields, "the recording has states: the field is named")
	t.Logf("crossarch %s/%s: fused cloud diverged after %d frames (%d checksums agreed): %v",
		runtime.GOOS, runtime.GOARCH, frames, checked, err)
}

// Cloud follows the state rules.
func TestCloudState(t *testing.T) {
	var buf bytes.Buffer
	m := cloud()
	m.Frames = 10
	require.NoError(t, Record(&buf, m))
	// MulAdd and MulAddFused are the same function where nothing fuses.
	if !fuses() {
		require.Equal(t, MulAdd(0.1, 10, -1), MulAddFused(0.1, 10, -1))
	}
	require.Zero(t, MulAdd(0.1, 10, -1))
}
