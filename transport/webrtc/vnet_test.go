package webrtc

import (
	"context"
	"encoding/binary"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pion/logging"
	"github.com/pion/transport/v5/vnet"
	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
)

// vnetPair connects two transports over pion's virtual network, inside the
// caller's synctest bubble: no sockets, fake time. Every packet crossing
// the router passes filter (nil: all pass). a offers to b.
//
// Teardown cuts the network before closing either transport, and no test
// closes one side while the other listens: a side that hears its peer's
// SCTP ABORT or DTLS close_notify closes its own connection, and pion's
// SCTPTransport.Stop then holds its lock while sctp's Association.Abort
// waits on a 200 ms timer for a write loop that has already ended. If
// the data-channel accept loop reaches that lock meanwhile, a goroutine in
// the bubble is blocked on a mutex, which synctest does not count as
// durably blocked, so fake time never reaches the timer and the test hangs
// (real time always does). With the network cut first, each side's write
// loop is alive when it closes, so Abort never waits on its timer.
func vnetPair(t *testing.T, cfg Config, delay time.Duration, filter vnet.ChunkFilter) (a, b *rtcTransport) {
	t.Helper()
	return vnetPairOn(t, cfg, delay, filter, []string{"10.0.0.1"}, []string{"10.0.0.2"}, newHub())
}

