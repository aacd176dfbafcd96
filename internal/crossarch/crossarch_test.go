package crossarch

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/replay"
	"github.com/stretchr/testify/require"
)

// cloud is the float-heavy match: a minute at 60 frames a second.
func cloud() Match[Cloud, uint8] {
	return Match[Cloud, uint8]{
		Name: "cloud", Settings: 0xc10d, Players: 2, Frames: 3600,
		Initial: NewCloud(), Simulate: SimulateCloud(MulAdd), Inputs: Pilots[Cloud],
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
// fused): it must diverge exactly where Go fuses. Replaying it there with
// MulAdd agrees (TestCrossArchCloud), so the conversion is the whole fix.
func TestCrossArchFusedDiverges(t *testing.T) {
	m := cloud()
	file, err := Recording(ModeFromEnv(), m)
	require.NoError(t, err)
	requireDivergesWhereFused(t, "fused cloud", file, m, SimulateCloud(MulAddFused))
}

// requireDivergesWhereFused replays file, recorded where nothing is fused
// (amd64), with simulate: a build that fuses x*y + z (which it must on
// arm64, riscv64, ppc64le and s390x) must diverge, and one that does not
// must agree.
func requireDivergesWhereFused[S any](t *testing.T, name string, file []byte, m Match[S, uint8], simulate func(*S, []uint8, rollnet.Frame)) {
	t.Helper()
	switch runtime.GOARCH {
	case "arm64", "riscv64", "ppc64le", "s390x":
		require.True(t, fuses(), "Go fuses x*y + z on %s", runtime.GOARCH)
	case "386":
		require.False(t, fuses())
	}
	frames, checked, err := Replay(bytes.NewReader(file), m, simulate)
	if !fuses() {
		require.NoError(t, err, "nothing is fused on %s, so x*y + z agrees", runtime.GOARCH)
		t.Logf("crossarch %s/%s: %s: nothing fused here, %d frames agree", runtime.GOOS, runtime.GOARCH, name, checked)
		return
	}
	var me *replay.MismatchError
	require.True(t, errors.As(err, &me), "a fusing build must diverge: %v", err)
	require.NotEmpty(t, me.Fields, "the recording has states: the field is named")
	t.Logf("crossarch %s/%s: %s diverged after %d frames (%d checksums agreed): %v",
		runtime.GOOS, runtime.GOARCH, name, frames, checked, err)
}

// swarmFloat is the same match in float64, written x*y + z.
func swarmFloat() Match[SwarmFloat, uint8] {
	return Match[SwarmFloat, uint8]{
		Name: "swarmfloat", Settings: 0x5a4e, Players: 2, Frames: 600,
		Initial: NewSwarmFloat(), Simulate: SimulateSwarmFloat, Inputs: Pilots[SwarmFloat],
	}
}

// The swarm in float64, written x*y + z (the way rollnet-vet flags),
// replayed against its recording made where nothing is fused: it diverges
// where Go fuses.
func TestCrossArchSwarmFloat(t *testing.T) {
	m := swarmFloat()
	file, err := Recording(ModeFromEnv(), m)
	require.NoError(t, err)
	requireDivergesWhereFused(t, "float swarm", file, m, nil)
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
