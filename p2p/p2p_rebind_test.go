package p2p

import (
	"errors"
	"fmt"
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

// comeBackAs starts a new session for n with cfg (a new process) on a new
// endpoint called name: an address no other peer knows.
func (c *p2pCluster) comeBackAs(n *p2pNode, cfg Config[uint16], name string, wrap func(local.Endpoint) transport.Transport) *Session[p2pWorld, uint16] {
	ep, err := c.net.Endpoint(name)
	require.NoError(c.t, err)
	var tr transport.Transport = ep
	if wrap != nil {
		tr = wrap(ep)
	}
	q, err := New[p2pWorld](cfg, tr, simP2P)
	require.NoError(c.t, err)
	n.name, n.ep, n.p, n.paused, n.events = name, ep, q, false, nil
	return q
}

// elsewhere is rejoinCluster (seed) with player 2's process dead for 5 s
// and a new one, with its token and settings, started at the address
// name (its transport wrapped by wrap, if set).
func elsewhere(t *testing.T, seed uint64, name string, wrap func(local.Endpoint) transport.Transport) (*p2pCluster, *p2pNode, rollnet.RejoinToken) {
	c := rejoinCluster(t, seed, 0)
	n := c.nodes[2]
	tok, _ := n.p.RejoinToken()
	cfg := n.p.rj.restart.cfg
	c.drop(n, 5*time.Second)
	cfg.Rejoin = tok
	c.comeBackAs(n, cfg, name, wrap)
	return c, n, tok
}

// backHere drops n for 5 s and brings it back in the same session
// (Session.Rejoin) on a new endpoint under its name.
func (c *p2pCluster) backHere(n *p2pNode) {
	c.drop(n, 5*time.Second)
	require.NoError(c.t, n.p.Rejoin(c.reopen(n)))
	n.paused = false
}

// openCluster is archiveCluster of players with the slots of open open,
// their peers absent, after frames frames, and the config of node 2 as
// a joiner.
func openCluster(t *testing.T, players int, seed uint64, open uint64, frames int) (*p2pCluster, *p2pNode, Config[uint16]) {
	c := archiveCluster(t, players, seed, 0, func(i int, cfg *Config[uint16]) { cfg.Open = open })
	for i, n := range c.nodes {
		if open&(1<<i) != 0 {
			c.absent([]*p2pNode{n})
		}
	}
	c.frames(frames, 10*time.Second)
	n := c.nodes[2]
	cfg := n.p.rj.restart.cfg
	cfg.Join = true
	return c, n, cfg
}

// refused ticks n alone (paused in the cluster) until its AdvanceFrame
// fails, and checks a peer refused it for reason.
func (c *p2pCluster) refused(n *p2pNode, reason string) {
	c.t.Helper()
	n.paused = true
	var re *RejoinError
	require.ErrorAs(c.t, c.tickManual(n, 5*time.Second), &re)
	require.Equal(c.t, reason, re.Reason)
}

// refusals counts the rejoin refusals waiting at ep, each checked to be
// one for the identity.
func refusals(t *testing.T, ep local.Endpoint, buf []byte) int {
	k := 0
	for {
		nb, _, err := ep.Receive(buf)
		if err != nil {
			return k
		}
		m, _, err := wire.ParseRejoin(buf[:nb])
		require.NoError(t, err)
		require.Equal(t, wire.RejoinRefuse, m.Kind)
		require.Equal(t, uint8(refuseIdentity), m.Reason)
		k++
	}
}

// movedTo checks that every other player node knows n's player by its new
// address only, and that its rejoin events named it.
func (c *p2pCluster) movedTo(n *p2pNode, player int, old string) {
	c.t.Helper()
	for _, m := range c.nodes {
		if m == n || m.paused {
			continue
		}
		_, err := m.p.PeerStats(transport.Peer(n.name))
		require.NoError(c.t, err, "%s: the new address", m.name)
		_, err = m.p.PeerStats(transport.Peer(old))
		require.ErrorIs(c.t, err, ErrNotAPeer, "%s: the old address forgotten", m.name)
		ev := m.kinds(rollnet.EventPlayerRejoined)
		require.NotEmpty(c.t, ev)
		require.Equal(c.t, transport.Peer(n.name), ev[len(ev)-1].Peer, "%s: EventPlayerRejoined names the new address", m.name)
		require.Equal(c.t, player, ev[len(ev)-1].Player)
	}
}

// dropRequests is a transport that loses every rejoin request to one
// peer while drop says so.
type dropRequests struct {
	local.Endpoint
	to      transport.Peer
	drop    func() bool
	dropped int
}

func (d *dropRequests) Send(to transport.Peer, b []byte) error {
	if to == d.to && d.drop() {
		if m, _, err := wire.ParseRejoin(b); err == nil && m.Kind == wire.RejoinRequest {
			d.dropped++
			return nil
		}
	}
	return d.Endpoint.Send(to, b)
}

// TestP2PRebindFreshProcess: a 3-player match over an impaired link
// where player 2's process dies and a fresh one (its token, its settings)
// comes back from an address no peer knows: every peer agrees on R and on
// every confirmed frame after it, knows the player by its new address
// only, and ignores the old one.
func TestP2PRebindFreshProcess(t *testing.T) {
	c, n, tok := elsewhere(t, 51, "p2-new", nil)
	q := n.p
	before := c.agreed()
	// The old address speaks again (a stale process, a replay): nothing
	// it sends counts, be it a disconnect notice, inputs or a request
	// without the secret, while the peers let strangers in (the player
	// catches up) and after.
	old, err := c.net.Endpoint("p2")
	require.NoError(t, err)
	oldSpeaks := func() {
		for k := range 30 {
			for _, b := range [][]byte{
				(&wire.Disconnect{Seq: uint16(k)}).Append(nil),
				(&wire.Input{Seq: uint16(k), Ack: 0, Start: int32(c.nodes[0].p.Frame()), Frames: 1, Players: 1 << 2, Size: 2,
					Inputs: []byte{1, 2}, Status: make([]wire.PeerStatus, 3)}).Append(nil),
				(&wire.Rejoin{Seq: uint16(k), Kind: wire.RejoinRequest, Players: 1 << 2, Match: tok.Match}).Append(nil),
			} {
				require.NoError(t, old.Send("p0", b))
				require.NoError(t, old.Send("p1", b))
			}
			c.run(time.Second / 60)
		}
	}
	c.until(5*time.Second, "p0 knows the new address", func() bool {
		_, err := c.nodes[0].p.PeerStats("p2-new")
		return err == nil
	})
	unknown := c.nodes[0].p.UnknownPackets()
	oldSpeaks()
	require.Greater(t, c.nodes[0].p.UnknownPackets()-unknown, uint64(60), "heard by the session while it lets strangers in, and dropped")
	r := c.rejoined(n, 2)
	c.frames(int(r)+300, 20*time.Second)
	c.noDesync()
	c.movedTo(n, 2, "p2")
	require.Greater(t, c.agreed()-before, 2*250, "frames compared after R")
	st := q.RejoinStats()
	require.Equal(t, r, st.Frame)
	t.Logf("R %d, replayed %d frames in %v; %s", r, st.Replayed, st.CatchUp, c.describe())

	unknown = c.nodes[0].p.UnknownPackets()
	s0 := c.net.LinkStats("p2", "p0")
	oldSpeaks()
	c.frames(int(c.nodes[0].p.Frame())+120, 10*time.Second)
	c.noDesync()
	for _, m := range c.nodes[:2] {
		_, gone := m.first(rollnet.EventDisconnected)
		require.True(t, gone, "p2's old link went")
		require.Len(t, m.kinds(rollnet.EventDisconnected), 1, "%s: the new one stays", m.name)
		require.Len(t, m.kinds(rollnet.EventPlayerRejoining), 1, "%s", m.name)
	}
	s1 := c.net.LinkStats("p2", "p0")
	t.Logf("the old address's 90 datagrams to p0: %d dropped by the transport, %d delivered and counted unknown by the session, %d lost",
		s1.DroppedUnexpected-s0.DroppedUnexpected, c.nodes[0].p.UnknownPackets()-unknown, s1.Lost-s0.Lost)
	require.Equal(t, uint64(90), s1.Sent-s0.Sent)
	require.Greater(t, s1.DroppedUnexpected-s0.DroppedUnexpected, uint64(80), "the gate shut again once the player was back")
	require.Equal(t, s1.Delivered-s0.Delivered, c.nodes[0].p.UnknownPackets()-unknown, "every one delivered counted unknown")
}

// TestP2PRebindLostRequest: the same where every request the new process
// sends the non-sponsor before its acceptance is lost: it learns the new
// address from the requests that follow, while the player catches up.
func TestP2PRebindLostRequest(t *testing.T) {
	var tr *dropRequests
	var n *p2pNode
	c, n, _ := elsewhere(t, 52, "p2-new", func(ep local.Endpoint) transport.Transport {
		// p0 sponsors (the lowest player still connected); p1 loses every
		// request sent while the new session asks.
		tr = &dropRequests{Endpoint: ep, to: "p1", drop: func() bool { return n.p.rj.phase == phaseAsking }}
		return tr
	})
	r := c.rejoined(n, 2)
	require.Positive(t, tr.dropped)
	c.frames(int(r)+300, 20*time.Second)
	c.noDesync()
	c.movedTo(n, 2, "p2")
	t.Logf("R %d; %d requests to p1 lost", r, tr.dropped)
}

// TestP2PRebindStranger: requests with a wrong secret (or match id) from
// new addresses, a flood of them from ten addresses at once, are refused,
// counted as unknown, get at most four refusals per SyncRetry from each
// peer for all of them together, give no stranger a link and change
// nothing: the player itself then still comes back from another new
// address.
func TestP2PRebindStranger(t *testing.T) {
	c := rejoinCluster(t, 53, 0)
	n := c.nodes[2]
	tok, _ := n.p.RejoinToken()
	cfg := n.p.rj.restart.cfg

	// Before anyone left, no slot can be taken: a stranger's datagrams
	// stop at the transport.
	var strangers []local.Endpoint
	for k := range 10 {
		ep, err := c.net.Endpoint(fmt.Sprintf("mallory%d", k))
		require.NoError(t, err)
		strangers = append(strangers, ep)
	}
	bad := wire.Rejoin{Kind: wire.RejoinRequest, Players: 1 << 2, Match: tok.Match, Secret: [wire.SecretLen]byte{9}}
	require.NoError(t, strangers[0].Send("p0", bad.Append(nil)))
	c.run(time.Second / 10)
	require.Equal(t, uint64(1), c.net.LinkStats("mallory0", "p0").DroppedUnexpected, "the gate is shut")
	require.Zero(t, c.nodes[0].p.UnknownPackets())

	c.drop(n, 6*time.Second)
	unknown := [2]uint64{c.nodes[0].p.UnknownPackets(), c.nodes[1].p.UnknownPackets()}
	var malformed [2]uint64
	for i, m := range c.nodes[:2] {
		st, err := m.p.PeerStats("p2")
		require.NoError(t, err)
		malformed[i] = st.Malformed
	}
	refused, sent := 0, 0
	buf := make([]byte, transport.MaxDatagram)
	start := c.clock.Now()
	for tick := range 60 { // a second
		for k, ep := range strangers {
			bad.Seq = uint16(tick)
			bad.Match = tok.Match + uint64(k%2) // a wrong match id from half of them
			if k%2 == 1 {
				bad.Secret = tok.Secret
			} else {
				bad.Secret = [wire.SecretLen]byte{9}
			}
			for range 5 {
				require.NoError(t, ep.Send("p0", bad.Append(nil)))
				require.NoError(t, ep.Send("p1", bad.Append(nil)))
				sent++
			}
		}
		c.run(time.Second / 60)
		for _, ep := range strangers {
			refused += refusals(t, ep, buf)
		}
	}
	d := c.clock.Now().Sub(start)
	bound := 2 * 4 * int(d/(200*time.Millisecond)+1)
	t.Logf("%d requests to each peer in %v: %d refusals (bound %d), unknown %d and %d", sent, d, refused, bound,
		c.nodes[0].p.UnknownPackets()-unknown[0], c.nodes[1].p.UnknownPackets()-unknown[1])
	require.Positive(t, refused)
	require.LessOrEqual(t, refused, bound, "refusals in %v", d)
	for i, m := range c.nodes[:2] {
		_, ok := m.first(rollnet.EventPlayerRejoining)
		require.False(t, ok, "%s: a stranger made it rejoin", m.name)
		require.GreaterOrEqual(t, m.p.UnknownPackets()-unknown[i], uint64(sent*9/10), "%s: counted unknown (a few may still fly)", m.name)
		for k := range strangers {
			_, err := m.p.PeerStats(transport.Peer(fmt.Sprintf("mallory%d", k)))
			require.ErrorIs(t, err, ErrNotAPeer, "%s: a stranger got a link", m.name)
		}
		st, err := m.p.PeerStats("p2")
		require.NoError(t, err, "%s: the player's link stays where it was", m.name)
		require.Equal(t, malformed[i], st.Malformed, "%s: strangers are not the player's peer", m.name)
	}
	c.frames(int(c.nodes[0].p.Frame())+60, 10*time.Second)

	// A fresh process with the wrong secret from a new address learns why.
	cfg.Rejoin = rollnet.RejoinToken{Match: tok.Match, Secret: [wire.SecretLen]byte{1}}
	c.comeBackAs(n, cfg, "p2-wrong", nil)
	c.refused(n, reasonRejoinIdentity)
	require.NoError(t, n.ep.Close())

	// The player itself still comes back.
	cfg.Rejoin = tok
	c.comeBackAs(n, cfg, "p2-new", nil)
	r := c.rejoined(n, 2)
	c.frames(int(r)+120, 20*time.Second)
	c.noDesync()
	c.movedTo(n, 2, "p2")
}

// TestP2PRebindBeforeTimeout: player 2's process hangs (its endpoint
// open, silent) and a fresh one comes back from a new address: the
// others let it in once the old link is silent past DisconnectNotify,
// drop the old link when it proves who it is, well before the 5 s
// timeout, and take it back.
func TestP2PRebindBeforeTimeout(t *testing.T) {
	c := rejoinCluster(t, 54, 0)
	n := c.nodes[2]
	tok, _ := n.p.RejoinToken()
	cfg := n.p.rj.restart.cfg
	n.paused = true
	for f := n.checked - 200; f <= n.checked; f++ {
		c.sums.Forget(f)
	}
	hung := c.clock.Now()
	cfg.Rejoin = tok
	c.comeBackAs(n, cfg, "p2-new", nil)
	dropped := c.until(5*time.Second, "the old link dropped", func() bool {
		for _, m := range c.nodes[:2] {
			if _, ok := m.first(rollnet.EventDisconnected); !ok {
				return false
			}
		}
		return true
	})
	require.Less(t, dropped.Sub(hung), 2*time.Second, "dropped on the proof, not at the 5 s timeout")
	r := c.rejoined(n, 2)
	for _, m := range c.nodes[:2] {
		ev := m.kinds(rollnet.EventDisconnected)
		require.Len(t, ev, 1, "%s", m.name)
		require.Equal(t, transport.Peer("p2"), ev[0].Peer)
	}
	c.frames(int(r)+200, 20*time.Second)
	c.noDesync()
	c.movedTo(n, 2, "p2")
	t.Logf("old link dropped %v after the hang, back at R %d", dropped.Sub(hung), r)
}

// TestP2PRebindLateJoin: a late joiner takes an open slot from an address
// no peer's config names; every peer agrees, and knows it by that
// address.
func TestP2PRebindLateJoin(t *testing.T) {
	c, n, cfg := openCluster(t, 4, 55, 0b1100, 300)
	c.comeBackAs(n, cfg, "joiner", nil)
	r := c.rejoined(n, 2)
	c.frames(int(r)+300, 20*time.Second)
	c.noDesync()
	for _, m := range []*p2pNode{c.nodes[0], c.nodes[1]} {
		_, err := m.p.PeerStats("joiner")
		require.NoError(t, err, "%s", m.name)
		ev := m.kinds(rollnet.EventPlayerRejoined)
		require.Equal(t, transport.Peer("joiner"), ev[len(ev)-1].Peer)
	}
	// The slot is taken: a second joiner from elsewhere is refused.
	cfg2 := cfg
	c2 := &p2pNode{locals: n.locals, in: make([]uint16, 4), rng: n.rng, period: n.period, next: c.clock.Now(), paused: true}
	c.nodes = append(c.nodes, c2)
	c.comeBackAs(c2, cfg2, "joiner2", nil)
	c.refused(c2, reasonRejoinIdentity)
}

// TestP2PRebindThenRejoin: after player 2 moved to a new address, player
// 1 drops and comes back in the same session (Session.Rejoin): it finds
// player 2 where it is now, not where its config said.
func TestP2PRebindThenRejoin(t *testing.T) {
	c, n, _ := elsewhere(t, 56, "p2-new", nil)
	r := c.rejoined(n, 2)
	c.frames(int(r)+120, 20*time.Second)

	m := c.nodes[1]
	c.backHere(m)
	r1 := c.rejoined(m, 1)
	c.frames(int(r1)+200, 20*time.Second)
	c.noDesync()
	_, err := m.p.PeerStats("p2-new")
	require.NoError(t, err)
	require.Equal(t, []transport.Peer{"p0", "", "p2-new"}, m.p.rj.restart.cfg.Remote)
}

// TestP2PRebindJoinRace: two joiners race for one open slot. The sponsor
// (p0) hears only joiner A; p1 hears joiner B first (A's requests to it
// are lost until A is accepted) and binds the slot to B's address. The
// sponsor's word (At) carries the secret A asked with, so p1 moves the
// slot to A when A asks again, and refuses B: A plays, everyone agrees.
func TestP2PRebindJoinRace(t *testing.T) {
	c, n, cfg := openCluster(t, 3, 57, 0b100, 200)

	// B asks p1 only, ten ticks ahead of A.
	b := &p2pNode{name: "joiner-b", locals: n.locals, in: make([]uint16, 3), rng: n.rng, period: n.period, next: c.clock.Now()}
	c.nodes = append(c.nodes, b)
	cfgB := cfg
	cfgB.Net.Tuning.Rand = func() uint64 { return 0xb }
	c.comeBackAs(b, cfgB, "joiner-b", func(ep local.Endpoint) transport.Transport {
		return &dropRequests{Endpoint: ep, to: "p0", drop: func() bool { return true }}
	})
	b.paused = true
	c.until(time.Second, "p1 bound the slot to B", func() bool {
		require.NoError(t, b.p.Poll())
		_, err := c.nodes[1].p.PeerStats("joiner-b")
		return err == nil
	})

	var q *Session[p2pWorld, uint16]
	q = c.comeBackAs(n, cfg, "joiner-a", func(ep local.Endpoint) transport.Transport {
		return &dropRequests{Endpoint: ep, to: "p1", drop: func() bool { return q == nil || q.rj.phase == phaseAsking }}
	})
	n.checked = 1 << 30 // nothing to compare while it replays
	var errB error
	c.until(10*time.Second, "A rejoined everywhere, B refused", func() bool {
		if errB == nil {
			for _, pl := range b.locals {
				require.NoError(t, b.p.AddLocalInput(pl, 1))
			}
			if err := b.p.AdvanceFrame(); !errors.Is(err, ErrNotSynchronized) {
				errB = err
			}
		}
		for _, m := range c.nodes[:3] {
			if _, ok := m.first(rollnet.EventPlayerRejoined); !ok {
				return false
			}
		}
		return errB != nil
	})
	var re *RejoinError
	require.ErrorAs(t, errB, &re, "B refused")
	require.Equal(t, reasonRejoinIdentity, re.Reason)
	c.nodes = c.nodes[:3]
	r := c.rejoined(n, 2)
	c.frames(int(r)+200, 20*time.Second)
	c.noDesync()
	c.movedTo(n, 2, "joiner-b")
}

// FuzzP2PStranger feeds arbitrary packets from a stranger to a session
// with an open slot (so strangers are admitted): never a panic, and the
// stranger gets a link only by a join request for the open slot, never
// the link of a player who is there.
func FuzzP2PStranger(f *testing.F) {
	fuzzSeeds(f)
	rejoinSeeds(f)
	join := wire.Rejoin{Seq: 1, Kind: wire.RejoinRequest, Players: 0b100}
	f.Add(join.Append(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr := &scriptTransport{from: "zz", local: "p0"}
		clock := p2pEpoch
		p := fuzzP2P(t, tr, &clock, func(cfg *Config[uint16]) { cfg.Open = 0b100 })
		for round := range 3 {
			tr.pkts = [][]byte{b, b[:len(b)/2]}
			if round == 1 {
				p.ep.Links()[0].MarkSynchronized()
			}
			_ = p.AddLocalInput(0, uint16(round))
			_ = p.AdvanceFrame()
			_ = p.Poll()
			clock = clock.Add(time.Second / 60)
		}
		_, ok := p.ep.Lookup("p1")
		require.True(t, ok, "a stranger took p1's link")
		if i, ok := p.ep.Lookup("zz"); ok {
			require.Equal(t, 1, i, "the stranger took a link other than the open slot's")
			joined := false
			for _, pkt := range [][]byte{b, b[:len(b)/2]} {
				m, _, err := wire.ParseRejoin(pkt)
				joined = joined || err == nil && m.Kind == wire.RejoinRequest && m.Players == 0b100
			}
			require.True(t, joined, "bound by % x", b)
		}
	})
}

// TestP2PRebindRestartWhileCatchingUp: the new process of player 2 hangs
// while it catches up and a third one comes back from yet another
// address before the others notice: they take it back at the same R, from
// a new handshake and the catch-up's start, and everyone agrees.
func TestP2PRebindRestartWhileCatchingUp(t *testing.T) {
	c, n, _ := elsewhere(t, 58, "p2-a", nil)
	q, cfg := n.p, n.p.rj.restart.cfg
	n.checked = 1 << 30
	c.until(3*time.Second, "catching up", func() bool { return q.rj.phase == phaseCatching && q.Running() && q.Frame() > 50 })
	r := q.rj.r
	n.paused = true // hung: its endpoint open, silent
	q = c.comeBackAs(n, cfg, "p2-b", nil)
	require.Equal(t, r, c.rejoined(n, 2), "the same R")
	c.frames(int(r)+200, 20*time.Second)
	c.noDesync()
	c.movedTo(n, 2, "p2-a")
	require.Equal(t, r, q.RejoinStats().Frame)
}

// fuzzP2P is player 0 of a 3-player match (p1 and p2 the others) over tr,
// on the clock, with its config edited by edit: the fuzz targets' session.
func fuzzP2P(t *testing.T, tr transport.Transport, clock *time.Time, edit func(*Config[uint16])) *Session[p2pWorld, uint16] {
	cfg := Config[uint16]{
		Session: session.Config[uint16]{Players: 3, InputDelay: 1, Capacity: 16},
		Remote:  []transport.Peer{"", "p1", "p2"},
		Net:     rollnet.NetConfig{Now: func() time.Time { return *clock }, Tuning: rollnet.NetTuning{Rand: func() uint64 { return 7 }}},
	}
	edit(&cfg)
	p, err := New[p2pWorld](cfg, tr, simP2P)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestP2PRebindAllocs: while a player comes back from a new address (the
// others admitting strangers, the stranger's requests, the catch-up) a
// tick of every peer allocates nothing.
func TestP2PRebindAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	c, n, _ := elsewhere(t, 59, "p2-new", nil)
	c.noSums = true
	for _, m := range c.nodes {
		m.events = make([]rollnet.Event, 0, 1<<14)
	}
	c.until(3*time.Second, "rebound and catching up", func() bool {
		_, err := c.nodes[1].p.PeerStats("p2-new")
		return err == nil && n.p.rj.phase == phaseCatching && n.p.Running()
	})
	// A stranger with a wrong secret asks all along.
	mallory, err := c.net.Endpoint("mallory")
	require.NoError(t, err)
	bad := (&wire.Rejoin{Kind: wire.RejoinRequest, Players: 1 << 2, Secret: [wire.SecretLen]byte{9}}).Append(nil)
	buf := make([]byte, transport.MaxDatagram)
	tick := func() {
		_ = mallory.Send("p0", bad)
		_ = mallory.Send("p1", bad)
		c.run(time.Second / 60)
		for {
			if _, _, err := mallory.Receive(buf); err != nil {
				break
			}
		}
	}
	tick()
	unknown := c.nodes[0].p.UnknownPackets()
	// One run of ten ticks after a warm-up run of ten.
	allocs.RequireZero(t, 1, func() {
		for range 10 {
			tick()
		}
	})
	require.Greater(t, c.nodes[0].p.UnknownPackets(), unknown, "the stranger's requests were read and refused")
	require.True(t, c.nodes[0].p.ep.StrangersAdmitted(), "measured while strangers were admitted")
	require.True(t, n.p.rejoining(), "measured while it caught up")
}
