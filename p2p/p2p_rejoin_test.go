package p2p

import (
	"errors"
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/session"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// rejoinCluster is an archiveCluster of three players after 120 frames.
func rejoinCluster(t *testing.T, seed uint64, window time.Duration) *p2pCluster {
	t.Helper()
	c := archiveCluster(t, 3, seed, window, nil)
	c.frames(120, 10*time.Second)
	for _, n := range c.nodes {
		_, ok := n.p.RejoinToken()
		require.True(t, ok, "%s has no token", n.name)
	}
	tok0, _ := c.nodes[0].p.RejoinToken()
	tok1, _ := c.nodes[1].p.RejoinToken()
	require.Equal(t, tok0.Match, tok1.Match, "one match id")
	require.NotEqual(t, tok0.Secret, tok1.Secret, "a secret per player")
	return c
}

// archiveCluster is players, one per peer, over a 20 ms link with 2% loss,
// every peer keeping a minute of archive; edit, if set, changes each
// peer's config further.
func archiveCluster(t *testing.T, players int, seed uint64, window time.Duration, edit func(i int, cfg *Config[uint16])) *p2pCluster {
	return newCluster(t, clusterOpts{players: players, seed: seed, mash: 0.3,
		link: local.Link{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 32},
		net:  rollnet.NetConfig{RejoinWindow: window},
		mutate: func(i int, cfg *Config[uint16]) {
			cfg.SpectatorArchive = 3600
			if edit != nil {
				edit(i, cfg)
			}
		}})
}

// absent closes the endpoints of nodes and stops their loops: open slots.
func (c *p2pCluster) absent(nodes []*p2pNode) {
	for _, n := range nodes {
		require.NoError(c.t, n.ep.Close())
		n.paused = true
	}
}

// drop closes n's endpoint and stops its loop for d: its link is gone.
// The frames it confirmed last may hold its own inputs past the frame the
// others freeze it at: they are forgotten, not compared.
func (c *p2pCluster) drop(n *p2pNode, d time.Duration) {
	require.NoError(c.t, n.ep.Close())
	n.paused = true
	for f := n.checked - 200; f <= n.checked; f++ {
		c.sums.Forget(f)
	}
	c.run(d)
}

// reopen opens a new endpoint under n's name.
func (c *p2pCluster) reopen(n *p2pNode) local.Endpoint {
	ep, err := c.net.Endpoint(n.name)
	require.NoError(c.t, err)
	n.ep = ep
	return ep
}

// comeBack starts a new session for n with cfg (a new process) on a new
// endpoint under n's name.
func (c *p2pCluster) comeBack(n *p2pNode, cfg Config[uint16]) *Session[p2pWorld, uint16] {
	q, err := New[p2pWorld](cfg, c.reopen(n), simP2P)
	require.NoError(c.t, err)
	n.p, n.paused, n.events = q, false, nil
	return q
}

// restart kills n's process for gap, then starts a new one with its
// token and settings on a new endpoint under its name, as a player whose
// process crashed would.
func (c *p2pCluster) restart(n *p2pNode, gap time.Duration) *Session[p2pWorld, uint16] {
	c.t.Helper()
	tok, ok := n.p.RejoinToken()
	require.True(c.t, ok, "no rejoin token yet")
	cfg := n.p.rj.restart.cfg
	c.drop(n, gap)
	cfg.Rejoin = tok
	return c.comeBack(n, cfg)
}

// rejoined runs until every player node saw n's player rejoin, then checks
// they agree on R, and returns it. n's checksums are compared again from
// the states its replay still holds.
func (c *p2pCluster) rejoined(n *p2pNode, player int) rollnet.Frame {
	c.t.Helper()
	n.checked = 1 << 30 // nothing to compare while it replays
	c.until(20*time.Second, "rejoined everywhere", func() bool {
		for _, m := range c.nodes {
			if m.paused {
				continue
			}
			if ev := m.kinds(rollnet.EventPlayerRejoined); len(ev) == 0 || ev[len(ev)-1].Player != player {
				return false
			}
		}
		return true
	})
	n.checked = n.p.Frame() - 8
	r := rollnet.NoFrame
	for _, m := range c.nodes {
		if m.paused {
			continue
		}
		for _, k := range []rollnet.EventKind{rollnet.EventPlayerRejoining, rollnet.EventPlayerRejoined} {
			ev := m.kinds(k)
			require.NotEmpty(c.t, ev, "%s: %v", m.name, k)
			e := ev[len(ev)-1]
			require.Equal(c.t, player, e.Player)
			if r == rollnet.NoFrame {
				r = e.Frame
			}
			require.Equal(c.t, r, e.Frame, "%s: %v at another frame", m.name, k)
		}
	}
	return r
}

// noDesync checks no node saw a desync.
func (c *p2pCluster) noDesync() {
	for _, m := range c.nodes {
		_, bad := m.first(rollnet.EventDesyncDetected)
		require.False(c.t, bad, "%s: desync", m.name)
	}
}

// TestP2PRejoinSameProcess: a 3-player match where player 2's link drops
// for 5 s and comes back on a new endpoint in the same process
// (Session.Rejoin): every peer agrees on R, and on every confirmed frame
// afterwards, the replayed ones included.
func TestP2PRejoinSameProcess(t *testing.T) {
	c := rejoinCluster(t, 31, 0)
	n := c.nodes[2]
	c.drop(n, 5*time.Second)
	require.NoError(t, n.p.Rejoin(c.reopen(n)))
	n.paused = false
	before := c.agreed()
	r := c.rejoined(n, 2)
	require.Greater(t, r, rollnet.Frame(300), "R is after the drop")
	frozen, ok := c.nodes[0].first(rollnet.EventPlayerDisconnected)
	require.True(t, ok)
	require.Less(t, frozen.Frame, r)
	c.frames(int(r)+300, 20*time.Second)
	c.noDesync()
	require.Greater(t, c.agreed()-before, 2*250, "the other nodes compared their frames with the first after R")
	st := n.p.RejoinStats()
	t.Logf("froze at %d, R %d, replayed %d frames in %v; %s; %d frames compared after R", frozen.Frame, r, st.Replayed, st.CatchUp, c.describe(), c.agreed()-before)
	require.Equal(t, r, st.Frame)
	require.GreaterOrEqual(t, st.Replayed, int(r)-2-2)
	for _, m := range c.nodes {
		require.Greater(t, m.p.ConfirmedFrame(), r+250, "%s plays on", m.name)
	}
	// Its input counts again: what p2 plays reaches the others.
	in0, _ := c.nodes[0].p.StateAt(c.nodes[0].p.ConfirmedFrame())
	in2, _ := n.p.StateAt(c.nodes[0].p.ConfirmedFrame())
	if in2 != nil {
		require.Equal(t, *in0, *in2)
	}
}

// TestP2PRejoinFreshProcess: the same, with the rejoining peer a new
// session that has nothing but the token and the settings.
func TestP2PRejoinFreshProcess(t *testing.T) {
	c := rejoinCluster(t, 32, 0)
	n := c.nodes[2]
	q := c.restart(n, 5*time.Second)
	r := c.rejoined(n, 2)
	c.frames(int(r)+200, 20*time.Second)
	c.noDesync()
	st := q.RejoinStats()
	require.Equal(t, r, st.Frame)
	require.Positive(t, st.CatchUp)
}

// tickManual runs the cluster while n (paused in it) is ticked here, until
// its AdvanceFrame returns an error other than ErrNotSynchronized.
func (c *p2pCluster) tickManual(n *p2pNode, limit time.Duration) error {
	var last error
	c.until(limit, "an error", func() bool {
		for _, pl := range n.locals {
			require.NoError(c.t, n.p.AddLocalInput(pl, 1))
		}
		last = n.p.AdvanceFrame()
		return last != nil && !errors.Is(last, ErrNotSynchronized)
	})
	return last
}

// TestP2PRejoinAfterWindow: a rejoin after NetConfig.RejoinWindow is
// refused with the reason, and the others play on with the player frozen.
func TestP2PRejoinAfterWindow(t *testing.T) {
	c := rejoinCluster(t, 33, 2*time.Second)
	n := c.nodes[2]
	c.drop(n, 8*time.Second) // 5 s to the timeout, 3 past it
	require.NoError(t, n.p.Rejoin(c.reopen(n)))
	err := c.tickManual(n, 5*time.Second)
	var re *RejoinError
	require.ErrorAs(t, err, &re)
	require.ErrorIs(t, err, ErrRejoinRefused)
	require.Equal(t, reasonRejoinWindow, re.Reason)
	for _, m := range c.nodes[:2] {
		_, ok := m.first(rollnet.EventPlayerRejoining)
		require.False(t, ok)
	}
	c.noDesync()
}

// TestP2PRejoinStranger: someone with the player's address and settings
// but not its secret is refused and changes nothing: the others play on
// with the player frozen, and the player itself can still come back.
func TestP2PRejoinStranger(t *testing.T) {
	c := rejoinCluster(t, 34, 0)
	n := c.nodes[2]
	tok, _ := n.p.RejoinToken()
	cfg := n.p.rj.restart.cfg
	c.drop(n, 6*time.Second)
	malformed := func() uint64 {
		st, err := c.nodes[0].p.PeerStats("p2")
		require.NoError(t, err)
		return st.Malformed
	}
	was := malformed()
	for _, bad := range []rollnet.RejoinToken{{Match: tok.Match, Secret: [16]byte{1}}, {Match: tok.Match + 1, Secret: tok.Secret}} {
		cfg.Rejoin = bad
		c.comeBack(n, cfg)
		c.refused(n, reasonRejoinIdentity)
		require.NoError(t, n.ep.Close())
	}
	require.Greater(t, malformed(), was, "counted")
	for _, m := range c.nodes[:2] {
		_, ok := m.first(rollnet.EventPlayerRejoining)
		require.False(t, ok, "%s: a stranger made it rejoin", m.name)
	}
	c.frames(int(c.nodes[0].p.Frame())+120, 10*time.Second)
	// The player itself still comes back.
	cfg.Rejoin = tok
	c.comeBack(n, cfg)
	r := c.rejoined(n, 2)
	c.frames(int(r)+120, 20*time.Second)
	c.noDesync()
}

// TestP2PRejoinNoToken: Rejoin before the identities were exchanged.
func TestP2PRejoinNoToken(t *testing.T) {
	c := newCluster(t, clusterOpts{players: 2, seed: 35})
	ep, err := c.net.Endpoint("x")
	require.NoError(t, err)
	require.ErrorIs(t, c.nodes[0].p.Rejoin(ep), ErrNoRejoinToken)
}

// rejoinSeeds adds a Rejoin message of every kind to a fuzz corpus.
func rejoinSeeds(f *testing.F) {
	for k := wire.RejoinToken; k <= wire.RejoinAtAck; k++ {
		m := wire.Rejoin{Seq: 10, Kind: k, Players: 2, Frame: 40, Match: 7, Secret: [wire.SecretLen]byte{7}, Reason: 1}
		f.Add(m.Append(nil))
	}
}

// FuzzP2PRejoinPacket feeds arbitrary packets from its sponsor to a
// session coming back into a match, before and after an acceptance:
// never a panic, never a frame replayed that did not arrive.
func FuzzP2PRejoinPacket(f *testing.F) {
	fuzzSeeds(f)
	all := wire.Input{Seq: 3, Ack: -1, Start: 1, Frames: 3, Players: 7, Size: 2, Inputs: make([]byte, 18)}
	f.Add(all.Append(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := &scriptTransport{from: "p1", local: "p0"}
		clock := p2pEpoch
		p := fuzzP2P(t, tr, &clock, func(cfg *Config[uint16]) {
			cfg.Rejoin = rollnet.RejoinToken{Match: 7, Secret: [wire.SecretLen]byte{7}}
		})
		accept := wire.Rejoin{Seq: 1, Kind: wire.RejoinAccept, Players: 1, Frame: 50}
		for round := range 4 {
			tr.pkts = [][]byte{b, b[:len(b)/2]}
			if round == 1 {
				tr.pkts = append(tr.pkts, accept.Append(nil))
			}
			if round == 2 {
				for _, l := range p.ep.Links() {
					l.MarkSynchronized()
				}
			}
			_ = p.AddLocalInput(0, uint16(round))
			_ = p.AdvanceFrame()
			_ = p.Poll()
			clock = clock.Add(time.Second / 60)
		}
		if p.rj.phase == phaseCatching && p.core.Frame() > p.rj.catch.caught+1 {
			t.Fatalf("replayed to %d with frames up to %d", p.core.Frame(), p.rj.catch.caught)
		}
	})
}

// TestP2PRejoinFlood: a flood of requests with a wrong secret from the
// dropped player's address gets a bounded number of refusals (four per
// SyncRetry per peer), each counted, and changes nothing.
func TestP2PRejoinFlood(t *testing.T) {
	c := rejoinCluster(t, 36, 0)
	n := c.nodes[2]
	tok, _ := n.p.RejoinToken()
	c.drop(n, 6*time.Second)
	ep := c.reopen(n)
	bad := wire.Rejoin{Kind: wire.RejoinRequest, Players: 1 << 2, Match: tok.Match, Secret: [wire.SecretLen]byte{9}}
	refused := 0
	buf := make([]byte, transport.MaxDatagram)
	start := c.clock.Now()
	for range 60 { // a second
		for k := range 50 {
			bad.Seq = uint16(k)
			require.NoError(t, ep.Send("p0", bad.Append(nil)))
			require.NoError(t, ep.Send("p1", bad.Append(nil)))
		}
		c.run(time.Second / 60)
		refused += refusals(t, ep, buf)
	}
	d := c.clock.Now().Sub(start)
	bound := 2 * 4 * int(d/(200*time.Millisecond)+1)
	require.Positive(t, refused)
	require.LessOrEqual(t, refused, bound, "refusals in %v", d)
	for _, m := range c.nodes[:2] {
		_, ok := m.first(rollnet.EventPlayerRejoining)
		require.False(t, ok)
		st, err := m.p.PeerStats("p2")
		require.NoError(t, err)
		require.GreaterOrEqual(t, st.Malformed, uint64(refused/2))
	}
	c.noDesync()
}

// TestP2PRejoinLongMatch: a fresh process comes back into a 2-player
// match after ten minutes (36,000 frames; 6,000 under -race) over a 20 ms
// link: how long the handshake, the replay and the whole rejoin take (fake
// time), and the other player never stalls.
func TestP2PRejoinLongMatch(t *testing.T) {
	frames := 36000
	if race.Enabled {
		frames = 6000
	}
	c := newCluster(t, clusterOpts{players: 2, seed: 37, mash: 0.1,
		link: local.Link{Latency: 20 * time.Millisecond},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 32},
		mutate: func(i int, cfg *Config[uint16]) {
			cfg.SpectatorArchive = 40000
		}})
	c.noSums = true // 36,000 frames of sums: the replay is checked below
	c.frames(frames, time.Duration(frames+600)*time.Second/60)
	n := c.nodes[1]
	q := c.restart(n, 5*time.Second)
	start := c.clock.Now()
	var synced, replayed time.Time
	host := c.nodes[0]
	hostFrame := host.p.Frame()
	c.until(20*time.Second, "rejoined", func() bool {
		if synced.IsZero() && q.Running() {
			synced = c.clock.Now()
		}
		if replayed.IsZero() && q.Frame() >= hostFrame {
			replayed = c.clock.Now()
		}
		_, ok := n.first(rollnet.EventPlayerRejoined)
		return ok
	})
	back := c.clock.Now()
	st := q.RejoinStats()
	// The host never stalled: it simulated a frame every tick but its waits.
	ticks := int(back.Sub(start) / (time.Second / 60))
	ran := int(host.p.Frame() - hostFrame)
	t.Logf("%d frames: asked and synchronized in %v, replayed the %d frames held at the request in %v more, back at R=%d after %v (replayed %d); host ran %d frames in %d ticks (waited %d)",
		frames, synced.Sub(start), hostFrame, replayed.Sub(synced), st.Frame, back.Sub(start), st.Replayed, ran, ticks, host.waited)
	require.GreaterOrEqual(t, ran+host.waited+2, ticks, "the host stalled")
	require.Less(t, replayed.Sub(synced), 2*time.Second, "replay of %d frames", hostFrame)
	// The replay agrees with the host on the frames both hold.
	c.frames(int(st.Frame)+120, 10*time.Second)
	f := min(q.ConfirmedFrame(), host.p.ConfirmedFrame()) - 2
	a, err := q.ChecksumAt(f)
	require.NoError(t, err)
	b, err := host.p.ChecksumAt(f)
	require.NoError(t, err)
	require.Equal(t, b, a, "frame %d", f)
}

