package local_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// flood plays 200 ticks of 16 ms in which the real peer sends one datagram
// to the player and the outsider sends 300, over a 40 ms link, the player
// draining its queue every tick as a session does. It returns how many of
// the real peer's datagrams arrived, and the player's received stats per
// sender.
func flood(t *testing.T, expect bool) (real int, fromPeer, fromOutsider local.Stats) {
	f := newFixture(t, local.Config{Link: local.Link{Latency: 40 * time.Millisecond}}, "player", "peer", "outsider")
	if expect {
		f.eps["player"].Expect("peer")
	}
	const ticks, ratio = 200, 300
	junk := make([]byte, 64)
	for i := range ticks {
		f.sendSeq("peer", "player", uint64(i))
		for range ratio {
			require.NoError(t, f.eps["outsider"].Send("player", junk))
		}
		f.clock.Advance(16 * time.Millisecond)
		for _, d := range f.drain("player") {
			if d.from == "peer" {
				real++
			}
		}
	}
	f.clock.Advance(time.Second)
	for _, d := range f.drain("player") {
		if d.from == "peer" {
			real++
		}
	}
	return real, f.net.LinkStats("peer", "player"), f.net.LinkStats("outsider", "player")
}

// TestFloodingOutsiderCostsNothing is issue 14's local-network attack: a
// sender with 300 datagrams for every one of the real peer's. The player's
// queue (256 slots) is fair between senders, so the real peer loses
// nothing even when the player does not say whom it expects; when it does,
// the outsider does not get a single slot.
func TestFloodingOutsiderCostsNothing(t *testing.T) {
	t.Run("fair queue", func(t *testing.T) {
		real, peer, outsider := flood(t, false)
		t.Logf("real peer: %d of 200 delivered; outsider: %d delivered, %d dropped on a full queue",
			real, outsider.Delivered, outsider.DroppedFull)
		require.Equal(t, 200, real)
		require.Zero(t, peer.DroppedFull)
		require.Positive(t, outsider.DroppedFull)
		conserved(t, peer)
		conserved(t, outsider)
	})
	t.Run("expected peers", func(t *testing.T) {
		real, peer, outsider := flood(t, true)
		require.Equal(t, 200, real)
		require.Zero(t, peer.DroppedFull+peer.DroppedUnexpected)
		require.Zero(t, outsider.Delivered+outsider.DroppedFull+outsider.InFlight)
		require.EqualValues(t, 200*300, outsider.DroppedUnexpected)
		conserved(t, outsider)
	})
}

func TestExpect(t *testing.T) {
	f := newFixture(t, local.Config{Link: local.Link{Latency: time.Millisecond}}, "a", "b", "c")
	f.sendSeq("b", "a", 1)
	f.sendSeq("c", "a", 2)
	// Narrowing drops what the left-out sender still has queued.
	f.eps["a"].Expect("b")
	f.sendSeq("c", "a", 3)
	f.sendSeq("b", "a", 4)
	got := f.runUntilIdle("a")
	require.Len(t, got, 2)
	require.Equal(t, []uint64{1, 4}, []uint64{got[0].seq, got[1].seq})
	require.EqualValues(t, 2, f.net.LinkStats("c", "a").DroppedUnexpected)
	// Widening receives again; no peers expects none.
	f.eps["a"].Expect("b", "c")
	f.sendSeq("c", "a", 5)
	require.Len(t, f.runUntilIdle("a"), 1)
	f.eps["a"].Expect()
	f.sendSeq("b", "a", 6)
	f.sendSeq("c", "a", 7)
	require.Empty(t, f.runUntilIdle("a"))
	_, received := f.eps["a"].Stats()
	require.EqualValues(t, 4, received.DroppedUnexpected)
	conserved(t, received)
	// Send is not filtered, and a reopened endpoint expects everyone.
	require.NoError(t, f.eps["a"].Send("c", []byte("x")))
	require.NoError(t, f.eps["a"].Close())
	a2, err := f.net.Endpoint("a")
	require.NoError(t, err)
	f.eps["a"] = a2
	f.sendSeq("c", "a", 8)
	require.Len(t, f.runUntilIdle("a"), 1)
}

// Senders take turns: with a full queue of one sender's datagrams and one
// of another's due at once, the lone datagram comes out first or second,
// not 257th.
func TestReceiveTakesSendersInTurn(t *testing.T) {
	f := newFixture(t, local.Config{}, "a", "b", "c")
	for range 300 {
		require.NoError(t, f.eps["c"].Send("a", make([]byte, 8)))
	}
	f.sendSeq("b", "a", 7)
	buf := make([]byte, transport.MaxDatagram)
	_, from1, err := f.eps["a"].Receive(buf)
	require.NoError(t, err)
	_, from2, err := f.eps["a"].Receive(buf)
	require.NoError(t, err)
	require.ElementsMatch(t, []transport.Peer{"b", "c"}, []transport.Peer{from1, from2})
}

var _ transport.Expecter = (local.Endpoint)(nil)
