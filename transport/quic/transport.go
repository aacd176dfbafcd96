package quic

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollnet/rollnet/internal/recvqueue"
	"github.com/rollnet/rollnet/internal/sendqueue"
	"github.com/rollnet/rollnet/transport"
	"github.com/rollnet/rollnet/transport/quic/connecttoken"
)

// Stats counts what a Transport did. All counters only grow.
type Stats struct {
	PacketsSent     uint64 // datagrams handed to a connection
	BytesSent       uint64
	PacketsReceived uint64 // datagrams queued for Receive
	BytesReceived   uint64
	// SendsSkipped counts datagrams SendBulk refused because
	// Config.Tuning.BulkQueueLen datagrams already waited, and those Send refused
	// because its queue was full of a bulk transfer's.
	SendsSkipped uint64
	// SendsSuperseded counts datagrams never sent because a newer one of
	// their kind (their first byte: a rollnet message's type) was sent
	// while Config.Tuning.SendQueueLen datagrams waited.
	SendsSuperseded uint64
	// SendsStale counts datagrams dropped unsent for their age: pushed out
	// of a full queue by a datagram of another kind, or found waiting
	// since more than 250 ms by the send loop.
	SendsStale uint64
	// SendErrors counts datagrams the connection refused (closing, or a
	// path whose packets were too small for them).
	SendErrors uint64
	// ReceivesDropped counts datagrams dropped because the receive queue
	// was full (refused from the peer holding the most of it, or
	// displaced by another peer's).
	ReceivesDropped uint64
	// ReceivesUnexpected counts datagrams dropped because their peer is not
	// among those named by Expect.
	ReceivesUnexpected uint64
	// ReceivesOversize counts datagrams over transport.MaxDatagram, dropped.
	ReceivesOversize uint64
	// ReceivesShort counts datagrams dropped by Receive for a short buffer.
	ReceivesShort uint64

	// Host only.
	//
	// PacketsDropped counts UDP packets quic-go dropped before any
	// connection took them (garbage, unknown connection ids, unsupported
	// versions, Initials too small or over its queue); PacketsDroppedDoS
	// is the part it dropped for denial-of-service prevention.
	PacketsDropped    uint64
	PacketsDroppedDoS uint64
	// ConnsRefusedAddr counts Initial packets refused (retransmissions
	// too) because their IP address already held Config.Tuning.MaxConnsPerAddr
	// connections; ConnsRefusedFull counts connections closed because MaxPeers
	// were admitted; ConnsEvicted connections closed still waiting for
	// their hello to make room for a newer one (MaxPending, or the
	// address's share of it).
	ConnsRefusedAddr uint64
	ConnsRefusedFull uint64
	ConnsEvicted     uint64
	// ConnsRefusedAdmit counts clients Config.Admit refused.
	ConnsRefusedAdmit uint64
	// HellosBad counts connections closed for a malformed, late or
	// oversized hello.
	HellosBad uint64
	// PeersAdmitted counts peers admitted.
	PeersAdmitted uint64
	// TokensMissing counts handshakes refused for offering no connect
	// token to a host that requires one (Config.TokenSecret, whose own Stats
	// count the tokens it refused).
	TokensMissing uint64
}

type counters struct {
	packetsSent, bytesSent, sendsSkipped, sendErrors    atomic.Uint64
	sendsSuperseded, sendsStale                         atomic.Uint64
	receivesOversize, packetsDropped, packetsDroppedDoS atomic.Uint64
	connsRefusedAddr, connsRefusedFull, hellosBad       atomic.Uint64
	peersAdmitted, tokensMissing, connsRefusedAdmit     atomic.Uint64
	connsEvicted                                        atomic.Uint64
}