// TestP2PLateJoin: a 4-slot match started by players 0 and 1, slots 2 and
// 3 open. A late joiner takes slot 2: every peer agrees on the frame it
// plays from and on every confirmed frame (its input zero before it, slot
// 3's zero throughout); a stranger cannot take the slot from it.
func TestP2PLateJoin(t *testing.T) {
	c := archiveCluster(t, 4, 38, 0, func(i int, cfg *Config[uint16]) { cfg.Open = 0b1100 })
	c.absent(c.nodes[2:])
	c.frames(300, 10*time.Second)
	for _, n := range c.nodes[:2] {
		_, ok := n.p.RejoinToken()
		require.True(t, ok, "%s: identities complete without the open slots", n.name)
		_, gone := n.first(rollnet.EventDisconnected)
		require.False(t, gone)
	}
	n := c.nodes[2]
	cfg := n.p.rj.restart.cfg
	cfg.Join = true
	q := c.comeBack(n, cfg)
	r := c.rejoined(n, 2)
	c.frames(int(r)+300, 20*time.Second)
	c.noDesync()
	// Its token works like anyone's: it can come back, a stranger cannot
	// take its slot.
	tok, ok := q.RejoinToken()
	require.True(t, ok)
	tok0, _ := c.nodes[0].p.RejoinToken()
	require.Equal(t, tok0.Match, tok.Match)
	c.drop(n, 6*time.Second)
	cfg.Join = false
	cfg.Rejoin = rollnet.RejoinToken{Match: tok.Match}
	c.comeBack(n, cfg)
	n.paused = true
	var re *RejoinError
	require.ErrorAs(t, c.tickManual(n, 5*time.Second), &re)
	require.Equal(t, reasonRejoinIdentity, re.Reason)
}

