package local

import (
	"time"

	"github.com/rollnet/rollnet/transport"
)

// Endpoint is one named endpoint of a Network, as Network.Endpoint opens
// it: a transport.Transport and a transport.Expecter (their documentation
// is the contract), whose peer identity is transport.Peer(name). Safe for
// concurrent use.
//
// What the contract leaves to a transport, an Endpoint does so:
//   - Send runs b through the link from this endpoint to the endpoint named
//     to, which will find a copy in its queue after the link's delay,
//     unless the link loses it. It fails with transport.ErrClosed after
//     Close, transport.ErrTooLarge over transport.MaxDatagram bytes,
//     transport.ErrUnknownPeer for a name never opened on the network, and
//     transport.ErrPeerGone for an endpoint that has closed. It copies b
//     and does not allocate.
//   - Receive copies a datagram due at the clock's current reading into
//     buf: the earliest due from the next sender in turn (senders are taken
//     round robin, so a flood from one cannot delay another's datagrams).
//     With none due it returns transport.ErrNoPacket; a datagram longer
//     than buf is dropped with transport.ErrShortBuffer (and its sender).
//     It does not allocate.
//   - Expect: from now on a datagram from any other endpoint is dropped on
//     arrival, before it takes a queue slot, and counted as
//     Stats.DroppedUnexpected, as are the datagrams of senders left out
//     that are still queued. A reopened endpoint expects everyone again.
//   - Close discards the datagrams queued for the endpoint (counted as
//     Stats.DroppedClosed); its Send and Receive return
//     transport.ErrClosed, and its peers' Sends to it return
//     transport.ErrPeerGone until the name is opened again. Close is
//     idempotent and always returns nil.
type Endpoint interface {
	transport.Transport
	transport.Expecter
	// Stats returns the counts of this endpoint's links: sent sums every
	// direction from it, received every direction to it.
	Stats() (sent, received Stats)
}

// endpoint is the Endpoint Network.Endpoint opens.
type endpoint struct {
	net    *Network
	node   *node
	q      *queue
	closed bool

	expecting bool                // Expect was called
	expected  map[string]struct{} // the senders named by the latest Expect
	expectGen uint64              // counts Expect and ExpectAnyone calls, for link.expects

	// The destination of the last Send and the link to it: a sender
	// sends to the same few peers again and again, and names and links
	// are never removed from the network.
	lastTo   transport.Peer
	lastDst  *node
	lastLink *link
}

// Local returns the endpoint's name as a transport.Peer.
func (e *endpoint) Local() transport.Peer { return transport.Peer(e.node.name) }

// Send runs b through the link from this endpoint to the endpoint named to,
// which will find a copy in its queue after the link's delay, unless the
// link loses it. Send fails with transport.ErrClosed after Close,
// transport.ErrTooLarge over transport.MaxDatagram bytes,
// transport.ErrUnknownPeer for a name never opened on the network, and
// transport.ErrPeerGone for an endpoint that has closed. It copies b and
// does not allocate.
func (e *endpoint) Send(to transport.Peer, b []byte) error {
	n := e.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if e.closed {
		return transport.ErrClosed
	}
	if len(b) > transport.MaxDatagram {
		return transport.ErrTooLarge
	}
	dst, lk := e.lastDst, e.lastLink
	if dst == nil || to != e.lastTo {
		if dst = n.nodes[string(to)]; dst == nil {
			return transport.ErrUnknownPeer
		}
		lk = n.link(e.node.name, dst.name)
		e.lastTo, e.lastDst, e.lastLink = to, dst, lk
	}
	if dst.ep.closed {
		return transport.ErrPeerGone
	}
	n.send(lk, dst.ep, b)
	return nil
}

// Receive copies a datagram due at the clock's current reading into buf:
// the earliest due from the next sender in turn (senders are taken round
// robin, so a flood from one cannot delay another's datagrams). With none
// due it returns transport.ErrNoPacket; a datagram longer than buf is
// dropped with transport.ErrShortBuffer (and its sender). It does not
// allocate.
func (e *endpoint) Receive(buf []byte) (int, transport.Peer, error) {
	n := e.net
	n.mu.Lock()
	k, from, err := e.receive(buf)
	n.mu.Unlock() // not deferred: Receive is called for every datagram and once more each tick
	return k, from, err
}

