package session

import (
	"fmt"
	"testing"
	"time"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// comeBackAs starts a new session for n with cfg (a new process) on a new
// endpoint called name: an address no other peer knows.
func (c *p2pCluster) comeBackAs(n *p2pNode, cfg P2PConfig[uint16], name string, wrap func(*local.Endpoint) transport.Transport) *P2P[p2pWorld, uint16] {
	ep, err := c.net.Endpoint(name)
	require.NoError(c.t, err)
	var tr transport.Transport = ep
	if wrap != nil {
		tr = wrap(ep)
	}
	q, err := NewP2P[p2pWorld](cfg, tr, simP2P)
	require.NoError(c.t, err)
	n.name, n.ep, n.p, n.paused, n.events = name, ep, q, false, nil
	return q
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
		ev := m.kinds(EventPlayerRejoined)
		require.NotEmpty(c.t, ev)
		require.Equal(c.t, transport.Peer(n.name), ev[len(ev)-1].Peer, "%s: EventPlayerRejoined names the new address", m.name)
		require.Equal(c.t, player, ev[len(ev)-1].Player)
	}
}

// dropRequests is a transport that loses every rejoin request to one
// peer while drop says so.
type dropRequests struct {
	*local.Endpoint
	to      transport.Peer
	drop    func() bool
	dropped int
}