func TestP2PRejoinConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(*Config[uint16])
	}{
		{"every slot open", func(c *Config[uint16]) { c.Open = 0b111 }},
		{"open slot of no player", func(c *Config[uint16]) { c.Open = 0b1000 }},
		{"join and rejoin", func(c *Config[uint16]) { c.Open, c.Join, c.Rejoin = 0b1, true, rollnet.RejoinToken{Match: 1} }},
		{"join a slot not open", func(c *Config[uint16]) { c.Open, c.Join = 0b10, true }},
		{"open part of a peer", func(c *Config[uint16]) {
			c.Remote = []transport.Peer{"", "p1", "p1"}
			c.Open = 0b10
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config[uint16]{Session: session.Config[uint16]{Players: 3}, Remote: []transport.Peer{"", "p1", "p2"}}
			tc.cfg(&cfg)
			_, err := New[p2pWorld](cfg, &scriptTransport{local: "p0"}, simP2P)
			require.ErrorIs(t, err, rollnet.ErrConfig)
		})
	}
}

// catchingCluster is rejoinCluster with player 2 dropped for 5 s and
// back in the same session, synchronized and replaying.
func catchingCluster(t *testing.T, seed uint64) (*p2pCluster, *p2pNode) {
	c := rejoinCluster(t, seed, 0)
	n := c.nodes[2]
	c.drop(n, 5*time.Second)
	require.NoError(t, n.p.Rejoin(c.reopen(n)))
	n.paused = false
	n.checked = 1 << 30
	c.until(3*time.Second, "catching up", func() bool { return n.p.rj.phase == phaseCatching && n.p.Running() })
	return c, n
}