// receive is Receive with the network's mutex held.
func (e *endpoint) receive(buf []byte) (int, transport.Peer, error) {
	if e.closed {
		return 0, "", transport.ErrClosed
	}
	if e.q.used == 0 {
		return 0, "", transport.ErrNoPacket // without reading the clock
	}
	l := e.q.due(e.net.now())
	if l == nil {
		return 0, "", transport.ErrNoPacket
	}
	d := &l.heap[0] // read in place, then popped
	lk, slot, n := d.link, d.slot, int(d.n)
	l.pop()
	lk.stats.InFlight--
	from := transport.Peer(lk.from)
	if n > len(buf) {
		lk.stats.DroppedShort++
		e.q.release(slot)
		return 0, from, transport.ErrShortBuffer
	}
	lk.stats.Delivered++
	k := copy(buf, e.q.buf(slot)[:n])
	e.q.release(slot)
	return k, from, nil
}

// nextArrival reports when the earliest datagram queued for this endpoint is
// due, for tests that advance a fake clock from event to event. It is false
// when nothing is queued or the endpoint is closed.
func (e *endpoint) nextArrival() (time.Time, bool) {
	n := e.net
	n.mu.Lock()
	defer n.mu.Unlock()
	a := e.q.peek()
	if e.closed || a == nil {
		return time.Time{}, false
	}
	return n.epoch.Add(time.Duration(a.at)), true
}

// Stats returns the counts of this endpoint's links: sent sums every
// direction from it, received every direction to it.
func (e *endpoint) Stats() (sent, received Stats) {
	n := e.net
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, lk := range n.order {
		if lk.from == e.node.name {
			sent.add(lk.stats)
		}
		if lk.to == e.node.name {
			received.add(lk.stats)
		}
	}
	return sent, received
}

// Close closes the endpoint: datagrams queued for it are discarded (counted
// as Stats.DroppedClosed), its Send and Receive return transport.ErrClosed,
// and its peers' Sends to it return transport.ErrPeerGone until the name is
// opened again. Close is idempotent and always returns nil.
func (e *endpoint) Close() error {
	n := e.net
	n.mu.Lock()
	defer n.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	e.q.clearAll(func(a *arrival) {
		a.link.stats.InFlight--
		a.link.stats.DroppedClosed++
	})
	return nil
}

// Expect names the senders this endpoint receives from (see
// transport.Expecter): from now on a datagram from any other endpoint is
// dropped on arrival, before it takes a queue slot, and counted as
// Stats.DroppedUnexpected, as are the datagrams of senders left out that
// are still queued. Each call replaces the last; with no peers nothing is
// received. A reopened endpoint expects everyone again.
func (e *endpoint) Expect(peers ...transport.Peer) {
	set := make(map[string]struct{}, len(peers))
	for _, p := range peers {
		set[string(p)] = struct{}{}
	}
	n := e.net
	n.mu.Lock()
	defer n.mu.Unlock()
	e.expecting, e.expected = true, set
	e.expectGen++
	e.q.removeIf(nil, func(a *arrival) bool {
		if e.expects(a.link.from) {
			return false
		}
		a.link.stats.InFlight--
		a.link.stats.DroppedUnexpected++
		return true
	})
}

// ExpectAnyone receives every sender's datagrams again (see
// transport.Expecter), as before the first Expect, until the next Expect.
func (e *endpoint) ExpectAnyone() {
	n := e.net
	n.mu.Lock()
	defer n.mu.Unlock()
	e.expecting, e.expected = false, nil
	e.expectGen++
}

// expects reports whether datagrams from the sender called from are
// received. Called with the network's mutex held.
func (e *endpoint) expects(from string) bool {
	if !e.expecting {
		return true
	}
	_, ok := e.expected[from]
	return ok
}

// expects is e.expects(lk.from), remembered on lk until e's next Expect or
// ExpectAnyone.
func (lk *link) expects(e *endpoint) bool {
	if lk.expEp != e || lk.expGen != e.expectGen {
		lk.expEp, lk.expGen, lk.expOK = e, e.expectGen, e.expects(lk.from)
	}
	return lk.expOK
}
