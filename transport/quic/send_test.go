//go:build !js

package quic

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/internal/sendqueue"
	"github.com/rollnet/rollnet/transport"
)

// TestSendSupersedes: a datagram that finds SendQueueLen waiting (the
// send loop not running) supersedes the oldest of its kind rather than
// being dropped; one of a kind not waiting makes the oldest one a newer
// one of its kind follows superseded, or, every kind alone, pushes out the
// oldest, counted stale; a queue full of a bulk transfer's refuses it. The send loop then
// sends the newest of each kind.
func TestSendSupersedes(t *testing.T) {
	cfg, err := Config{Tuning: Tuning{SendQueueLen: 3, BulkQueueLen: 3}}.withDefaults()
	require.NoError(t, err)
	tr := newTransport(cfg)
	defer tr.Close()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	p := &peer{id: "b", conn: nopConn{}, out: sendqueue.New(cfg.Tuning.BulkQueueLen), ctx: ctx, stop: stop}
	tr.peers[p.id] = p
	p.lane = tr.q.Lane(p.id)

	for _, d := range []string{"s1", "i1", "s2", "s3", "s4", "k1", "x1"} {
		require.NoError(t, tr.Send("b", []byte(d)))
	}
	st := tr.Stats()
	require.Equal(t, uint64(3), st.SendsSuperseded, "s3 superseded s1, s4 s2, and s4 s3 when k1 came (i1, alone of its kind, kept)")
	require.Equal(t, uint64(1), st.SendsStale, "x1 pushed out i1: every kind waiting was alone")
	buf := make([]byte, transport.MaxDatagram)
	var sent []string
	for {
		n, _, ok := p.out.Pop(buf, 0)
		if !ok {
			break
		}
		sent = append(sent, string(buf[:n]))
	}
	require.Equal(t, []string{"s4", "k1", "x1"}, sent)

	for range 3 {
		taken, err := tr.SendBulk("b", []byte("b"))
		require.True(t, taken)
		require.NoError(t, err)
	}
	taken, err := tr.SendBulk("b", []byte("b"))
	require.False(t, taken)
	require.NoError(t, err)
	require.NoError(t, tr.Send("b", []byte("s5")))
	require.Equal(t, uint64(2), tr.Stats().SendsSkipped, "a bulk datagram and s5 refused")
}