// TestP2PRejoinAllocs: while a player comes back (its replay, the
// sponsor's feed, the others' At and the frozen input up to R) and after,
// a tick of every peer allocates nothing.
func TestP2PRejoinAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	c, n := catchingCluster(t, 39)
	c.noSums = true
	for _, m := range c.nodes {
		m.events = make([]rollnet.Event, 0, 1<<14)
	}
	allocs.RequireZero(t, 10, func() { c.run(time.Second / 60) }, "catching up")
	require.True(t, n.p.rejoining(), "measured while it caught up")
	c.until(5*time.Second, "back", func() bool { return n.p.rj.phase == phaseLive })
	// The others shut their doors to strangers a few frames later, which
	// tells their transports the new set of peers (it allocates, once):
	// the mean over 120 ticks hid it.
	c.until(5*time.Second, "every door shut", func() bool {
		for _, m := range c.nodes {
			if m.p.gate.open {
				return false
			}
		}
		return true
	})
	allocs.RequireZero(t, 120, func() { c.run(time.Second / 60) }, "back")
}

// TestP2PRejoinDiesAgain: a player taken back that dies again before it
// plays (its new process crashes while it replays) is frozen again, at
// the same frame on every peer, once its new link times out: the others
// stall at most that long and play on, agreeing.
func TestP2PRejoinDiesAgain(t *testing.T) {
	c, n := catchingCluster(t, 40)
	c.drop(n, 0)
	for _, m := range c.nodes[:2] {
		m.events = m.events[:0]
	}
	died := c.clock.Now()
	c.until(20*time.Second, "frozen again", func() bool {
		for _, m := range c.nodes[:2] {
			if _, ok := m.first(rollnet.EventPlayerDisconnected); !ok {
				return false
			}
		}
		return true
	})
	e0, _ := c.nodes[0].first(rollnet.EventPlayerDisconnected)
	e1, _ := c.nodes[1].first(rollnet.EventPlayerDisconnected)
	require.Equal(t, e0.Frame, e1.Frame)
	require.Equal(t, c.nodes[0].p.rj.back[2]-1, e0.Frame, "frozen where the frozen input ran to")
	t.Logf("frozen again at %d, %v after it died", e0.Frame, c.clock.Now().Sub(died))
	f := c.nodes[0].p.Frame()
	c.frames(int(f)+300, 10*time.Second)
	c.noDesync()
}

