package local_test

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

func TestConfigValidation(t *testing.T) {
	bad := []struct {
		name string
		cfg  local.Config
		err  error
	}{
		{"negative queue", local.Config{QueueLen: -1}, rollnet.ErrConfig},
		{"huge queue", local.Config{QueueLen: 1<<16 + 1}, rollnet.ErrConfig},
		{"negative latency", local.Config{Link: local.Link{Latency: -1}}, rollnet.ErrConfig},
		{"jitter over latency", local.Config{Link: local.Link{Latency: 5, Jitter: 6}}, rollnet.ErrConfig},
		{"latency over an hour", local.Config{Link: local.Link{Latency: 2 * time.Hour}}, rollnet.ErrConfig},
		{"loss over 1", local.Config{Link: local.Link{Loss: 1.01}}, rollnet.ErrConfig},
		{"NaN loss", local.Config{Link: local.Link{Loss: math.NaN()}}, rollnet.ErrConfig},
		{"negative duplicate", local.Config{Link: local.Link{Duplicate: -0.1}}, rollnet.ErrConfig},
		{"reorder over 1", local.Config{Link: local.Link{Reorder: 2}}, rollnet.ErrConfig},
		{"negative reorder delay", local.Config{Link: local.Link{ReorderDelay: -1}}, rollnet.ErrConfig},
		{"reorder on ordered", local.Config{Link: local.Link{Reorder: 0.1, Ordered: true}}, rollnet.ErrConfig},
		{"burst never leaves", local.Config{Link: local.Link{Burst: local.Burst{Enter: 0.1}}}, rollnet.ErrConfig},
		{"burst loss over 1", local.Config{Link: local.Link{Burst: local.Burst{Enter: 0.1, Leave: 0.1, Loss: 3}}}, rollnet.ErrConfig},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := local.NewNetwork(c.cfg)
			require.ErrorIs(t, err, c.err)
			if c.cfg.QueueLen == 0 { // a bad Link: SetLink and SetDefaultLink refuse it too
				n, err := local.NewNetwork(local.Config{})
				require.NoError(t, err)
				require.ErrorIs(t, n.SetLink("a", "b", c.cfg.Link), rollnet.ErrConfig)
				require.ErrorIs(t, n.SetDefaultLink(c.cfg.Link), rollnet.ErrConfig)
			}
		})
	}
	_, err := local.NewNetwork(local.Config{QueueLen: 1, Link: local.Link{Latency: 5, Jitter: 5, Loss: 1, Burst: local.Burst{Enter: 1, Leave: 1}}})
	require.NoError(t, err, "edges of the ranges are valid")
}

func TestEndpointNames(t *testing.T) {
	f := newFixture(t, local.Config{Link: local.Link{Latency: time.Millisecond}}, "a", "b")
	_, err := f.net.Endpoint("")
	require.ErrorIs(t, err, rollnet.ErrConfig)
	_, err = f.net.Endpoint("a")
	require.ErrorIs(t, err, local.ErrNameTaken)
	require.Equal(t, transport.Peer("a"), f.eps["a"].Local())

	// A closed name reports ErrPeerGone, and opens again with an empty
	// queue; the old handle stays closed.
	f.sendSeq("a", "b", 1)
	old := f.eps["b"]
	require.NoError(t, old.Close())
	require.ErrorIs(t, f.eps["a"].Send("b", []byte("x")), transport.ErrPeerGone)
	b2, err := f.net.Endpoint("b")
	require.NoError(t, err)
	f.eps["b"] = b2
	f.clock.Advance(time.Second)
	require.Empty(t, f.drain("b"), "the reopened endpoint got its predecessor's datagram")
	f.sendSeq("a", "b", 2)
	got := f.runUntilIdle("b")
	require.Len(t, got, 1)
	require.EqualValues(t, 2, got[0].seq)
	_, _, err = old.Receive(f.buf)
	require.ErrorIs(t, err, transport.ErrClosed)
	s := f.net.LinkStats("a", "b")
	require.EqualValues(t, 1, s.DroppedClosed)
	conserved(t, s)
}

