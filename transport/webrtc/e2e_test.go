package webrtc

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/pion/transport/v5/vnet"
	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/signaling"
	"github.com/rollnet/rollnet/transport"
	"github.com/stretchr/testify/require"
)

// world is the end-to-end game: accumulators that mix every input, so one
// wrong input on any frame changes every later checksum.
type world struct {
	Acc   [2]uint32
	H     uint64
	Frame int32
	_     [4]byte
}

func simulate(w *world, in []uint16, f rollnet.Frame) {
	for p, v := range in {
		w.Acc[p] = bits.RotateLeft32(w.Acc[p]^(uint32(v)+1)*0x9e3779b1, 7) + uint32(p+1)*0x85ebca6b
		w.H = (w.H ^ uint64(v) ^ uint64(p)<<16) * 1099511628211
	}
	w.Frame = int32(f)
}

// inputProbe wraps a transport to time input round trips: from the first
// Send of a local input frame to the first packet from the peer that
// acknowledges it. It includes the peer's wait for its next tick, as a
// game experiences it.
type inputProbe struct {
	transport.Transport
	sentAt map[int32]time.Time
	acked  int32
	rtts   []time.Duration
	msg    wire.Input
	inputs []byte
	status []wire.PeerStatus
}

func newInputProbe(t transport.Transport) *inputProbe {
	return &inputProbe{
		Transport: t,
		sentAt:    map[int32]time.Time{},
		acked:     -1,
		inputs:    make([]byte, wire.MaxFrames*wire.MaxPlayers*2),
		status:    make([]wire.PeerStatus, wire.MaxPlayers),
	}
}

func (p *inputProbe) Send(to transport.Peer, b []byte) error {
	if typ, _, _, err := wire.ParseHeader(b); err == nil && typ == wire.TypeInput {
		p.msg.Size = 2
		if _, err := wire.ParseInput(b, &p.msg, p.inputs, p.status); err == nil {
			now := time.Now()
			for f := p.msg.Start; f < p.msg.Start+int32(p.msg.Frames); f++ {
				if _, ok := p.sentAt[f]; !ok && f > p.acked {
					p.sentAt[f] = now
				}
			}
		}
	}
	return p.Transport.Send(to, b)
}

func (p *inputProbe) Receive(buf []byte) (int, transport.Peer, error) {
	n, from, err := p.Transport.Receive(buf)
	if err != nil {
		return n, from, err
	}
	ack := int32(-1)
	switch typ, _, _, herr := wire.ParseHeader(buf[:n]); {
	case herr != nil:
	case typ == wire.TypeInput:
		var m wire.Input
		m.Size = 2
		if _, err := wire.ParseInput(buf[:n], &m, p.inputs, p.status); err == nil {
			ack = m.Ack
		}
	case typ == wire.TypeInputAck:
		if m, _, err := wire.ParseInputAck(buf[:n]); err == nil {
			ack = m.Ack
		}
	}
	if ack > p.acked {
		now := time.Now()
		for f := p.acked + 1; f <= ack; f++ {
			if at, ok := p.sentAt[f]; ok {
				p.rtts = append(p.rtts, now.Sub(at))
				delete(p.sentAt, f)
			}
		}
		p.acked = ack
	}
	return n, from, err
}

// player runs one peer's game loop at 60 frames a second until every
// player's peer has confirmed frames frames, recording the checksum of
// every confirmed frame.
type player struct {
	tr        *rtcTransport
	probe     *inputProbe
	p2p       *p2p.Session[world, uint16]
	index     int
	opponent  transport.Peer
	sums      map[rollnet.Frame]uint32
	checked   rollnet.Frame
	running   time.Time // when the session reported EventRunning
	peerStats rollnet.PeerStats
}