// BenchmarkP2PRejoinReplay is the rejoining peer's replay: an op is one
// AdvanceFrame replaying 4,096 frames of 2 players with simP2P; beside it,
// the physical baseline, simP2P alone over the same inputs. ns/frame
// divides by the frames.
func BenchmarkP2PRejoinReplay(b *testing.B) {
	const frames = catchSteps // what one AdvanceFrame replays
	b.Run("replay", func(b *testing.B) {
		p, err := New[p2pWorld](Config[uint16]{
			Session: session.Config[uint16]{Players: 2, InputDelay: 2, Capacity: 32},
			Remote:  []transport.Peer{"", "p1"},
			Rejoin:  rollnet.RejoinToken{Match: 1},
		}, &scriptTransport{local: "p0"}, simP2P)
		if err != nil {
			b.Fatal(err)
		}
		for i := range p.rj.catch.ring {
			p.rj.catch.ring[i] = byte(i * 7)
		}
		for f := range p.rj.catch.tags {
			p.rj.catch.tags[f] = rollnet.Frame(f)
		}
		p.accepted(0, frames+100, 0)
		p.running = true
		b.SetBytes(frames * 2 * 2)
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			p.core.Reset()
			p.rj.catch.caught = frames - 1
			if err := p.catchUp(); !errors.Is(err, ErrRejoining) || p.core.Frame() != frames {
				b.Fatalf("%v at frame %d", err, p.core.Frame())
			}
		}
		b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*frames), "ns/frame")
	})
	b.Run("baseline", func(b *testing.B) {
		in := make([]uint16, 2*frames)
		for i := range in {
			in[i] = uint16(i * 7)
		}
		b.SetBytes(frames * 2 * 2)
		b.ReportAllocs()
		start := time.Now()
		for b.Loop() {
			var w p2pWorld
			for f := range frames {
				simP2P(&w, in[2*f:2*f+2], rollnet.Frame(f))
			}
		}
		b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*frames), "ns/frame")
	})
}