// Transport carries datagrams over QUIC connections: a host's to each of
// its clients (Listen), a client's to its host (Dial, DialWebTransport). It
// is a transport.Transport, transport.PeerSet, transport.BulkSender and
// transport.Expecter (their documentation is the contract; see the package
// documentation for this transport's rules), and has QUIC's own calls.
//
// What the contract leaves to a transport, QUIC does so:
//   - Local is "quic://" and the host's address on a host, the id the host
//     assigned on a client.
//   - Send copies b into the peer's send queue and returns at once; the
//     peer's send loop hands it to the connection. A datagram that finds
//     Config.Tuning.SendQueueLen datagrams waiting supersedes the oldest
//     waiting one of its kind (the same first byte; for netplay's
//     messages the second too), or else the oldest
//     one a newer one of its own kind follows is superseded, or else it
//     pushes out the oldest; the send loop drops what waited more than
//     250 ms. Both are
//     counted (Stats), and Send returns nil, as for a datagram lost on the
//     wire. SendBulk may wait behind up to Config.Tuning.BulkQueueLen
//     datagrams rather than SendQueueLen.
//   - Receive takes the peers round robin. Expect drops any other peer's
//     datagrams on arrival, and those waiting now; both count in
//     Stats.ReceivesUnexpected.
//   - Events: PeerConnected when a peer is admitted (host) or welcomed
//     (client), PeerGone when its connection closed or timed out, with Err
//     transport.ErrPeerClosed or transport.ErrReplaced. At most 4 per
//     Config.MaxPeers are kept; older ones are dropped first.
//   - Close closes every connection (telling each peer), then the sockets,
//     and waits for every goroutine the Transport started. It is
//     idempotent.
type Transport interface {
	transport.Transport
	transport.PeerSet
	transport.BulkSender
	transport.Expecter

	// Host is the host's id on a client Transport (its only peer), and
	// the zero Peer on a host.
	Host() transport.Peer
	// Addr is the host's UDP socket address (nil on a client).
	Addr() net.Addr
	// LocalAddr is the UDP address a client's connection sends from now
	// (it changes with Migrate), nil on a host and in a browser.
	LocalAddr() net.Addr
	// CertHash is the SHA-256 of the host's certificate, for clients to
	// pin (Config.PinSHA256) and browsers to name in
	// serverCertificateHashes. It is zero on a client.
	CertHash() [32]byte
	// Migrate moves a client's connection to a new UDP socket (a phone
	// that changed networks, a NAT that forgot the mapping): it opens the
	// socket, probes the new path, and switches to it once the host
	// answered. The connection, and so the peer on both sides, is the
	// same; datagrams sent meanwhile travel the old path. The old socket
	// stays open until Close (quic-go closes a connection with the socket
	// it started on); at most Config.Tuning.MaxMigrations are held. It
	// fails with ErrNotClient on a host, ErrTooManyMigrations past that
	// bound, and in a browser with an error wrapping
	// errors.ErrUnsupported.
	Migrate(ctx context.Context) error
	// PeerClaims returns the claims of the connect token an admitted
	// peer presented (host with Config.TokenSecret), and whether it has one:
	// a host that runs several matches routes a peer to its match by
	// Claims.Room.
	PeerClaims(p transport.Peer) (connecttoken.Claims, bool)
	// Stats returns the counts so far.
	Stats() Stats
}

// qtransport is the Transport Listen, Dial and DialWebTransport return.
type qtransport struct {
	cfg   Config
	local transport.Peer
	start time.Time // the send queues' clock: nanoseconds since then
	q     *recvqueue.Queue
	rc    recvqueue.Counters
	c     counters

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine the Transport started

	mu     sync.RWMutex
	closed bool
	peers  map[transport.Peer]*peer
	set    *recvqueue.PeerSet[*peer] // the connected peers of peers, and the events

	host *hostState   // Listen only
	cl   *clientState // Dial only
}

// peer is one connection that carries datagrams.
type peer struct {
	id   transport.Peer
	conn datagramConn
	lane *recvqueue.Lane
	out  *sendqueue.Queue
	ctx  context.Context // cancelled when the peer is gone
	stop context.CancelFunc
	gone error     // guarded by Transport.mu
	slot *connSlot // the host's hold on the connection's address (host only)
}