func TestEndToEnd600Frames(t *testing.T) {
	const frames = 600
	srv, err := signaling.NewServer(signaling.ServerConfig{})
	require.NoError(t, err)
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/room/e2e"

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	trs := make([]*rtcTransport, 2)
	for i := range trs {
		trs[i], err = dial(ctx, url, Config{LoopbackOnly: true})
		require.NoError(t, err)
		defer trs[i].Close()
	}
	for _, tr := range trs {
		_, err := tr.WaitPeers(ctx, 1)
		require.NoError(t, err)
	}
	channelOpen := time.Since(start)

	players := playGame(t, ctx, trs, frames)
	rtts := roundTrips(players)
	pct := func(q float64) time.Duration { return percentile(rtts, q) }
	running := max(players[0].running.Sub(start), players[1].running.Sub(start))
	t.Logf("connection: data channels open %v after the first dial, sessions running %v", channelOpen, running)
	t.Logf("input round trip over %d frames at 60 Hz: p50 %v, p99 %v, max %v (includes up to one 16.7 ms tick of the peer)",
		len(rtts), pct(0.5), pct(0.99), rtts[len(rtts)-1])
	info, err := trs[0].peerInfo(players[0].opponent)
	require.NoError(t, err)
	t.Logf("ICE round trip on loopback: %v (%s to %s)", info.RTT, info.LocalCandidate, info.RemoteCandidate)
	t.Logf("session smoothed RTT: %v and %v; transport stats: %+v",
		players[0].peerStats.RTT, players[1].peerStats.RTT, trs[0].Stats())
	if testing.Verbose() {
		hist := map[int]int{}
		for _, r := range rtts {
			hist[int(r/(time.Second/60))]++
		}
		t.Logf("input round trips by whole ticks: %v", hist)
	}
	// What happened, not how fast: the inputs' round trips were measured
	// all along the match (playGame checked the frames and checksums).
	// Their figures are logged above; a loaded 2-core machine stretches
	// them past any bound worth asserting, so the one here only tells a
	// match that stalled on every input (seconds) from one that played.
	require.GreaterOrEqual(t, len(rtts), frames/2, "input round trips measured over %d frames", frames)
	require.Less(t, pct(0.5), time.Second, "the median input round trip: inputs answered as the match went, not stalled")
}

// playGame runs a two-player P2P session over each of the two connected
// transports until both have confirmed frames frames, checks that every
// frame confirmed on both has the same checksum, and returns the players.
func playGame(t *testing.T, ctx context.Context, trs []*rtcTransport, frames rollnet.Frame) []*player {
	t.Helper()
	players := make([]*player, 2)
	for i, tr := range trs {
		opponent := tr.Peers(nil)[0]
		// The lower id plays player 0, on both sides.
		index := 0
		if tr.Local() > opponent {
			index = 1
		}
		remote := []transport.Peer{"", ""}
		remote[1-index] = opponent
		probe := newInputProbe(tr)
		p2p, err := p2p.New[world](p2p.Config[uint16]{
			Session: session.Config[uint16]{Players: 2, InputDelay: 2},
			Remote:  remote,
			Net:     rollnet.NetConfig{ChecksumInterval: 30},
		}, probe, simulate)
		require.NoError(t, err)
		t.Cleanup(func() { _ = p2p.Close() })
		players[i] = &player{tr: tr, probe: probe, p2p: p2p, index: index, opponent: opponent,
			sums: map[rollnet.Frame]uint32{}, checked: -1}
	}
	require.NotEqual(t, players[0].index, players[1].index)

	var mu sync.Mutex // guards done
	done := [2]bool{}
	allDone := func() bool { mu.Lock(); defer mu.Unlock(); return done[0] && done[1] }
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, pl := range players {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = pl.run(ctx, frames, func() { mu.Lock(); done[i] = true; mu.Unlock() }, allDone)
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))

	// Every frame confirmed on both sides has the same checksum.
	compared := 0
	for f, sum := range players[0].sums {
		if other, ok := players[1].sums[f]; ok {
			require.Equal(t, sum, other, "frame %d", f)
			compared++
		}
	}
	require.GreaterOrEqual(t, compared, int(frames))
	for _, pl := range players {
		for _, e := range pl.p2p.Events(nil) {
			require.NotEqual(t, rollnet.EventDesyncDetected, e.Kind, "%v", e)
		}
	}
	return players
}

