package multi_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/allocs"
	"github.com/rollnet/rollnet/internal/race"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/rollnet/rollnet/transport/multi"
	"github.com/rollnet/rollnet/transport/transporttest"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// host is a multi over two networks: "h1" on the first (with "b" and
// "c"), "h2" on the second (with "d").
type rig struct {
	h       multi.Transport
	b, c, d local.Endpoint
	tick    func()
}

func newRig(t *testing.T) rig {
	clock := local.NewClock(epoch)
	n1, err := local.NewNetwork(local.Config{Seed: 1, Now: clock.Now})
	require.NoError(t, err)
	n2, err := local.NewNetwork(local.Config{Seed: 2, Now: clock.Now})
	require.NoError(t, err)
	ep := func(n *local.Network, name string) local.Endpoint {
		e, err := n.Endpoint(name)
		require.NoError(t, err)
		t.Cleanup(func() { _ = e.Close() })
		return e
	}
	h1, h2 := ep(n1, "h1"), ep(n2, "h2")
	h, err := multi.New(h1, h2)
	require.NoError(t, err)
	t.Cleanup(func() { _ = h.Close() })
	return rig{h: h, b: ep(n1, "b"), c: ep(n1, "c"), d: ep(n2, "d"), tick: func() { clock.Advance(time.Millisecond) }}
}

func TestConformance(t *testing.T) {
	transporttest.Run(t, func(t *testing.T) transporttest.Pair {
		r := newRig(t)
		return transporttest.Pair{A: r.h, B: r.b, Tick: r.tick}
	})
}

// A peer on either part is reached and heard; Receive alternates between
// the parts, so a flood on one does not starve the other.
func TestRoutesAndAlternates(t *testing.T) {
	r := newRig(t)
	require.NoError(t, r.h.Send("d", []byte("to d")))
	require.NoError(t, r.h.Send("b", []byte("to b")))
	taken, err := r.h.SendBulk("d", []byte("bulk to d"))
	require.NoError(t, err)
	require.True(t, taken)
	require.ErrorIs(t, r.h.Send("nobody", []byte("x")), transport.ErrUnknownPeer)
	r.tick()
	buf := make([]byte, transport.MaxDatagram)
	n, from, err := r.d.Receive(buf)
	require.NoError(t, err)
	require.Equal(t, "to d", string(buf[:n]))
	require.Equal(t, transport.Peer("h2"), from, "d hears the host by its second part's name")

	for range 50 {
		require.NoError(t, r.b.Send("h1", []byte("flood")))
	}
	require.NoError(t, r.d.Send("h2", []byte("from d")))
	r.tick()
	var order []transport.Peer
	for {
		_, from, err := r.h.Receive(buf)
		if errors.Is(err, transport.ErrNoPacket) {
			break
		}
		require.NoError(t, err)
		order = append(order, from)
	}
	require.Len(t, order, 51)
	require.Contains(t, order[:2], transport.Peer("d"), "d waited behind b's flood")

	// Expect on parts that filter for themselves (local endpoints do).
	r.h.Expect("d")
	require.NoError(t, r.b.Send("h1", []byte("unexpected")))
	require.NoError(t, r.d.Send("h2", []byte("expected")))
	r.tick()
	n, from, err = r.h.Receive(buf)
	require.NoError(t, err)
	require.Equal(t, transport.Peer("d"), from)
	_, _, err = r.h.Receive(buf)
	require.ErrorIs(t, err, transport.ErrNoPacket)
	_ = n
}

func TestAllocsPerDatagram(t *testing.T) {
	if race.Enabled {
		t.Skip("allocates under -race")
	}
	r := newRig(t)
	buf := make([]byte, transport.MaxDatagram)
	pkt := make([]byte, 64)
	allocs.RequireZero(t, 500, func() {
		_ = r.h.Send("d", pkt)
		_ = r.d.Send("h2", pkt)
		r.tick()
		_, _, _ = r.d.Receive(buf)
		_, _, _ = r.h.Receive(buf)
	}, "a datagram each way through the multi")
}

func TestNew(t *testing.T) {
	_, err := multi.New()
	require.ErrorIs(t, err, rollnet.ErrConfig)
	_, err = multi.New(nil)
	require.ErrorIs(t, err, rollnet.ErrConfig)
}

// plain hides a transport's Expecter methods.
type plain struct{ transport.Transport }

// A part that cannot filter has its strangers dropped (and counted) by
// the multi itself.
func TestExpectForAPartWithoutExpecter(t *testing.T) {
	clock := local.NewClock(epoch)
	n, err := local.NewNetwork(local.Config{Now: clock.Now})
	require.NoError(t, err)
	h1, err := n.Endpoint("h1")
	require.NoError(t, err)
	b, err := n.Endpoint("b")
	require.NoError(t, err)
	c, err := n.Endpoint("c")
	require.NoError(t, err)
	defer b.Close()
	defer c.Close()
	h, err := multi.New(plain{h1})
	require.NoError(t, err)
	defer h.Close()
	h.Expect("c")
	require.NoError(t, b.Send("h1", []byte("stranger")))
	require.NoError(t, c.Send("h1", []byte("expected")))
	clock.Advance(time.Millisecond)
	buf := make([]byte, transport.MaxDatagram)
	m, from, err := h.Receive(buf)
	require.NoError(t, err)
	require.Equal(t, transport.Peer("c"), from)
	require.Equal(t, "expected", string(buf[:m]))
	_, _, err = h.Receive(buf)
	require.ErrorIs(t, err, transport.ErrNoPacket)
	require.Equal(t, uint64(1), multi.Unexpected(h))
	h.ExpectAnyone()
	require.NoError(t, b.Send("h1", []byte("welcome now")))
	clock.Advance(time.Millisecond)
	_, from, err = h.Receive(buf)
	require.NoError(t, err)
	require.Equal(t, transport.Peer("b"), from)
}