// vnetPairOn is vnetPair with the addresses of each side's interface, and
// a hub of the caller's, for tests that watch the signals.
func vnetPairOn(t *testing.T, cfg Config, delay time.Duration, filter vnet.ChunkFilter, ipsA, ipsB []string, h *hub) (a, b *rtcTransport) {
	t.Helper()
	lf := logging.NewDefaultLoggerFactory()
	lf.DefaultLogLevel = logging.LogLevelError
	router, err := vnet.NewRouter(&vnet.RouterConfig{CIDR: "10.0.0.0/24", MinDelay: delay, LoggerFactory: lf})
	require.NoError(t, err)
	var cut atomic.Bool
	router.AddChunkFilter(func(vnet.Chunk) bool { return !cut.Load() })
	if filter != nil {
		router.AddChunkFilter(filter)
	}
	netA, err := vnet.NewNet(&vnet.NetConfig{StaticIPs: ipsA})
	require.NoError(t, err)
	netB, err := vnet.NewNet(&vnet.NetConfig{StaticIPs: ipsB})
	require.NoError(t, err)
	require.NoError(t, router.AddNet(netA))
	require.NoError(t, router.AddNet(netB))
	require.NoError(t, router.Start())
	t.Cleanup(func() { _ = router.Stop() })

	cfg.Net = netA
	a, err = newOn(cfg, h.join("a"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	cfg.Net = netB
	b, err = newOn(cfg, h.join("b"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	t.Cleanup(func() { cut.Store(true) }) // runs first: see vnetPair
	ctx, cancel := context.WithTimeout(context.Background(), waitBound)
	defer cancel()
	_, err = a.WaitPeers(ctx, 1)
	require.NoError(t, err)
	_, err = b.WaitPeers(ctx, 1)
	require.NoError(t, err)
	return a, b
}

// stamp writes the fake clock's now and a sequence number into a packet.
func stamp(buf []byte, seq uint32) []byte {
	buf = binary.LittleEndian.AppendUint64(buf[:0], uint64(time.Now().UnixNano()))
	return binary.LittleEndian.AppendUint32(buf, seq)
}

// drain receives everything waiting on tr and appends each datagram's age
// (from its stamp) and sequence number.
func drain(t *testing.T, tr *rtcTransport, ages []time.Duration, seqs []uint32) ([]time.Duration, []uint32) {
	t.Helper()
	buf := make([]byte, transport.MaxDatagram)
	for {
		n, _, err := tr.Receive(buf)
		if err != nil {
			require.ErrorIs(t, err, transport.ErrNoPacket)
			return ages, seqs
		}
		require.Equal(t, 12, n)
		sent := time.Unix(0, int64(binary.LittleEndian.Uint64(buf)))
		ages = append(ages, time.Since(sent))
		seqs = append(seqs, binary.LittleEndian.Uint32(buf[8:]))
	}
}

func TestVNetLatencyAndLoss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Drop every 10th datagram after the connection is up: an explicit
		// filter, so the count is exact whatever the scheduling.
		var armed atomic.Bool
		var n atomic.Int64
		filter := func(c vnet.Chunk) bool {
			if !armed.Load() || c.SourceAddr().String()[:8] != "10.0.0.1" {
				return true
			}
			return n.Add(1)%10 != 0
		}
		a, b := vnetPair(t, Config{}, 20*time.Millisecond, filter)
		armed.Store(true)

		var seqs []uint32
		var ages []time.Duration
		buf := make([]byte, 0, 12)
		for i := range uint32(100) {
			require.NoError(t, a.Send("b", stamp(buf, i)))
			for range 16 { // poll every millisecond
				time.Sleep(time.Millisecond)
				ages, seqs = drain(t, b, ages, seqs)
			}
		}
		for range 200 {
			time.Sleep(time.Millisecond)
			ages, seqs = drain(t, b, ages, seqs)
		}

		onTime := 0
		for _, age := range ages {
			if age <= 22*time.Millisecond {
				onTime++
			}
		}
		st := a.Stats()
		t.Logf("delivered %d/100, %d within 22 ms, max age %v, superseded %d, stale %d",
			len(seqs), onTime, slices.Max(ages), st.SendsSuperseded, st.SendsStale)
		require.Equal(t, uint64(100), st.PacketsSent+st.SendsSuperseded+st.SendsStale)
		require.GreaterOrEqual(t, len(seqs), 80, "about 1 packet in 10 is lost")
		require.Less(t, len(seqs), 100, "about 1 packet in 10 is lost")
		// Unreliable: a lost datagram is not resent, and does not hold the
		// ones behind it (with pion/datachannel v1.6.3, which never applied
		// a negotiated channel's settings, each loss delayed 4 datagrams by
		// a fast retransmit).
		require.Equal(t, len(seqs), onTime, "one-way delay is 20 ms")
		slices.Sort(seqs)
		require.Equal(t, len(seqs), len(slices.Compact(seqs)), "no duplicates")
	})
}

// blackout sends 64-byte datagrams every 16 ms (fake time) for 4 s, with
// the path dead from 0.5 s to 2 s (long enough for ICE to call it
// disconnected, not failed), and reports how many datagrams sent during the
// blackout were delivered, and when the first datagram sent after it
// arrived.
func blackout(t *testing.T, cfg Config) (staleDelivered int, recovery time.Duration, st Stats, events []transport.PeerEvent) {
	var dead atomic.Bool
	a, b := vnetPair(t, cfg, 10*time.Millisecond, func(vnet.Chunk) bool { return !dead.Load() })
	pkt := make([]byte, 64)
	rbuf := make([]byte, transport.MaxDatagram)
	var healed time.Time
	var firstAfter uint32
	recovery = -1
	const begin, end, total = 31, 125, 250 // 0.5 s, 2 s, 4 s
	for i := range uint32(total) {
		switch i {
		case begin:
			dead.Store(true)
		case end:
			dead.Store(false)
			healed = time.Now()
			firstAfter = i
		}
		binary.LittleEndian.PutUint32(pkt, i)
		require.NoError(t, a.Send("b", pkt))
		time.Sleep(16 * time.Millisecond)
		for {
			n, _, err := b.Receive(rbuf)
			if err != nil {
				break
			}
			require.Equal(t, 64, n)
			seq := binary.LittleEndian.Uint32(rbuf)
			if seq >= begin && seq < end {
				staleDelivered++
			}
			if seq >= firstAfter && firstAfter > 0 && recovery < 0 {
				recovery = time.Since(healed)
			}
		}
	}
	return staleDelivered, recovery, a.Stats(), a.Events(nil)
}

func TestVNetBlackoutSendsNothingStale(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		stale, recovery, st, events := blackout(t, Config{})
		require.Equal(t, []transport.PeerEvent{
			{Kind: transport.PeerConnected, Peer: "b"},
			{Kind: transport.PeerInterrupted, Peer: "b"},
			{Kind: transport.PeerResumed, Peer: "b"},
		}, events)
		t.Logf("default: %d of 94 blackout datagrams delivered late, %d dropped as stale, recovered %v after the path healed",
			stale, st.SendsStale, recovery)
		// What was written before the threshold was crossed was sent once,
		// lost, and abandoned; the rest waited in Send's queue, aged past
		// 100 ms, and was dropped as stale.
		require.Zero(t, stale)
		require.Positive(t, st.SendsStale)
		require.GreaterOrEqual(t, recovery, time.Duration(0), "the channel recovers")
		require.LessOrEqual(t, recovery, defaultSCTPRTOMax, "SCTP's backoff is capped")
	})
	t.Run("without threshold", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			stale, recovery, st, _ := blackout(t, Config{Tuning: Tuning{SendThreshold: 1 << 30}})
			t.Logf("no threshold: %d of 94 blackout datagrams delivered late, recovered %v after the path healed", stale, recovery)
			require.Zero(t, st.SendsStale+st.SendsSuperseded)
			require.Greater(t, stale, 20, "the baseline this package avoids: the blackout is flushed late")
		})
	})
}

