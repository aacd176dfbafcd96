package link_test

import (
	"testing"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/stretchr/testify/require"
)

// strangerNet is an endpoint "host" with one link, to "a", which expects
// only its peers, and two endpoints that send to it: "a" and the stranger
// "x".
func strangerNet(t *testing.T) (host *link.Endpoint, a, x local.Endpoint, stats func() local.Stats) {
	t.Helper()
	clock := local.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	nw, err := local.NewNetwork(local.Config{Seed: 3, Now: clock.Now})
	require.NoError(t, err)
	tr, err := nw.Endpoint("host")
	require.NoError(t, err)
	n, err := link.Resolve(rollnet.NetConfig{Now: clock.Now, Tuning: rollnet.NetTuning{Rand: func() uint64 { return 7 }}})
	require.NoError(t, err)
	ep := link.NewEndpoint(tr, n, 9)
	require.NoError(t, ep.AddLink(link.New("a")))
	ep.ExpectPeers()
	a, err = nw.Endpoint("a")
	require.NoError(t, err)
	x, err = nw.Endpoint("x")
	require.NoError(t, err)
	return &ep, a, x, nw.Stats
}

// receiveAll returns what Receive returns until nothing waits: the links
// (nil for a stranger), their senders and types.
func receiveAll(ep *link.Endpoint) (links []*link.Link, from []transport.Peer, types []wire.Type) {
	ep.Clock()
	for {
		l, typ, _, ok := ep.Receive()
		if !ok {
			return
		}
		links, from, types = append(links, l), append(from, ep.From()), append(types, typ)
	}
}

var (
	rejoinPkt = (&wire.Rejoin{Kind: wire.RejoinRequest, Players: 2}).Append(nil)
	ackPkt    = (&wire.InputAck{Seq: 1, Ack: 3}).Append(nil)
)

// TestEndpointStrangers: a stranger's packets are unknown, but for its
// Rejoin packets while strangers are admitted, which Receive returns with
// no link and the sender's address; the transport's gate (Expect) opens
// with it and closes after.
func TestEndpointStrangers(t *testing.T) {
	ep, _, x, stats := strangerNet(t)
	send := func() {
		require.NoError(t, x.Send("host", rejoinPkt))
		require.NoError(t, x.Send("host", ackPkt))
	}

	send()
	links, _, _ := receiveAll(ep)
	require.Empty(t, links, "closed: the transport drops a stranger")
	require.Equal(t, uint64(2), stats().DroppedUnexpected)

	ep.AdmitStrangers(true)
	require.True(t, ep.StrangersAdmitted())
	send()
	links, from, types := receiveAll(ep)
	require.Equal(t, []*link.Link{nil}, links, "the Rejoin packet, and only it")
	require.Equal(t, []transport.Peer{"x"}, from)
	require.Equal(t, []wire.Type{wire.TypeRejoin}, types)
	require.Equal(t, uint64(1), ep.Unknown(), "the other counted")
	ep.RefuseStranger()
	require.Equal(t, uint64(2), ep.Unknown())

	ep.AdmitStrangers(false)
	send()
	links, _, _ = receiveAll(ep)
	require.Empty(t, links, "closed again")
	require.Equal(t, uint64(4), stats().DroppedUnexpected)
}

// TestEndpointRebind: a link moved to a new address hears that address
// only; the old one is unknown, and the transport expects the new one.
func TestEndpointRebind(t *testing.T) {
	ep, a, x, stats := strangerNet(t)
	l := ep.Links()[0]
	require.NoError(t, ep.Rebind(0, "x"))
	require.Equal(t, transport.Peer("x"), l.Peer)
	i, ok := ep.Lookup("x")
	require.True(t, ok)
	require.Zero(t, i)
	_, ok = ep.Lookup("a")
	require.False(t, ok, "the old address forgotten")

	require.NoError(t, x.Send("host", ackPkt))
	require.NoError(t, a.Send("host", rejoinPkt))
	links, from, _ := receiveAll(ep)
	require.Equal(t, []*link.Link{l}, links, "x reaches the link, a nothing")
	require.Equal(t, []transport.Peer{"x"}, from)
	require.Equal(t, uint64(1), stats().DroppedUnexpected, "a's, by the transport: x is expected, a no longer")

	ep.AdmitStrangers(true)
	require.NoError(t, a.Send("host", rejoinPkt))
	links, from, _ = receiveAll(ep)
	require.Equal(t, []*link.Link{nil}, links, "the old address is a stranger now")
	require.Equal(t, []transport.Peer{"a"}, from)

	for _, bad := range []struct {
		i    int
		peer transport.Peer
	}{{1, "y"}, {-1, "y"}, {0, ""}, {0, "host"}} {
		require.ErrorIs(t, ep.Rebind(bad.i, bad.peer), link.ErrConfig, "%d %q", bad.i, bad.peer)
	}
	require.NoError(t, ep.AddLink(link.New("b")))
	require.ErrorIs(t, ep.Rebind(0, "b"), link.ErrConfig, "another link's address")
	require.NoError(t, ep.Rebind(0, "x"), "its own address: nothing to do")
}

// TestEndpointStrangersAllocs: Receive allocates nothing while strangers
// are admitted, from a stranger or a peer.
func TestEndpointStrangersAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	ep, a, x, _ := strangerNet(t)
	ep.AdmitStrangers(true)
	// One run of a hundred rounds after a warm-up run of a hundred.
	allocs.RequireZero(t, 1, func() {
		for range 100 {
			_ = x.Send("host", rejoinPkt)
			_ = x.Send("host", ackPkt)
			_ = a.Send("host", ackPkt)
			for {
				if _, _, _, ok := ep.Receive(); !ok {
					break
				}
			}
		}
	})
}
