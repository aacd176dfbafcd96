package local_test

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
)

// fixture is a network on a manual clock with endpoints opened by name.
type fixture struct {
	t     testing.TB
	clock *local.Clock
	net   *local.Network
	eps   map[string]local.Endpoint
	buf   []byte
}

func newFixture(t testing.TB, cfg local.Config, names ...string) *fixture {
	t.Helper()
	f := &fixture{t: t, clock: local.NewClock(epoch), eps: map[string]local.Endpoint{}, buf: make([]byte, transport.MaxDatagram)}
	cfg.Now = f.clock.Now
	net, err := local.NewNetwork(cfg)
	require.NoError(t, err)
	f.net = net
	for _, n := range names {
		ep, err := net.Endpoint(n)
		require.NoError(t, err)
		f.eps[n] = ep
	}
	return f
}

// sendSeq sends an 8-byte datagram carrying seq from → to.
func (f *fixture) sendSeq(from, to string, seq uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seq)
	require.NoError(f.t, f.eps[from].Send(transport.Peer(to), b[:]))
}

// delivery is one datagram received, when, from whom.
type delivery struct {
	at   time.Duration // since epoch
	from transport.Peer
	seq  uint64
	data string
}

// drain receives everything due at the clock's reading at name.
func (f *fixture) drain(name string) []delivery {
	var out []delivery
	for {
		n, from, err := f.eps[name].Receive(f.buf)
		if errors.Is(err, transport.ErrNoPacket) {
			return out
		}
		require.NoError(f.t, err)
		d := delivery{at: f.clock.Now().Sub(epoch), from: from, data: string(f.buf[:n])}
		if n >= 8 {
			d.seq = binary.LittleEndian.Uint64(f.buf[:8])
		}
		out = append(out, d)
	}
}

// runUntilIdle advances the clock from arrival to arrival at name, draining
// each, until nothing is queued there.
func (f *fixture) runUntilIdle(name string) []delivery {
	var out []delivery
	for {
		out = append(out, f.drain(name)...)
		at, ok := local.NextArrival(f.eps[name])
		if !ok {
			return out
		}
		f.clock.Set(at)
	}
}

// conserved checks the Stats identity every datagram obeys.
func conserved(t testing.TB, s local.Stats) {
	t.Helper()
	require.Equal(t, s.Sent+s.Duplicated,
		s.Delivered+s.Lost+s.Partitioned+s.DroppedFull+s.DroppedShort+s.DroppedClosed+s.DroppedUnexpected+s.InFlight,
		"datagrams not conserved: %+v", s)
}
