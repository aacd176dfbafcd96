//go:build !js

package webrtc

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/p2p"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/stretchr/testify/require"
)

// rejoiner is one peer of TestRejoinNewID: a session, its player and the
// checksum of every frame it confirmed.
type rejoiner struct {
	p      *p2p.Session[world, uint16]
	player int
	in     uint16
	sums   map[rollnet.Frame]uint32
	events []rollnet.Event
}

// tick runs one game-loop tick and records the newly confirmed frames.
func (r *rejoiner) tick(t *testing.T, f int) {
	t.Helper()
	if f%16 == 0 {
		r.in = uint16(f*7 + r.player)
	}
	require.NoError(t, r.p.AddLocalInput(r.player, r.in))
	err := r.p.AdvanceFrame()
	if err != nil && !errors.Is(err, p2p.ErrNotSynchronized) && !errors.Is(err, session.ErrPredictionLimit) {
		t.Fatalf("player %d: %v", r.player, err)
	}
	r.events = r.p.Events(r.events)
	if err != nil {
		return
	}
	for f := min(r.p.ConfirmedFrame(), r.p.Frame()-1); f >= 0 && r.sums[f] == 0; f-- {
		sum, err := r.p.ChecksumAt(f)
		if err != nil {
			break // older than the states held
		}
		r.sums[f] = sum | 1 // 0 marks a frame not recorded
	}
}

func (r *rejoiner) saw(kind rollnet.EventKind) (rollnet.Event, bool) {
	for _, e := range r.events {
		if e.Kind == kind {
			return e, true
		}
	}
	return rollnet.Event{}, false
}

// TestRejoinNewID: a 2-player match over WebRTC on loopback where player
// 1's transport dies and a fresh session (its token, its settings) on a
// fresh transport, whose rendezvous id no one has seen, comes back: the
// surviving peer takes it back at the new id and both agree on every
// frame they confirm afterwards.
func TestRejoinNewID(t *testing.T) {
	if testing.Short() {
		t.Skip("real WebRTC for several seconds")
	}
	a, b, h := loopPair(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pcfg := func(remote ...transport.Peer) p2p.Config[uint16] {
		return p2p.Config[uint16]{
			Session:          session.Config[uint16]{Players: 2, InputDelay: 2},
			Remote:           remote,
			SpectatorArchive: 3600,
			Net:              rollnet.NetConfig{ChecksumInterval: 30},
		}
	}
	newPlayer := func(c p2p.Config[uint16], tr transport.Transport, player int) *rejoiner {
		p, err := p2p.New[world](c, tr, simulate)
		require.NoError(t, err)
		return &rejoiner{p: p, player: player, sums: map[rollnet.Frame]uint32{}}
	}
	host := newPlayer(pcfg("", "b"), a, 0)
	defer host.p.Close()
	old := newPlayer(pcfg("a", ""), b, 1)

	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	f := 0
	until := func(what string, players []*rejoiner, cond func() bool) {
		t.Helper()
		for !cond() {
			select {
			case <-ctx.Done():
				t.Fatalf("not %s: host at frame %d", what, host.p.Frame())
			case <-tick.C:
			}
			f++
			for _, pl := range players {
				pl.tick(t, f)
			}
		}
	}
	var tok rollnet.RejoinToken
	until("tokens out", []*rejoiner{host, old}, func() bool {
		var ok bool
		tok, ok = old.p.RejoinToken()
		_, ok0 := host.p.RejoinToken()
		return ok && ok0 && host.p.Frame() > 120
	})

	// Player 1's process dies: its transport closes, it leaves the room.
	require.NoError(t, b.Close())
	h.leave("b")
	died := time.Now()
	until("p1 frozen", []*rejoiner{host}, func() bool {
		_, ok := host.saw(rollnet.EventPlayerDisconnected)
		return ok
	})

	// A fresh process, a fresh transport under a new id.
	b2, err := newOn(Config{LoopbackOnly: true}, h.join("b2"))
	require.NoError(t, err)
	defer b2.Close()
	c := pcfg("a", "")
	c.Rejoin = tok
	back := newPlayer(c, b2, 1)
	defer back.p.Close()
	until("rejoined", []*rejoiner{host, back}, func() bool {
		_, ok0 := host.saw(rollnet.EventPlayerRejoined)
		_, ok1 := back.saw(rollnet.EventPlayerRejoined)
		return ok0 && ok1
	})
	e0, _ := host.saw(rollnet.EventPlayerRejoined)
	e1, _ := back.saw(rollnet.EventPlayerRejoined)
	require.Equal(t, e0.Frame, e1.Frame, "one R")
	require.Equal(t, transport.Peer("b2"), e0.Peer, "the host knows it by its new id")
	r := e0.Frame
	st := back.p.RejoinStats()
	t.Logf("died at frame %d, back at R %d %v later, caught up on %d frames in %v", host.p.Frame()-rollnet.Frame(time.Since(died)*60/time.Second),
		r, time.Since(died).Round(time.Millisecond), st.Replayed, st.CatchUp)
	until("120 frames after R", []*rejoiner{host, back}, func() bool {
		return min(host.p.ConfirmedFrame(), back.p.ConfirmedFrame()) > r+120
	})
	compared := 0
	for fr, sum := range back.sums {
		if other, ok := host.sums[fr]; ok {
			require.Equal(t, other, sum, "frame %d", fr)
			if fr >= r {
				compared++
			}
		}
	}
	require.GreaterOrEqual(t, compared, 100, "frames compared from R on")
	for _, pl := range []*rejoiner{host, back} {
		_, bad := pl.saw(rollnet.EventDesyncDetected)
		require.False(t, bad)
	}
	_, err = host.p.PeerStats("b")
	require.ErrorIs(t, err, p2p.ErrNotAPeer, "the old id forgotten")
}