func (d *dropRequests) Send(to transport.Peer, b []byte) error {
	if to == d.to && d.drop() {
		if m, _, err := codec.ParseRejoin(b); err == nil && m.Kind == codec.RejoinRequest {
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
	c := rejoinCluster(t, 51, 0)
	n := c.nodes[2]
	tok, _ := n.p.RejoinToken()
	cfg := n.p.cfg
	c.drop(n, 5*time.Second)
	cfg.Rejoin = tok
	q := c.comeBackAs(n, cfg, "p2-new", nil)
	before := c.agreed
	// The old address speaks again (a stale process, a replay): nothing
	// it sends counts, be it a disconnect notice, inputs or a request
	// without the secret, while the peers let strangers in (the player
	// catches up) and after.
	old, err := c.net.Endpoint("p2")
	require.NoError(t, err)
	oldSpeaks := func() {
		for k := range 30 {
			for _, b := range [][]byte{
				(&codec.Disconnect{Seq: uint16(k)}).Append(nil),
				(&codec.Input{Seq: uint16(k), Ack: 0, Start: int32(c.nodes[0].p.Frame()), Frames: 1, Players: 1 << 2, Size: 2,
					Inputs: []byte{1, 2}, Status: make([]codec.PeerStatus, 3)}).Append(nil),
				(&codec.Rejoin{Seq: uint16(k), Kind: codec.RejoinRequest, Players: 1 << 2, Match: tok.Match}).Append(nil),
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
	unknown := c.nodes[0].p.Unknown()
	oldSpeaks()
	require.Greater(t, c.nodes[0].p.Unknown()-unknown, uint64(60), "heard by the session while it lets strangers in, and dropped")
	r := c.rejoined(n, 2)
	c.frames(int(r)+300, 20*time.Second)
	c.noDesync()
	c.movedTo(n, 2, "p2")
	require.Greater(t, c.agreed-before, 2*250, "frames compared after R")
	st := q.RejoinStats()
	require.Equal(t, r, st.Frame)
	t.Logf("R %d, replayed %d frames in %v; %s", r, st.Replayed, st.CatchUp, c.describe())

	unknown = c.nodes[0].p.Unknown()
	s0 := c.net.LinkStats("p2", "p0")
	oldSpeaks()
	c.frames(int(c.nodes[0].p.Frame())+120, 10*time.Second)
	c.noDesync()
	for _, m := range c.nodes[:2] {
		_, gone := m.first(EventDisconnected)
		require.True(t, gone, "p2's old link went")
		require.Len(t, m.kinds(EventDisconnected), 1, "%s: the new one stays", m.name)
		require.Len(t, m.kinds(EventPlayerRejoining), 1, "%s", m.name)
	}
	s1 := c.net.LinkStats("p2", "p0")
	t.Logf("the old address's 90 datagrams to p0: %d dropped by the transport, %d delivered and counted unknown by the session, %d lost",
		s1.DroppedUnexpected-s0.DroppedUnexpected, c.nodes[0].p.Unknown()-unknown, s1.Lost-s0.Lost)
	require.Equal(t, uint64(90), s1.Sent-s0.Sent)
	require.Greater(t, s1.DroppedUnexpected-s0.DroppedUnexpected, uint64(80), "the gate shut again once the player was back")
	require.Equal(t, s1.Delivered-s0.Delivered, c.nodes[0].p.Unknown()-unknown, "every one delivered counted unknown")
}

// TestP2PRebindLostRequest: the same where every request the new process
// sends the non-sponsor before its acceptance is lost: it learns the new
// address from the requests that follow, while the player catches up.
func TestP2PRebindLostRequest(t *testing.T) {
	c := rejoinCluster(t, 52, 0)
	n := c.nodes[2]
	tok, _ := n.p.RejoinToken()
	cfg := n.p.cfg
	c.drop(n, 5*time.Second)
	cfg.Rejoin = tok
	var q *P2P[p2pWorld, uint16]
	var tr *dropRequests
	q = c.comeBackAs(n, cfg, "p2-new", func(ep *local.Endpoint) transport.Transport {
		// p0 sponsors (the lowest player still connected); p1 loses every
		// request sent while q is asking.
		tr = &dropRequests{Endpoint: ep, to: "p1", drop: func() bool { return q == nil || q.rj.phase == phaseAsking }}
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
	cfg := n.p.cfg

	// Before anyone left, no slot can be taken: a stranger's datagrams
	// stop at the transport.
	var strangers []*local.Endpoint
	for k := range 10 {
		ep, err := c.net.Endpoint(fmt.Sprintf("mallory%d", k))
		require.NoError(t, err)
		strangers = append(strangers, ep)
	}
	bad := codec.Rejoin{Kind: codec.RejoinRequest, Players: 1 << 2, Match: tok.Match, Secret: [codec.SecretLen]byte{9}}
	require.NoError(t, strangers[0].Send("p0", bad.Append(nil)))
	c.run(time.Second / 10)
	require.Equal(t, uint64(1), c.net.LinkStats("mallory0", "p0").DroppedUnexpected, "the gate is shut")
	require.Zero(t, c.nodes[0].p.Unknown())

	c.drop(n, 6*time.Second)
	unknown := [2]uint64{c.nodes[0].p.Unknown(), c.nodes[1].p.Unknown()}
	var malformed [2]uint64
	for i, m := range c.nodes[:2] {
		st, err := m.p.PeerStats("p2")
		require.NoError(t, err)
		malformed[i] = st.Malformed
	}
	refusals, sent := 0, 0
	buf := make([]byte, transport.MaxDatagram)
	start := c.clock.Now()
	for tick := range 60 { // a second
		for k, ep := range strangers {
			bad.Seq = uint16(tick)
			bad.Match = tok.Match + uint64(k%2) // a wrong match id from half of them
			if k%2 == 1 {
				bad.Secret = tok.Secret
			} else {
				bad.Secret = [codec.SecretLen]byte{9}
			}
			for range 5 {
				require.NoError(t, ep.Send("p0", bad.Append(nil)))
				require.NoError(t, ep.Send("p1", bad.Append(nil)))
				sent++
			}
		}
		c.run(time.Second / 60)
		for _, ep := range strangers {
			for {
				nb, _, err := ep.Receive(buf)
				if err != nil {
					break
				}
				m, _, err := codec.ParseRejoin(buf[:nb])
				require.NoError(t, err)
				require.Equal(t, codec.RejoinRefuse, m.Kind)
				require.Equal(t, uint8(refuseIdentity), m.Reason)
				refusals++
			}
		}
	}
	d := c.clock.Now().Sub(start)
	bound := 2 * 4 * int(d/(200*time.Millisecond)+1)
	t.Logf("%d requests to each peer in %v: %d refusals (bound %d), unknown %d and %d", sent, d, refusals, bound,
		c.nodes[0].p.Unknown()-unknown[0], c.nodes[1].p.Unknown()-unknown[1])
	require.Positive(t, refusals)
	require.LessOrEqual(t, refusals, bound, "refusals in %v", d)
	for i, m := range c.nodes[:2] {
		_, ok := m.first(EventPlayerRejoining)
		require.False(t, ok, "%s: a stranger made it rejoin", m.name)
		require.GreaterOrEqual(t, m.p.Unknown()-unknown[i], uint64(sent*9/10), "%s: counted unknown (a few may still fly)", m.name)
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
	cfg.Rejoin = RejoinToken{Match: tok.Match, Secret: [codec.SecretLen]byte{1}}
	c.comeBackAs(n, cfg, "p2-wrong", nil)
	n.paused = true
	err := c.tickManual(n, 5*time.Second)
	var re *RejoinError
	require.ErrorAs(t, err, &re)
	require.Equal(t, ReasonRejoinIdentity, re.Reason)
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
	cfg := n.p.cfg
	n.paused = true
	for f := n.checked - 200; f <= n.checked; f++ {
		delete(c.sums, f)
	}
	hung := c.clock.Now()
	cfg.Rejoin = tok
	c.comeBackAs(n, cfg, "p2-new", nil)
	dropped := c.until(5*time.Second, "the old link dropped", func() bool {
		for _, m := range c.nodes[:2] {
			if _, ok := m.first(EventDisconnected); !ok {
				return false
			}
		}
		return true
	})
	require.Less(t, dropped.Sub(hung), 2*time.Second, "dropped on the proof, not at the 5 s timeout")
	r := c.rejoined(n, 2)
	for _, m := range c.nodes[:2] {
		ev := m.kinds(EventDisconnected)
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
	c := archiveCluster(t, 4, 55, 0, func(i int, cfg *P2PConfig[uint16]) { cfg.Open = 0b1100 })
	c.absent(c.nodes[2:])
	c.frames(300, 10*time.Second)
	n := c.nodes[2]
	cfg := n.p.cfg
	cfg.Join = true
	c.comeBackAs(n, cfg, "joiner", nil)
	r := c.rejoined(n, 2)
	c.frames(int(r)+300, 20*time.Second)
	c.noDesync()
	for _, m := range []*p2pNode{c.nodes[0], c.nodes[1]} {
		_, err := m.p.PeerStats("joiner")
		require.NoError(t, err, "%s", m.name)
		ev := m.kinds(EventPlayerRejoined)
		require.Equal(t, transport.Peer("joiner"), ev[len(ev)-1].Peer)
	}
	// The slot is taken: a second joiner from elsewhere is refused.
	cfg2 := cfg
	c2 := &p2pNode{locals: n.locals, in: make([]uint16, 4), rng: n.rng, period: n.period, next: c.clock.Now(), paused: true}
	c.nodes = append(c.nodes, c2)
	c.comeBackAs(c2, cfg2, "joiner2", nil)
	c2.paused = true
	var re *RejoinError
	require.ErrorAs(t, c.tickManual(c2, 5*time.Second), &re)
	require.Equal(t, ReasonRejoinIdentity, re.Reason)
}