func TestSetLinkOverridesDefault(t *testing.T) {
	f := newFixture(t, local.Config{Link: local.Link{Latency: 10 * time.Millisecond}}, "a", "b")
	require.NoError(t, f.net.SetLink("a", "b", local.Link{Latency: 50 * time.Millisecond}))
	f.sendSeq("a", "b", 1)
	f.sendSeq("b", "a", 2)
	at, _ := local.NextArrival(f.eps["b"])
	require.Equal(t, 50*time.Millisecond, at.Sub(epoch))
	at, _ = local.NextArrival(f.eps["a"])
	require.Equal(t, 10*time.Millisecond, at.Sub(epoch))

	f.runUntilIdle("a")
	f.runUntilIdle("b")

	// A new default reaches directions without their own link only.
	require.NoError(t, f.net.SetDefaultLink(local.Link{Latency: 30 * time.Millisecond}))
	sent := f.clock.Now()
	f.sendSeq("a", "b", 3)
	f.sendSeq("b", "a", 4)
	at, _ = local.NextArrival(f.eps["b"])
	require.Equal(t, 50*time.Millisecond, at.Sub(sent), "a→b kept its own link")
	at, _ = local.NextArrival(f.eps["a"])
	require.Equal(t, 30*time.Millisecond, at.Sub(sent), "b→a follows the new default")
}

func TestShortBufferCounts(t *testing.T) {
	f := newFixture(t, local.Config{}, "a", "b")
	require.NoError(t, f.eps["a"].Send("b", make([]byte, 100)))
	n, from, err := f.eps["b"].Receive(make([]byte, 99))
	require.ErrorIs(t, err, transport.ErrShortBuffer)
	require.Zero(t, n)
	require.Equal(t, transport.Peer("a"), from)
	require.EqualValues(t, 1, f.net.LinkStats("a", "b").DroppedShort)
	// Exactly fitting is fine, and a zero-length datagram is a datagram.
	require.NoError(t, f.eps["a"].Send("b", make([]byte, 100)))
	require.NoError(t, f.eps["a"].Send("b", nil))
	n, _, err = f.eps["b"].Receive(make([]byte, 100))
	require.NoError(t, err)
	require.Equal(t, 100, n)
	n, _, err = f.eps["b"].Receive(nil)
	require.NoError(t, err)
	require.Zero(t, n)
	conserved(t, f.net.Stats())
}

// TestConcurrentUse runs senders and receivers on every endpoint at once,
// for the race detector, then checks that every datagram is accounted for.
func TestConcurrentUse(t *testing.T) {
	clock := local.NewClock(epoch)
	net, err := local.NewNetwork(local.Config{Seed: 1, Now: clock.Now, QueueLen: 64, Link: nasty})
	require.NoError(t, err)
	names := []string{"a", "b", "c", "d"}
	eps := make([]local.Endpoint, len(names))
	for i, n := range names {
		eps[i], err = net.Endpoint(n)
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	for i, ep := range eps {
		wg.Go(func() {
			b := make([]byte, 64)
			for j := range 2000 {
				_ = ep.Send(transport.Peer(names[(i+1+j%3)%len(names)]), b[:1+j%64])
				if j%10 == 0 {
					clock.Advance(time.Millisecond)
				}
			}
		})
		wg.Go(func() {
			b := make([]byte, transport.MaxDatagram)
			for range 4000 {
				_, _, _ = ep.Receive(b)
				_, _ = local.NextArrival(ep)
			}
		})
	}
	wg.Go(func() {
		for range 200 {
			net.Partition("a", "b")
			_ = net.SetLink("c", "d", local.Link{Latency: time.Millisecond})
			net.Heal("a", "b")
			_ = net.Stats()
		}
	})
	wg.Wait()
	s := net.Stats()
	require.EqualValues(t, 4*2000, s.Sent)
	conserved(t, s)
	for _, ep := range eps {
		require.NoError(t, ep.Close())
	}
	s = net.Stats()
	require.Zero(t, s.InFlight)
	conserved(t, s)
}
