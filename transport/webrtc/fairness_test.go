package webrtc

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
)

// meshOfThree connects player a, its real opponent b and a third room
// member c on loopback through one hub, each with its own Config.
func meshOfThree(t *testing.T, ca, cb, cc Config) (a, b, c *rtcTransport) {
	t.Helper()
	h := newHub()
	trs := make([]*rtcTransport, 3)
	for i, cfg := range []Config{ca, cb, cc} {
		cfg.LoopbackOnly = true
		tr, err := newOn(cfg, h.join(string(rune('a'+i))))
		require.NoError(t, err)
		t.Cleanup(func() { _ = tr.Close() })
		trs[i] = tr
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	for _, tr := range trs {
		_, err := tr.WaitPeers(ctx, 2)
		require.NoError(t, err)
	}
	return trs[0], trs[1], trs[2]
}

// floodRoom plays ticks in which b sends a one datagram and c, a flooding
// room member, sends it 300; a drains its queue (16 slots) every
// millisecond until b's datagram of the tick came (waitBound at most:
// within the tick idle, but a's read loops lag the flood by seconds
// under -race on a loaded machine). It returns how many of b's and c's datagrams a received. One of
// b's datagrams at a time is in flight: b's lane holds at most one, under
// its share of the queue, so the flood can cost it nothing. (Ticks of
// 1 ms, with no wait for b's datagram, let a loaded machine deliver b's
// in a burst after a lag: b's lane, past its half of the 16 slots, lost
// its newest to the flood, and 49 of 50 came.)
func floodRoom(t *testing.T, expect bool) (fromB, fromC int, st Stats) {
	const ticks, ratio = 50, 300
	a, b, c := meshOfThree(t, Config{Tuning: Tuning{QueueLen: 16}}, Config{}, Config{Tuning: Tuning{SendThreshold: 1 << 30}})
	if expect {
		a.Expect("b")
	}
	buf := make([]byte, transport.MaxDatagram)
	junk := make([]byte, 32)
	drain := func() {
		for {
			n, from, err := a.Receive(buf)
			if err != nil {
				require.ErrorIs(t, err, transport.ErrNoPacket)
				return
			}
			switch from {
			case "b":
				require.Equal(t, 4, n)
				require.Equal(t, uint32(fromB), binary.LittleEndian.Uint32(buf), "b's datagrams in order, none lost")
				fromB++
			case "c":
				fromC++
			}
		}
	}
	var pkt [4]byte
	for i := range ticks {
		binary.LittleEndian.PutUint32(pkt[:], uint32(i))
		require.NoError(t, b.Send("a", pkt[:]))
		for range ratio {
			require.NoError(t, c.Send("a", junk))
		}
		start := time.Now()
		for drain(); fromB <= i; drain() {
			require.Less(t, time.Since(start), waitBound, "waited for b's datagram %d through the flood (a has %d of b's, %d of c's)", i, fromB, fromC)
			time.Sleep(time.Millisecond)
		}
	}
	return fromB, fromC, a.Stats()
}

// TestFloodingRoomMemberCostsNothing is issue 14's WebRTC attack: a room
// member sending 300 datagrams for every one of the real opponent's (2.7 M
// in 15 s cost a player half its opponent's packets through one shared
// queue). Each peer has its own share of the queue, so the opponent loses
// nothing; once the session names the peers it expects, the flood takes no
// slot at all.
func TestFloodingRoomMemberCostsNothing(t *testing.T) {
	t.Run("fair queue", func(t *testing.T) {
		fromB, fromC, st := floodRoom(t, false)
		t.Logf("opponent: %d of 50 delivered; flooder: %d delivered, %d dropped by a full queue",
			fromB, fromC, st.ReceivesDropped)
		require.Equal(t, 50, fromB)
		require.Positive(t, st.ReceivesDropped, "the flood did fill the queue")
	})
	t.Run("expected peers", func(t *testing.T) {
		fromB, fromC, st := floodRoom(t, true)
		t.Logf("opponent: %d of 50 delivered; flooder: %d delivered, %d dropped as unexpected",
			fromB, fromC, st.ReceivesUnexpected)
		require.Equal(t, 50, fromB)
		require.Zero(t, fromC)
		require.Zero(t, st.ReceivesDropped)
		require.Positive(t, st.ReceivesUnexpected)
	})
}

// With Config.Accept, an endpoint connects only to the peers it wants: the
// refused member is neither offered to nor answered.
func TestAcceptChoosesPeers(t *testing.T) {
	h := newHub()
	notC := func(p transport.Peer) bool { return p != "c" }
	cfg := Config{LoopbackOnly: true, Accept: notC}
	var trs []*rtcTransport
	for _, id := range []string{"a", "b", "c"} {
		c := cfg
		if id == "c" {
			c.Accept = nil
		}
		tr, err := newOn(c, h.join(id))
		require.NoError(t, err)
		t.Cleanup(func() { _ = tr.Close() })
		trs = append(trs, tr)
	}
	a, b, c := trs[0], trs[1], trs[2]
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	peers, err := a.WaitPeers(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, []transport.Peer{"b"}, peers)
	_, err = b.WaitPeers(ctx, 1)
	require.NoError(t, err)
	// c joined last and waits for offers; a and b refused its join, so it
	// never connects.
	require.Eventually(t, func() bool {
		return a.Stats().PeersRefused > 0 && b.Stats().PeersRefused > 0
	}, waitBound, time.Millisecond)
	require.ErrorIs(t, a.Send("c", []byte("x")), transport.ErrUnknownPeer)
	require.Empty(t, c.Peers(nil))
}

// A peer that joined and left before this endpoint got to offer costs no
// offer (issue 14: join/leave churn made every member send offers and
// candidates to peers already gone).
func TestNoOfferToPeerThatLeft(t *testing.T) {
	h := newHub()
	pa := h.join("a")
	for range 3 {
		pa.deliver(signalEvent{Kind: peerJoined, Peer: "x"})
		pa.deliver(signalEvent{Kind: peerLeft, Peer: "x"})
	}
	a, err := newOn(Config{LoopbackOnly: true}, pa)
	require.NoError(t, err)
	defer a.Close()
	require.Eventually(t, func() bool { return a.Stats().OffersSkipped == 3 }, waitBound, time.Millisecond)
	st := a.Stats()
	require.Zero(t, st.SignalErrors, "no signal went to the departed peer")
	require.ErrorIs(t, a.Send("x", []byte("x")), transport.ErrUnknownPeer, "no connection was made")
}