// datagramConn is what a peer's loops need of a QUIC connection (or, for
// a browser, of a WebTransport session).
type datagramConn interface {
	SendDatagram(b []byte) error
	ReceiveDatagram(ctx context.Context) ([]byte, error)
	RemoteAddr() net.Addr
	// closeWith closes the connection, telling the other side why.
	closeWith(reason string)
}

func newTransport(cfg Config) *qtransport {
	ctx, cancel := context.WithCancel(context.Background())
	t := &qtransport{
		cfg:    cfg,
		start:  time.Now(),
		q:      recvqueue.New(cfg.Tuning.QueueLen),
		ctx:    ctx,
		cancel: cancel,
		peers:  make(map[transport.Peer]*peer),
	}
	t.set = recvqueue.NewPeerSet[*peer](&t.mu, &t.closed, t.peers, func(p *peer) bool { return p.gone == nil }, 4*cfg.MaxPeers, true)
	return t
}

// Local is this endpoint's identity: "quic://" and the host's address on a
// host, the id the host assigned on a client.
func (t *qtransport) Local() transport.Peer { return t.local }

// Send copies b into the peer's send queue and returns at once; the
// peer's send loop hands it to the connection. A datagram that finds
// Config.Tuning.SendQueueLen datagrams waiting supersedes the oldest waiting one
// of its kind (the same first byte; for netplay's messages the second
// too), or else the oldest one a newer one of
// its own kind follows is superseded, or else it pushes out the oldest; the
// send loop drops what waited more than 250 ms. Both are counted (see
// Stats), and Send returns nil, as for a datagram lost on the wire.
func (t *qtransport) Send(to transport.Peer, b []byte) error {
	_, err := t.send(to, b, t.cfg.Tuning.SendQueueLen)
	return err
}

// SendBulk is Send for a datagram of a bulk transfer (rollnet's session
// feeding a peer that catches up): it may wait behind up to
// Config.Tuning.BulkQueueLen datagrams rather than SendQueueLen, and it reports
// whether it was taken, so that the sender stops its burst at the first
// one dropped and sends it again later.
func (t *qtransport) SendBulk(to transport.Peer, b []byte) (bool, error) {
	return t.send(to, b, -t.cfg.Tuning.BulkQueueLen)
}

// send queues b for to: as a bulk datagram behind at most -limit when
// limit is negative.
func (t *qtransport) send(to transport.Peer, b []byte, limit int) (bool, error) {
	t.mu.RLock()
	if t.closed {
		t.mu.RUnlock()
		return false, transport.ErrClosed
	}
	if len(b) > transport.MaxDatagram {
		t.mu.RUnlock()
		return false, transport.ErrTooLarge
	}
	p, ok := t.peers[to]
	if !ok {
		t.mu.RUnlock()
		return false, transport.ErrUnknownPeer
	}
	if p.gone != nil {
		t.mu.RUnlock()
		return false, transport.ErrPeerGone
	}
	t.mu.RUnlock()
	now := t.now()
	if limit < 0 {
		if !p.out.PushBulk(b, -limit, now) {
			t.c.sendsSkipped.Add(1)
			return false, nil
		}
		return true, nil
	}
	switch p.out.Push(b, limit, now) {
	case sendqueue.Superseded:
		t.c.sendsSuperseded.Add(1)
	case sendqueue.PushedOut:
		t.c.sendsStale.Add(1)
	case sendqueue.Refused:
		t.c.sendsSkipped.Add(1)
		return false, nil
	}
	return true, nil
}

// now is the send queues' clock.
func (t *qtransport) now() int64 { return int64(time.Since(t.start)) }

// Receive copies the oldest received datagram of the next peer in turn into
// buf (peers are taken round robin). It never blocks.
func (t *qtransport) Receive(buf []byte) (int, transport.Peer, error) {
	t.mu.RLock()
	closed := t.closed
	t.mu.RUnlock()
	if closed {
		return 0, "", transport.ErrClosed
	}
	return t.rc.Pop(t.q, buf)
}