// BenchmarkP2PRejoinFeed is what feeding a rejoining peer costs its
// sponsor per tick: an op is one tick's burst (feedBurst datagrams of
// wire.MaxFrames frames of 2 players, read from the archive, encoded and
// sent). A 60 fps tick lasts 16.7 ms.
func BenchmarkP2PRejoinFeed(b *testing.B) {
	c := newCluster(b, clusterOpts{players: 2, seed: 41, mash: 0.2,
		link: local.Link{Latency: 20 * time.Millisecond},
		cfg:  session.Config[uint16]{InputDelay: 2, Capacity: 32},
		mutate: func(i int, cfg *Config[uint16]) {
			cfg.SpectatorArchive = 4096
		}})
	c.noSums = true
	c.frames(3000, time.Minute)
	p := c.nodes[0].p
	l := p.ep.Links()[0]
	r := &p.rj
	r.peers[0].feeding, r.peers[0].backR = true, p.core.ConfirmedFrame()+1
	b.ReportAllocs()
	for b.Loop() {
		pr := &r.peers[0]
		pr.feed.start(1, p.ep.Time())
		p.feedCatchUp(l)
		if pr.feed.to != 1+feedBurst*wire.MaxFrames {
			b.Fatalf("sent to %d", pr.feed.to)
		}
	}
}

