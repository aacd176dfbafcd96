package authority

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/transport/local"
)

// A host records its match, lossy link, joins and late inputs included,
// and the recording replays checksum for checksum; with LateRollback a
// frame is recorded only once no late input can change it, so the replay
// still agrees. Checked to fail: a recorder that takes frames before they
// are confirmed (Frame-1 for ConfirmedFrame in session's recordConfirmed)
// fails this test.
func TestHostRecordsItsMatch(t *testing.T) {
	for _, late := range []LateInput{LateApply, LateRollback} {
		link := local.Link{Latency: 40 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.05}
		c := newCluster(t, clusterOpts{seed: 21, players: 3, locals: 1, link: link, host: HostConfig[uint16]{LateInput: late}})
		c.noCheck = late == LateRollback // a host that rolls back changes frames it already sent
		var file bytes.Buffer
		rec, err := replay.NewRecorder[world, uint16](replay.RecorderConfig{Players: 3, Settings: 7}, &file, c.h.State())
		require.NoError(t, err)
		require.NoError(t, c.h.SetRecorder(rec))
		c.add("a", ClientConfig{}, mash(1, 2))
		c.run(2 * time.Second)
		c.add("b", ClientConfig{}, mash(5, 3))
		c.run(8 * time.Second)
		require.NoError(t, rec.Close())
		frames := c.h.Frame()
		t.Logf("%v: host at frame %d, %d recorded, file %d bytes", late, frames, rec.Frame(), file.Len())
		require.Greater(t, int(rec.Frame()), int(frames)-70, "every final frame recorded")

		rp, err := replay.NewReplayer[world, uint16](replay.ReplayerConfig{Settings: 7}, &file, simWorld)
		require.NoError(t, err)
		require.NoError(t, rp.Run(), "the replay agrees with every recorded checksum")
		require.Equal(t, rec.Frame(), rp.Frame())
	}
}

func TestHostSetRecorderErrors(t *testing.T) {
	c := newCluster(t, clusterOpts{seed: 22, players: 2})
	var file bytes.Buffer
	wrong, err := replay.NewRecorder[world, uint16](replay.RecorderConfig{Players: 3}, &file, c.h.State())
	require.NoError(t, err)
	require.ErrorIs(t, c.h.SetRecorder(wrong), replay.ErrArgument, "players differ")
	require.NoError(t, c.h.SetRecorder(nil))
	c.run(100 * time.Millisecond)
	late, err := replay.NewRecorder[world, uint16](replay.RecorderConfig{Players: 2}, &file, c.h.State())
	require.NoError(t, err)
	require.ErrorIs(t, c.h.SetRecorder(late), replay.ErrArgument, "the host has started")
}