// Expect names the peers whose datagrams Receive returns (see
// transport.Expecter): any other peer's are dropped on arrival, and those
// waiting now are dropped; both count in Stats.ReceivesUnexpected.
func (t *qtransport) Expect(peers ...transport.Peer) {
	t.rc.Expect(t.q, peers)
}

// ExpectAnyone makes Receive return every peer's datagrams again (see
// transport.Expecter) until the next Expect.
func (t *qtransport) ExpectAnyone() { t.q.ExpectAnyone() }

// Peers appends the connected peers to dst, sorted, and returns the
// extended slice.
func (t *qtransport) Peers(dst []transport.Peer) []transport.Peer {
	return t.set.Peers(dst)
}

// WaitPeers blocks until at least n peers are connected and returns them,
// sorted. It fails with ctx's error, or transport.ErrClosed.
func (t *qtransport) WaitPeers(ctx context.Context, n int) ([]transport.Peer, error) {
	return t.set.WaitPeers(ctx, n)
}

// Events appends the peer events since the last call to dst and returns
// the extended slice (see transport.PeerSet): PeerConnected when a peer
// is admitted (host) or welcomed (client), PeerGone when its connection
// closed or timed out, with Err transport.ErrPeerClosed or transport.ErrReplaced. At most 4
// per Config.MaxPeers are kept; older ones are dropped first.
func (t *qtransport) Events(dst []transport.PeerEvent) []transport.PeerEvent {
	return t.set.Events(dst)
}

// Stats returns the counters.
func (t *qtransport) Stats() Stats {
	return Stats{
		PacketsSent:        t.c.packetsSent.Load(),
		BytesSent:          t.c.bytesSent.Load(),
		PacketsReceived:    t.rc.PacketsReceived.Load(),
		BytesReceived:      t.rc.BytesReceived.Load(),
		SendsSkipped:       t.c.sendsSkipped.Load(),
		SendsSuperseded:    t.c.sendsSuperseded.Load(),
		SendsStale:         t.c.sendsStale.Load(),
		SendErrors:         t.c.sendErrors.Load(),
		ReceivesDropped:    t.rc.Dropped.Load(),
		ReceivesUnexpected: t.rc.Unexpected.Load(),
		ReceivesOversize:   t.c.receivesOversize.Load(),
		ReceivesShort:      t.rc.Short.Load(),
		PacketsDropped:     t.c.packetsDropped.Load(),
		PacketsDroppedDoS:  t.c.packetsDroppedDoS.Load(),
		ConnsRefusedAddr:   t.c.connsRefusedAddr.Load(),
		ConnsRefusedFull:   t.c.connsRefusedFull.Load(),
		ConnsEvicted:       t.c.connsEvicted.Load(),
		ConnsRefusedAdmit:  t.c.connsRefusedAdmit.Load(),
		HellosBad:          t.c.hellosBad.Load(),
		PeersAdmitted:      t.c.peersAdmitted.Load(),
		TokensMissing:      t.c.tokensMissing.Load(),
	}
}

// Close closes every connection (telling each peer), then the sockets, and
// waits for every goroutine the Transport started. It is idempotent.
func (t *qtransport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.set.NotifyLocked()
	ps := make([]*peer, 0, len(t.peers))
	for _, p := range t.peers {
		ps = append(ps, p)
	}
	t.mu.Unlock()
	t.cancel()
	for _, p := range ps {
		p.stop()
		p.conn.closeWith("closed")
	}
	var err error
	switch {
	case t.host != nil:
		err = t.host.close()
	case t.cl != nil:
		err = t.cl.close()
	}
	t.wg.Wait()
	return err
}