func TestVNetBlackoutRecoveryCapped(t *testing.T) {
	var capped, uncapped time.Duration
	synctest.Test(t, func(t *testing.T) { _, capped, _, _ = blackout(t, Config{}) })
	synctest.Test(t, func(t *testing.T) { _, uncapped, _, _ = blackout(t, Config{Tuning: Tuning{SCTPRTOMax: time.Minute}}) })
	t.Logf("first datagram after a 1.5 s blackout arrives %v after the path heals (%v with SCTP's 60 s RTO cap)", capped, uncapped)
	require.Less(t, capped, uncapped)
}

func TestVNetPeerInfo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var dead atomic.Bool
		a, b := vnetPair(t, Config{}, 25*time.Millisecond, func(vnet.Chunk) bool { return !dead.Load() })
		time.Sleep(time.Second) // a few ICE keep-alives
		for _, tr := range []*rtcTransport{a, b} {
			other := map[*rtcTransport]transport.Peer{a: "b", b: "a"}[tr]
			info, err := tr.peerInfo(other)
			require.NoError(t, err)
			require.Equal(t, peerInfo{Peer: other, Open: true, RTT: 50 * time.Millisecond,
				LocalCandidate: "host", RemoteCandidate: "host", Path: pathDirect, Protocol: "udp"}, info)
			require.Equal(t, "direct over UDP (host to host)", info.Route())
		}
		_, err := a.peerInfo("nobody")
		require.ErrorIs(t, err, transport.ErrUnknownPeer)
		// b goes silent rather than closing: a remote close would race
		// pion's own close of a's connection (see vnetPair).
		dead.Store(true)
		ctx, cancel := context.WithTimeout(context.Background(), waitBound)
		defer cancel()
		waitEvent(ctx, t, a, transport.PeerGone)
		_, err = a.peerInfo("b")
		require.ErrorIs(t, err, transport.ErrPeerGone)
		require.NoError(t, a.Close())
		_, err = a.peerInfo("b")
		require.ErrorIs(t, err, transport.ErrClosed)
	})
}

func TestVNetICEFailureRemovesPeer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var blackout atomic.Bool
		a, b := vnetPair(t, Config{}, 0, func(vnet.Chunk) bool { return !blackout.Load() })
		a.Events(nil)
		b.Events(nil)

		start := time.Now()
		blackout.Store(true)
		ctx, cancel := context.WithTimeout(context.Background(), waitBound)
		defer cancel()
		ev := waitEvent(ctx, t, a, transport.PeerGone)
		elapsed := time.Since(start)
		require.Equal(t, transport.Peer("b"), ev.Peer)
		require.ErrorIs(t, ev.Err, ErrICEFailed)
		require.ErrorIs(t, a.Send("b", []byte("x")), transport.ErrPeerGone)
		ev = waitEvent(ctx, t, b, transport.PeerGone)
		require.ErrorIs(t, ev.Err, ErrICEFailed)
		// Disconnected after 1 s of silence, failed 2 s later, checked every
		// 250 ms (keep-alive) or so.
		require.Greater(t, elapsed, 2500*time.Millisecond)
		require.Less(t, elapsed, 4*time.Second)
		t.Logf("peer gone %v after the blackout began", elapsed)
	})
}