// roundTrips merges the players' input round trips, sorted.
func roundTrips(players []*player) []time.Duration {
	var rtts []time.Duration
	for _, pl := range players {
		rtts = append(rtts, pl.probe.rtts...)
	}
	slices.Sort(rtts)
	return rtts
}

func percentile(sorted []time.Duration, q float64) time.Duration {
	return sorted[int(q*float64(len(sorted)-1))]
}

func (pl *player) run(ctx context.Context, frames rollnet.Frame, finished func(), allDone func() bool) error {
	rng := rand.New(rand.NewPCG(uint64(pl.index), 42))
	var in uint16
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	var events []rollnet.Event
	reported := false
	for !allDone() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("player %d at frame %d (confirmed %d): %w",
				pl.index, pl.p2p.Frame(), pl.p2p.ConfirmedFrame(), ctx.Err())
		case <-tick.C:
		}
		stepped := false
		if pl.p2p.WaitRecommendation() > 0 {
			if err := pl.p2p.Poll(); err != nil {
				return err
			}
		} else {
			if rng.IntN(8) == 0 {
				in = uint16(rng.Uint32())
			}
			if err := pl.p2p.AddLocalInput(pl.index, in); err != nil {
				return err
			}
			err := pl.p2p.AdvanceFrame()
			if err != nil && !errors.Is(err, p2p.ErrNotSynchronized) && !errors.Is(err, session.ErrPredictionLimit) {
				return err
			}
			stepped = err == nil
		}
		events = pl.p2p.Events(events[:0])
		for _, e := range events {
			switch e.Kind {
			case rollnet.EventRunning:
				pl.running = time.Now()
			case rollnet.EventDesyncDetected, rollnet.EventDisconnected, rollnet.EventSyncFailed:
				return fmt.Errorf("player %d: %v", pl.index, e)
			}
		}
		// A confirmed frame's checksum is answerable after a Step, once
		// simulated.
		for f := pl.checked + 1; stepped && f <= min(pl.p2p.ConfirmedFrame(), pl.p2p.Frame()-1); f++ {
			sum, err := pl.p2p.ChecksumAt(f)
			if err != nil {
				return fmt.Errorf("player %d: checksum of frame %d: %w", pl.index, f, err)
			}
			pl.sums[f] = sum
			pl.checked = f
		}
		if !reported && pl.checked >= frames {
			reported = true
			pl.peerStats, _ = pl.p2p.PeerStats(pl.opponent)
			finished()
		}
	}
	return nil
}

// The same game on pion's virtual network, on fake time: 30 ms each way
// and one packet in 20 dropped in each direction (an explicit filter, so
// the drops do not depend on scheduling). Every confirmed frame agrees.
func TestEndToEndVNetImpaired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var armed atomic.Bool
		var n atomic.Int64
		a, b := vnetPair(t, Config{}, 30*time.Millisecond, func(vnet.Chunk) bool {
			return !armed.Load() || n.Add(1)%20 != 0
		})
		armed.Store(true)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		players := playGame(t, ctx, []*rtcTransport{a, b}, 600)
		rtts := roundTrips(players)
		t.Logf("input round trip (fake time) over %d frames: p50 %v, p99 %v; %d packets dropped by the filter",
			len(rtts), percentile(rtts, 0.5), percentile(rtts, 0.99), n.Load()/20)
		for _, pl := range players {
			st := pl.p2p.Stats()
			t.Logf("player %d: %d rollbacks, %d frames re-simulated", pl.index, st.Rollbacks, st.ResimulatedFrames)
		}
	})
}
