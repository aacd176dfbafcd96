package session

import (
	"bytes"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

func TestStateFileRoundTrip(t *testing.T) {
	w := world{Frame: 77}
	w.Acc[2] = 0xdeadbeef
	var buf bytes.Buffer
	require.NoError(t, WriteState(&buf, 1234, &w))
	file := bytes.Clone(buf.Bytes())
	f, got, err := ReadState[world](bytes.NewReader(file))
	require.NoError(t, err)
	require.Equal(t, rollnet.Frame(1234), f)
	require.Equal(t, w, *got)

	// Every prefix and every flipped byte is an error, never a panic.
	for n := range len(file) {
		_, _, err := ReadState[world](bytes.NewReader(file[:n]))
		require.Error(t, err, "prefix %d", n)
		require.True(t, isRecordErr(err), "prefix %d: %v", n, err)
	}
	for i := range file {
		bad := bytes.Clone(file)
		bad[i] ^= 0x41
		_, _, err := ReadState[world](bytes.NewReader(bad))
		require.Error(t, err, "byte %d", i)
		require.True(t, isRecordErr(err), "byte %d: %v", i, err)
	}
	_, _, err = ReadState[otherWorld](bytes.NewReader(file))
	require.ErrorIs(t, err, ErrRecordSettings)
	_, _, err = ReadState[world](bytes.NewReader(recordMatch(t, RecordConfig{Players: 1}, 1)))
	require.ErrorIs(t, err, ErrRecordFormat, "a recording is not a state file")
}

func TestDescribeDesync(t *testing.T) {
	var a, b world
	s, err := DescribeDesync(&a, &b, "bob")
	require.NoError(t, err)
	require.Equal(t, "states are equal", s)
	b.Acc[1] = 5
	s, _ = DescribeDesync(&a, &b, "bob")
	require.Equal(t, "world.Acc[1]: 0 here, 5 at peer bob", s)
	b.Frame = 9
	s, _ = DescribeDesync(&a, &b, "bob")
	require.Equal(t, "world.Acc[1]: 0 here, 5 at peer bob; 1 other field differs", s)
	b.Acc[7] = 1
	s, _ = DescribeDesync(&a, &b, "bob")
	require.Equal(t, "world.Acc[1]: 0 here, 5 at peer bob; 2 other fields differ", s)
}

// The kept states are the confirmed states of checksummed frames, on
// players and spectators, and nothing is kept without the debug mode.
func TestKeepStates(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, spectators: 1, seed: 8, mash: 0.2,
		link: local.Link{Latency: 40 * time.Millisecond, Jitter: 8 * time.Millisecond, Loss: 0.02},
		cfg:  Config[uint16]{InputDelay: 2, Capacity: 16}, net: rollnet.NetConfig{ChecksumInterval: 10}})
	require.ErrorIs(t, c.nodes[0].p.KeepStates(0), ErrArgument)
	require.NoError(t, c.nodes[0].p.KeepStates(8))
	require.NoError(t, c.nodes[2].s.KeepStates(100))
	var rec bytes.Buffer
	var w p2pWorld
	r, err := NewRecorder[p2pWorld, uint16](&rec, RecordConfig{Players: 2, ChecksumEvery: 10, States: true}, &w)
	require.NoError(t, err)
	require.NoError(t, c.nodes[1].p.SetRecorder(r))
	c.frames(600, 30*time.Second)
	require.NoError(t, r.Close())

	// The recording's states (bob's) are the reference.
	p, err := NewReplayer[p2pWorld, uint16](bytes.NewReader(rec.Bytes()), ReplayConfig{}, simP2P)
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
