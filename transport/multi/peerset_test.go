package multi_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/local"
	"github.com/rollnet/rollnet/transport/multi"
)

// peered is a local endpoint with a peer set the test drives.
type peered struct {
	transport.Transport
	mu      sync.Mutex
	closed  bool
	peers   []transport.Peer
	evs     []transport.PeerEvent
	changed chan struct{}
}

func newPeered(tr transport.Transport) *peered {
	return &peered{Transport: tr, changed: make(chan struct{})}
}

func (p *peered) connect(id transport.Peer) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.peers = append(p.peers, id)
	p.evs = append(p.evs, transport.PeerEvent{Kind: transport.PeerConnected, Peer: id})
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *peered) Peers(dst []transport.Peer) []transport.Peer {
	p.mu.Lock()
	defer p.mu.Unlock()
	start := len(dst)
	dst = append(dst, p.peers...)
	slices.Sort(dst[start:])
	return dst
}

func (p *peered) WaitPeers(ctx context.Context, n int) ([]transport.Peer, error) {
	for {
		p.mu.Lock()
		closed, have, ch := p.closed, len(p.peers), p.changed
		p.mu.Unlock()
		if closed {
			return nil, transport.ErrClosed
		}
		if have >= n {
			return p.Peers(nil), nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ch:
		}
	}
}

func (p *peered) Events(dst []transport.PeerEvent) []transport.PeerEvent {
	p.mu.Lock()
	defer p.mu.Unlock()
	dst = append(dst, p.evs...)
	p.evs = p.evs[:0]
	return dst
}

func (p *peered) Close() error {
	p.mu.Lock()
	p.closed = true
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
	return p.Transport.Close()
}

// The peer set of a multi is its parts': WaitPeers counts the peers of
// every part that has a peer set (and skips a part that has none), and
// Events gathers theirs.
func TestPeerSetGathersParts(t *testing.T) {
	n, err := local.NewNetwork(local.Config{Seed: 1})
	require.NoError(t, err)
	ep := func(name string) local.Endpoint {
		e, err := n.Endpoint(name)
		require.NoError(t, err)
		return e
	}
	a, b := newPeered(ep("a")), newPeered(ep("b"))
	m, err := multi.New(a, ep("plain"), b)
	require.NoError(t, err)
	defer m.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got := make(chan []transport.Peer, 1)
	go func() {
		ps, err := m.WaitPeers(ctx, 2)
		require.NoError(t, err)
		got <- ps
	}()
	a.connect("y")
	b.connect("x")
	select {
	case ps := <-got:
		require.Equal(t, []transport.Peer{"x", "y"}, ps)
	case <-ctx.Done():
		t.Fatal("WaitPeers did not return within 10 s of the second peer")
	}
	require.Equal(t, []transport.Peer{"x", "y"}, m.Peers(nil))
	require.Equal(t, []transport.PeerEvent{
		{Kind: transport.PeerConnected, Peer: "y"},
		{Kind: transport.PeerConnected, Peer: "x"},
	}, m.Events(nil), "part by part")
	require.Empty(t, m.Events(nil), "drained")

	short, stop := context.WithCancel(ctx)
	stop()
	_, err = m.WaitPeers(short, 3)
	require.ErrorIs(t, err, context.Canceled)

	go m.Close() // before WaitPeers blocks or after: either way it returns ErrClosed
	_, err = m.WaitPeers(ctx, 3)
	require.ErrorIs(t, err, transport.ErrClosed)
}
