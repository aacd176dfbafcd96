package p2p

import (
	"bytes"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// The kept states are the confirmed states of checksummed frames, on
// players and spectators, and nothing is kept without the debug mode.
func TestKeepStates(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, spectators: 1, seed: 8, mash: 0.2,
		link: local.Link{Latency: 40 * time.Millisecond, Jitter: 8 * time.Millisecond, Loss: 0.02},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 16}, net: rollnet.NetConfig{ChecksumInterval: 10}})
	require.ErrorIs(t, c.nodes[0].p.KeepStates(0), session.ErrArgument)
	require.NoError(t, c.nodes[0].p.KeepStates(8))
	require.NoError(t, c.nodes[2].s.KeepStates(100))
	var rec bytes.Buffer
	var w p2pWorld
	r, err := replay.NewRecorder[p2pWorld, uint16](replay.RecorderConfig{Players: 2, ChecksumEvery: 10, States: true}, &rec, &w)
	require.NoError(t, err)
	require.NoError(t, c.nodes[1].p.SetRecorder(r))
	c.frames(600, 30*time.Second)
	require.NoError(t, r.Close())

	// The recording's states (bob's) are the reference.
	p, err := replay.NewReplayer[p2pWorld, uint16](replay.ReplayerConfig{}, bytes.NewReader(rec.Bytes()), simP2P)
	require.NoError(t, err)
	want := map[rollnet.Frame]p2pWorld{}
	for p.AdvanceFrame() == nil {
		want[p.Frame()-1] = *p.State()
	}
	alice, spec := c.nodes[0].p, c.nodes[2].s
	kept := 0
	upto := min(alice.ConfirmedFrame(), alice.Frame()-1)
	for f := rollnet.Frame(0); f <= upto; f++ {
		st, ok := alice.KeptState(f)
		require.Equal(t, f%10 == 0 && f > upto-80, ok, "frame %d: the last 8 checksummed frames", f)
		if ok {
			require.Equal(t, want[f], *st, "alice frame %d", f)
			kept++
		}
		if st, ok := spec.KeptState(f); ok {
			require.Equal(t, want[f], *st, "spectator frame %d", f)
		}
	}
	require.Equal(t, 8, kept)
	_, ok := c.nodes[1].p.KeptState(500)
	require.False(t, ok, "bob did not ask to keep states")
}