// A joining peer costs the offerer one offer and one candidate message, not
// one message per candidate (issue 14: each join made every member send an
// offer and a message per candidate, charged to its own rate limit).
func TestVNetCandidatesBundled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sent := map[signalKind]int{}
		var bundled []int
		h := newHub()
		h.hold = func(from, _ string, s signalMsg) bool {
			if from == "a" {
				sent[s.Kind]++
				if s.Kind == signalCandidate {
					cs, ok := parseCandidates(s.Payload, defaultMaxPendingCandidates)
					require.True(t, ok)
					bundled = append(bundled, len(cs))
				}
			}
			return false
		}
		ips := []string{"10.0.0.1", "10.0.0.3", "10.0.0.5"}
		vnetPairOn(t, Config{}, 5*time.Millisecond, nil, ips, []string{"10.0.0.2"}, h)
		time.Sleep(time.Second) // every candidate gathered and sent
		h.mu.Lock()
		defer h.mu.Unlock()
		t.Logf("a sent %v; candidates per message %v", sent, bundled)
		require.Equal(t, map[signalKind]int{signalOffer: 1, signalCandidate: 1}, sent)
		require.Equal(t, []int{3}, bundled, "a's three host candidates in one message")
	})
}

// A peer that stops acknowledging (its process starved; here its path
// dead) keeps the channel above SendThreshold, and a player host's states,
// a quality reply and a netplay message share the wait queue. The
// message that finds the queue full ([reply, state, state, ...])
// supersedes the oldest state, which newer ones follow, and the reply,
// alone of its kind, stays: it used to be pushed out, counted stale (the
// player host's stale sends under load, seen as [reply, state, state,
// state] and a netplay message in a queue of four).
func TestVNetFullWaitQueueKeepsALoneKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var dead atomic.Bool
		a, _ := vnetPair(t, Config{}, 10*time.Millisecond, func(vnet.Chunk) bool { return !dead.Load() })
		dead.Store(true)
		const state, reply, app = 0x1e, 0x16, 0x10 // wire's StateFragment, QualityReply, netplay's
		msg := func(kind byte) []byte {
			b := make([]byte, 64)
			b[0] = kind
			return b
		}
		a.mu.RLock()
		p := a.peers["b"]
		c := p.c
		a.mu.RUnlock()
		// States straight to the channel until it holds more than the
		// threshold (nothing is acknowledged: fake time stands still).
		for c.bufferedAmount() <= uint64(a.cfg.Tuning.SendThreshold) {
			require.NoError(t, a.Send("b", msg(state)))
		}
		require.Zero(t, p.out.Len())
		before := a.Stats()
		sent := []byte{reply}
		for len(sent) < waitLen {
			sent = append(sent, state)
		}
		for _, k := range append(sent, app) {
			require.NoError(t, a.Send("b", msg(k)))
		}
		st := a.Stats()
		require.Equal(t, before.SendsStale, st.SendsStale, "nothing pushed out")
		require.Equal(t, before.SendsSuperseded+1, st.SendsSuperseded, "the oldest state, superseded")
		buf := make([]byte, transport.MaxDatagram)
		var kinds []byte
		for {
			n, stale, ok := p.out.Pop(buf, 0)
			require.Zero(t, stale)
			if !ok {
				break
			}
			kinds = append(kinds, buf[:n][0])
		}
		require.Equal(t, append(append([]byte{reply}, sent[2:]...), app), kinds)
	})
}

// The wait queue holds the newest of eight kinds at once (a player host's
// state, quality report and reply, keep-alive, and netplay's ping, pong,
// roster and hello) while the peer's acknowledgements stall: none is
// pushed out. A ninth kind pushes out the oldest, stale.
func TestVNetWaitQueueHoldsEightKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var dead atomic.Bool
		a, _ := vnetPair(t, Config{}, 10*time.Millisecond, func(vnet.Chunk) bool { return !dead.Load() })
		dead.Store(true)
		msg := func(kind ...byte) []byte {
			b := make([]byte, 64)
			copy(b, kind)
			return b
		}
		a.mu.RLock()
		c := a.peers["b"].c
		a.mu.RUnlock()
		for c.bufferedAmount() <= uint64(a.cfg.Tuning.SendThreshold) {
			require.NoError(t, a.Send("b", msg(0x1e)))
		}
		before := a.Stats()
		for _, k := range [][]byte{{0x1e}, {0x15}, {0x16}, {0x17}, {0x10, 2}, {0x10, 3}, {0x10, 5}, {0x10, 1}} {
			require.NoError(t, a.Send("b", msg(k...)))
		}
		st := a.Stats()
		require.Equal(t, before.SendsStale, st.SendsStale, "eight kinds wait")
		require.Equal(t, before.SendsSuperseded, st.SendsSuperseded)
		require.NoError(t, a.Send("b", msg(0x10, 4)))
		require.Equal(t, before.SendsStale+1, a.Stats().SendsStale, "a ninth pushes out the oldest")
	})
}