// addPeer makes p known and starts its loops. It reports false, and
// starts nothing, when the Transport is closed. A peer with p's id that
// is still connected is replaced: gone with transport.ErrReplaced, its lane (and the
// datagrams waiting in it) kept for p.
func (t *qtransport) addPeer(p *peer) bool {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return false
	}
	old := t.peers[p.id]
	if old != nil && old.gone == nil {
		old.gone = transport.ErrReplaced
		t.emitLocked(transport.PeerEvent{Kind: transport.PeerGone, Peer: old.id, Err: transport.ErrReplaced})
	}
	if old == nil {
		t.pruneGoneLocked()
	}
	t.peers[p.id] = p
	t.emitLocked(transport.PeerEvent{Kind: transport.PeerConnected, Peer: p.id})
	t.wg.Add(2)
	t.mu.Unlock()
	if old != nil {
		old.stop()
		old.conn.closeWith("replaced by a newer connection")
	}
	p.lane = t.q.Lane(p.id)
	go t.readLoop(p)
	go t.sendLoop(p)
	return true
}

// pruneGoneLocked forgets gone peers (Send to them then returns
// transport.ErrUnknownPeer) once more than MaxPeers are remembered.
func (t *qtransport) pruneGoneLocked() {
	if len(t.peers) < 2*t.cfg.MaxPeers {
		return
	}
	for id, p := range t.peers {
		if p.gone != nil {
			delete(t.peers, id)
			return
		}
	}
}

// peerGone marks p gone for reason, unless it already is, and closes its
// connection. The lane goes too unless a newer connection took p's id.
func (t *qtransport) peerGone(p *peer, reason error) {
	t.mu.Lock()
	if p.gone != nil {
		t.mu.Unlock()
		return
	}
	p.gone = reason
	current := t.peers[p.id] == p
	if !t.closed {
		t.emitLocked(transport.PeerEvent{Kind: transport.PeerGone, Peer: p.id, Err: reason})
	}
	t.mu.Unlock()
	p.stop()
	p.conn.closeWith(reason.Error())
	if current {
		t.q.Forget(p.id)
	}
	if t.host != nil {
		t.host.released(p)
	}
}

// readLoop moves p's datagrams into the receive queue. quic-go allocates
// each datagram it hands over; this loop allocates nothing of its own.
func (t *qtransport) readLoop(p *peer) {
	defer t.wg.Done()
	for {
		b, err := p.conn.ReceiveDatagram(p.ctx)
		if err != nil {
			t.peerGone(p, transport.ErrPeerClosed)
			return
		}
		if len(b) > transport.MaxDatagram {
			t.c.receivesOversize.Add(1)
			continue
		}
		t.rc.Received(t.q, p.lane, b)
	}
}

// sendLoop hands p's queued datagrams to its connection, which may block
// (quic-go queues at most 32 datagrams per connection): Send never does.
func (t *qtransport) sendLoop(p *peer) {
	defer t.wg.Done()
	buf := make([]byte, transport.MaxDatagram)
	for {
		select {
		case <-p.ctx.Done():
			return
		case <-p.out.Wake:
		}
		for {
			n, stale, ok := p.out.Pop(buf, t.now()-int64(sendqueue.MaxAge))
			if stale > 0 {
				t.c.sendsStale.Add(uint64(stale))
			}
			if !ok {
				break
			}
			if err := p.conn.SendDatagram(buf[:n]); err != nil {
				t.c.sendErrors.Add(1)
				continue
			}
			t.c.packetsSent.Add(1)
			t.c.bytesSent.Add(uint64(n))
		}
	}
}

// emitLocked records a peer event, dropping the oldest past the bound.
// t.mu must be held for writing.
func (t *qtransport) emitLocked(e transport.PeerEvent) { t.set.EmitLocked(e) }

var (
	_ transport.Transport  = (*qtransport)(nil)
	_ transport.Expecter   = (*qtransport)(nil)
	_ transport.PeerSet    = (*qtransport)(nil)
	_ transport.BulkSender = (*qtransport)(nil)
)