// TestP2PRejoinBesideGone: in a 4-player match whose player 3 left for
// good, player 2 drops and comes back: the acceptance tells it player 3
// is gone, so it does not wait for it, repeats its frozen input like the
// others, and every peer agrees.
func TestP2PRejoinBesideGone(t *testing.T) {
	c := archiveCluster(t, 4, 42, 0, nil)
	c.frames(120, 10*time.Second)
	c.drop(c.nodes[3], 0)
	c.until(10*time.Second, "p3 frozen", func() bool {
		for _, m := range c.nodes[:3] {
			if _, ok := m.first(rollnet.EventPlayerDisconnected); !ok {
				return false
			}
		}
		return true
	})
	n := c.nodes[2]
	c.backHere(n)
	r := c.rejoined(n, 2)
	c.frames(int(r)+300, 20*time.Second)
	c.noDesync()
	require.True(t, n.p.disc[3], "p3 gone on the rejoined peer too")
}

// TestP2PLateJoinTwo: two late joiners one after the other into a match
// started with 2 of 4 slots: the second, whose config still lists the
// first's slot as open, plays beside it.
func TestP2PLateJoinTwo(t *testing.T) {
	c := archiveCluster(t, 4, 43, 0, func(i int, cfg *Config[uint16]) {
		cfg.Open = 0b1100
		cfg.Join = i >= 2
	})
	c.absent(c.nodes[2:])
	c.frames(200, 10*time.Second)
	for _, pl := range []int{2, 3} {
		n := c.nodes[pl]
		c.comeBack(n, n.p.rj.restart.cfg)
		r := c.rejoined(n, pl)
		c.frames(int(r)+200, 20*time.Second)
	}
	c.noDesync()
	for _, n := range c.nodes {
		require.False(t, n.p.disc[2] || n.p.disc[3], "%s: every slot taken", n.name)
	}
}
