package multi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport"
)

// Transport is several transports as one, as New returns it: a
// transport.Transport that is also a transport.PeerSet, a
// transport.BulkSender and a transport.Expecter. See the package
// documentation.
type Transport interface {
	transport.Transport
	transport.PeerSet
	transport.BulkSender
	transport.Expecter
}

// combined is the Transport New returns.
type combined struct {
	parts []transport.Transport

	mu        sync.RWMutex
	closed    bool
	next      int                         // the part Receive looks at first
	expecting bool                        // for parts that are not Expecters
	expected  map[transport.Peer]struct{} // the latest Expect's peers

	unexpected atomic.Uint64
}

// New combines parts (at least one); the Transport owns them from now on
// and closes them with Close.
func New(parts ...transport.Transport) (Transport, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%w: multi: no transports", rollnet.ErrConfig)
	}
	for i, p := range parts {
		if p == nil {
			return nil, fmt.Errorf("%w: multi: part %d is nil", rollnet.ErrConfig, i)
		}
	}
	return &combined{parts: append([]transport.Transport(nil), parts...)}, nil
}

// Local is the first part's identity.
func (t *combined) Local() transport.Peer { return t.parts[0].Local() }

// Send hands b to the part that knows to.
func (t *combined) Send(to transport.Peer, b []byte) error {
	if t.isClosed() {
		return transport.ErrClosed
	}
	for _, p := range t.parts {
		if err := p.Send(to, b); !errors.Is(err, transport.ErrUnknownPeer) {
			return err
		}
	}
	return transport.ErrUnknownPeer
}

// SendBulk is Send for a datagram of a bulk transfer: the part's own
// SendBulk when it has one, else its Send (taken if it returned nil).
func (t *combined) SendBulk(to transport.Peer, b []byte) (bool, error) {
	if t.isClosed() {
		return false, transport.ErrClosed
	}
	for _, p := range t.parts {
		var taken bool
		var err error
		if bs, ok := p.(transport.BulkSender); ok {
			taken, err = bs.SendBulk(to, b)
		} else {
			err = p.Send(to, b)
			taken = err == nil
		}
		if !errors.Is(err, transport.ErrUnknownPeer) {
			return taken, err
		}
	}
	return false, transport.ErrUnknownPeer
}

// Receive returns the next datagram of the parts, taken round robin.
func (t *combined) Receive(buf []byte) (int, transport.Peer, error) {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return 0, "", transport.ErrClosed
	}
	start := t.next
	t.next = (t.next + 1) % len(t.parts)
	t.mu.Unlock()
	for i := range t.parts {
		p := t.parts[(start+i)%len(t.parts)]
		for {
			n, from, err := p.Receive(buf)
			if errors.Is(err, transport.ErrNoPacket) {
				break
			}
			if err == nil && !t.wanted(p, from) {
				t.unexpected.Add(1)
				continue
			}
			return n, from, err
		}
	}
	return 0, "", transport.ErrNoPacket
}

// wanted reports whether a datagram from a part that cannot filter for
// itself is from an expected peer.
func (t *combined) wanted(p transport.Transport, from transport.Peer) bool {
	if _, ok := p.(transport.Expecter); ok {
		return true
	}
	t.mu.RLock()
	defer t.mu.RUnlock()
	if !t.expecting {
		return true
	}
	_, ok := t.expected[from]
	return ok
}

// Expect names the peers whose datagrams Receive returns, on every part
// (see transport.Expecter).
func (t *combined) Expect(peers ...transport.Peer) {
	set := make(map[transport.Peer]struct{}, len(peers))
	for _, p := range peers {
		set[p] = struct{}{}
	}
	t.mu.Lock()
	t.expecting, t.expected = true, set
	t.mu.Unlock()
	for _, p := range t.parts {
		if e, ok := p.(transport.Expecter); ok {
			e.Expect(peers...)
		}
	}
}

// ExpectAnyone makes Receive return every peer's datagrams again, on
// every part.
func (t *combined) ExpectAnyone() {
	t.mu.Lock()
	t.expecting, t.expected = false, nil
	t.mu.Unlock()
	for _, p := range t.parts {
		if e, ok := p.(transport.Expecter); ok {
			e.ExpectAnyone()
		}
	}
}

// Close closes every part. It is idempotent.
func (t *combined) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.mu.Unlock()
	var errs []error
	for _, p := range t.parts {
		if err := p.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Peers appends the connected peers of every part that is a
// transport.PeerSet to dst, sorted, and returns the extended slice.
func (t *combined) Peers(dst []transport.Peer) []transport.Peer {
	start := len(dst)
	for _, p := range t.parts {
		if ps, ok := p.(transport.PeerSet); ok {
			dst = ps.Peers(dst)
		}
	}
	slices.Sort(dst[start:])
	return dst
}

// WaitPeers blocks until the parts that are transport.PeerSets have at
// least n peers connected between them, and returns them, sorted. It fails
// with ctx's error, or transport.ErrClosed.
func (t *combined) WaitPeers(ctx context.Context, n int) ([]transport.Peer, error) {
	for {
		if t.isClosed() {
			return nil, transport.ErrClosed
		}
		if ps := t.Peers(nil); len(ps) >= n {
			return ps, nil
		}
		// Wait for one more peer on any part, then count again.
		wctx, cancel := context.WithCancel(ctx)
		errs := make(chan error, len(t.parts))
		var wg sync.WaitGroup
		for _, p := range t.parts {
			if ps, ok := p.(transport.PeerSet); ok {
				have := len(ps.Peers(nil))
				wg.Go(func() {
					_, err := ps.WaitPeers(wctx, have+1)
					errs <- err
				})
			}
		}
		var err error
		select {
		case err = <-errs:
		case <-ctx.Done():
		}
		cancel()
		wg.Wait()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, transport.ErrClosed) {
			return nil, transport.ErrClosed // the parts close with the Transport
		}
	}
}

// Events appends the peer events of every part that is a
// transport.PeerSet since the last call to dst, part by part, and returns
// the extended slice.
func (t *combined) Events(dst []transport.PeerEvent) []transport.PeerEvent {
	for _, p := range t.parts {
		if ps, ok := p.(transport.PeerSet); ok {
			dst = ps.Events(dst)
		}
	}
	return dst
}

func (t *combined) isClosed() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.closed
}

var _ Transport = (*combined)(nil)
