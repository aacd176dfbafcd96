package p2p

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// Three players on a lossy, jittery, reordering link and a spectator all
// record the match; every recording replays cleanly, and the four agree
// on every frame they all hold: a recording is the match, whoever made
// it.
func TestRecordP2PAndSpectator(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 3, spectators: 1, seed: 21, mash: 0.1,
		link: local.Link{Latency: 60 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.03, Reorder: 0.03},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 32}})
	files := make([]*bytes.Buffer, len(c.nodes))
	recs := make([]*replay.Recorder[p2pWorld, uint16], len(c.nodes))
	for i, n := range c.nodes {
		files[i] = &bytes.Buffer{}
		var err error
		var w p2pWorld
		recs[i], err = replay.NewRecorder[p2pWorld, uint16](replay.RecorderConfig{Players: 3, States: i == 1}, files[i], &w)
		require.NoError(t, err)
		if n.p != nil {
			require.NoError(t, n.p.SetRecorder(recs[i]))
		} else {
			require.NoError(t, n.s.SetRecorder(recs[i]))
		}
	}
	c.frames(900, 60*time.Second)
	for _, r := range recs {
		require.NoError(t, r.Close())
	}

	reps := make([]*replay.Replayer[p2pWorld, uint16], len(files))
	common := rollnet.Frame(1 << 30)
	for i, f := range files {
		p, err := replay.NewReplayer[p2pWorld, uint16](replay.ReplayerConfig{Players: 3}, bytes.NewReader(f.Bytes()), simP2P)
		require.NoError(t, err)
		reps[i] = p
		require.Greater(t, int(recs[i].Frame()), 400, "%s recorded", c.nodes[i].name)
		common = min(common, recs[i].Frame())
	}
	for f := range common {
		var want uint32
		for i, p := range reps {
			require.NoError(t, p.AdvanceFrame(), "%s frame %d", c.nodes[i].name, f)
			sum := checksumOf(p.State())
			if i == 0 {
				want = sum
			}
			require.Equal(t, want, sum, "%s frame %d", c.nodes[i].name, f)
		}
	}
	for i, p := range reps {
		require.NoError(t, p.Run(), c.nodes[i].name)
		require.Equal(t, int(recs[i].Frame()), p.Checked())
	}
	t.Logf("recorded frames: p0 %d, p1 %d, p2 %d, spectator %d; %d bytes each for p0",
		recs[0].Frame(), recs[1].Frame(), recs[2].Frame(), recs[3].Frame(), files[0].Len())
}

func checksumOf(w *p2pWorld) uint32 { return rollback.Checksum(rollback.BytesOf(w)) }

func TestSetRecorderRefuses(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, seed: 3, cfg: session.Config[uint16]{InputDelay: 1}})
	var w p2pWorld
	r3, err := replay.NewRecorder[p2pWorld, uint16](replay.RecorderConfig{Players: 3}, io.Discard, &w)
	require.NoError(t, err)
	require.ErrorIs(t, c.nodes[0].p.SetRecorder(r3), session.ErrArgument)
	require.NoError(t, c.nodes[0].p.SetRecorder(nil))
	c.frames(10, 10*time.Second)
	r2, err := replay.NewRecorder[p2pWorld, uint16](replay.RecorderConfig{Players: 2}, io.Discard, &w)
	require.NoError(t, err)
	require.ErrorIs(t, c.nodes[0].p.SetRecorder(r2), session.ErrArgument, "too late: frames were simulated")
}

// Recording a session's confirmed frames as they come, and keeping the
// states of checksummed ones, allocates nothing.
func TestAllocsRecordConfirmed(t *testing.T) {
	skipUnderRace(t)
	s := newWorld(t, session.Config[uint16]{Players: 2, InputDelay: 2})
	r, err := replay.NewRecorder[world, uint16](replay.RecorderConfig{Players: 2}, io.Discard, s.State())
	require.NoError(t, err)
	k, err := newKeeper[world](16)
	require.NoError(t, err)
	rec := recording[world, uint16]{rec: r, keep: k}
	allocs.RequireZero(t, 2000, func() {
		_ = s.AddLocalInput(0, uint16(s.Frame()/7))
		_ = s.AddLocalInput(1, uint16(s.Frame()/3))
		if err := s.AdvanceFrame(); err != nil {
			panic(err)
		}
		rec.confirmed(s, 10)
	})
	require.Greater(t, int(r.Frame()), 2000)
	require.NoError(t, r.Close())
}

// The recorder and a session agree: a session's confirmed frames,
// recorded as they are confirmed, replay to the session's checksums.
func TestRecordSessionFrames(t *testing.T) {
	s := newWorld(t, session.Config[uint16]{Players: 2, InputDelay: 2})
	s.State().R = rollnet.NewRand(3)
	var buf bytes.Buffer
	r, err := replay.NewRecorder[world, uint16](replay.RecorderConfig{Players: 2}, &buf, s.State())
	require.NoError(t, err)
	var want []uint32
	in := make([]uint16, 2)
	for f := range 300 {
		require.NoError(t, s.AddLocalInput(0, uint16(f/9%3)))
		require.NoError(t, s.AddLocalInput(1, uint16(f/4%5)))
		require.NoError(t, s.AdvanceFrame())
		g := s.Frame() - 1
		for p := range in {
			in[p], _ = s.ConfirmedInput(p, g)
		}
		st, err := s.StateAt(g)
		require.NoError(t, err)
		require.NoError(t, r.Record(in, st))
		sum, _ := s.ChecksumAt(g)
		want = append(want, sum)
	}
	require.NoError(t, r.Close())
	p, err := replay.NewReplayer[world, uint16](replay.ReplayerConfig{Players: 2}, bytes.NewReader(buf.Bytes()), simWorld)
	require.NoError(t, err)
	for f := range 300 {
		require.NoError(t, p.AdvanceFrame())
		require.Equal(t, want[f], worldSum(p.State()), "frame %d", f)
	}
	require.ErrorIs(t, p.AdvanceFrame(), io.EOF)
}
