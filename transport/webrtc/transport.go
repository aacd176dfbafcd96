package webrtc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/recvqueue"
	"github.com/rollnet/rollnet/internal/sendqueue"
	"github.com/rollnet/rollnet/signaling/client"
	"github.com/rollnet/rollnet/transport"
)

// Stats counts what a Transport did. All counters only grow.
type Stats struct {
	PacketsSent     uint64 // datagrams handed to a data channel
	BytesSent       uint64
	PacketsReceived uint64 // datagrams queued for Receive
	BytesReceived   uint64
	// SendsSkipped counts datagrams SendBulk refused because the
	// channel's buffered amount was above Config.Tuning.BulkThreshold.
	SendsSkipped uint64
	// SendsSuperseded counts datagrams never sent because a newer one of
	// their kind (their first byte: a rollnet message's type) was sent
	// while they waited for the channel (see Send).
	SendsSuperseded uint64
	// SendsStale counts datagrams dropped unsent for their age: pushed
	// out of a full wait queue by a datagram of another kind, or found
	// waiting since more than 250 ms.
	SendsStale uint64
	// SendsNotOpen counts datagrams Send dropped because the peer's data
	// channel had not opened yet.
	SendsNotOpen uint64
	// SendErrors counts datagrams the data channel refused.
	SendErrors uint64
	// ReceivesDropped counts datagrams dropped because the receive queue
	// was full: refused from the peer holding the most of it, or displaced
	// by another peer's.
	ReceivesDropped uint64
	// ReceivesUnexpected counts datagrams dropped because their peer is not
	// among those named by Expect: on arrival, or waiting when Expect left
	// the peer out.
	ReceivesUnexpected uint64
	// PeersRefused counts rendezvous events (joins, offers, candidates)
	// from peers Config.Accept refused to connect to.
	PeersRefused uint64
	// OffersSkipped counts peers that joined and left before this
	// endpoint offered to them.
	OffersSkipped uint64
	// ReceivesShort counts datagrams dropped by Receive for a short buffer.
	ReceivesShort uint64
	// SignalsInvalid counts rendezvous messages ignored: malformed, out of
	// order, from a peer over MaxPeers, or candidates over the pending
	// bound.
	SignalsInvalid uint64
	// SignalErrors counts signals the signaling server connection failed to send.
	SignalErrors uint64
	// EventsDropped counts peer events lost because nobody drained Events.
	EventsDropped uint64
}

type counters struct {
	packetsSent, bytesSent, sendsSkipped, sendsNotOpen atomic.Uint64
	sendsSuperseded, sendsStale                        atomic.Uint64
	sendErrors, signalsInvalid, signalErrors           atomic.Uint64
	peersRefused, offersSkipped                        atomic.Uint64
}

// Transport carries datagrams to peers over WebRTC data channels, as
// Dial, New and RoomDialer make it: a transport.Room (a Transport and a
// PeerSet in a room of the signaling server), a transport.BulkSender,
// transport.Expecter, transport.Arrivals, transport.Disconnecter and
// transport.PathReporter. Their documentation is the contract; see the
// package documentation for this transport's rules.
//
// What the contract leaves to a transport, WebRTC does so:
//   - Local is this endpoint's signaling id; Name the room's name as the
//     signaling server knows it (the one dialed, or the one it chose for
//     ""); AtJoin the peers in the room when this endpoint joined it,
//     oldest first, connected or not; Arrived the members that joined
//     later and are still in it, in the order the signaling server
//     announced them (the same on every member), the first 64.
//   - Send hands b to the peer's data channel and returns at once. A
//     datagram for a peer whose channel is not open yet is dropped and
//     counted. One that finds the channel holding more than
//     Config.Tuning.SendThreshold bytes waits (as do the ones sent after
//     it, in order) until the peer's acknowledgements bring the channel
//     down to it (in a browser, until a later Send finds it there): at
//     most eight wait, and past that a datagram supersedes the oldest
//     waiting one of its kind (the same first byte, and for netplay's
//     messages the second: the newest state
//     matters, not the first), or else the oldest one a newer one of its
//     own kind follows is superseded, or else it pushes out the oldest; what waited
//     over 250 ms is dropped, so that after a blackout nothing stale is
//     flushed to the peer. Each is counted (Stats); Send returns nil, as
//     for a datagram lost on the wire. SendBulk queues behind up to
//     Config.Tuning.BulkThreshold bytes rather than SendThreshold, and
//     never waits in Send's queue.
//   - Receive takes the peers round robin. Expect makes the read loop of
//     any other peer drop what it reads before it takes a queue slot, and
//     drops that peer's datagrams still waiting; both count in
//     Stats.ReceivesUnexpected. Connections are unaffected: to choose whom
//     to connect to, see Config.Accept.
//   - Peers and WaitPeers count the peers whose data channel is open.
//     Events: PeerConnected when a data channel opens; PeerInterrupted
//     when nothing came from the peer for
//     Config.Tuning.ICEDisconnectedTimeout, PeerResumed when it is heard
//     again; PeerGone, after Config.Tuning.ICEFailedTimeout more or when it
//     closed or left, with Err ErrICEFailed, transport.ErrPeerClosed,
//     ErrPeerLeft, ErrOversizeMessage, ErrDisconnected or an error wrapping
//     ErrSignaling. Events are kept up to a bound (4 per peer slot); past
//     it they are dropped and counted in Stats.EventsDropped.
//   - Disconnect closes the connection to p and does not connect to it
//     again: p is gone (reason ErrDisconnected) and its offers are
//     refused. Path reports the round trip and the route of the selected
//     candidate pair, partial while the first hop's protocol is not known;
//     it allocates and waits on the WebRTC stack (pion's statistics, a
//     browser's getStats): call it now and then.
//   - Close closes every peer connection, stops reading the signaling
//     server (and closes it if the Transport dialed it) and waits for
//     every goroutine the Transport started. It is idempotent.
type Transport interface {
	transport.Room
	transport.BulkSender
	transport.Expecter
	transport.Arrivals
	transport.Disconnecter
	transport.PathReporter
	// Stats returns the counters.
	Stats() Stats
}

// rtcTransport is the Transport Dial, New and RoomDialer make.
type rtcTransport struct {
	cfg   Config
	sig   signaler
	owned io.Closer // closed by Close when the Transport made the signaler
	eng   engine    // the WebRTC stack: pion natively, the browser's in a page
	local transport.Peer
	start time.Time // the send queues' clock: nanoseconds since then
	q     *recvqueue.Queue
	rc    recvqueue.Counters
	c     counters

	ctx      context.Context
	cancel   context.CancelFunc
	loopDone chan struct{}
	wg       sync.WaitGroup // read loops and peer closers

	mu     sync.RWMutex
	closed bool
	sigErr error
	peers  map[transport.Peer]*peer
	// arrived is the members that joined after this endpoint and have not
	// left, oldest first: the first maxArrived (Arrived).
	arrived []transport.Peer
	set     *recvqueue.PeerSet[*peer] // the open peers of peers, and the events

	joined []transport.Peer // signal loop only: joined, not offered to yet
}

type peer struct {
	id      transport.Peer
	offerer bool
	c       *conn // nil until an offer is made or received

	// Guarded by Transport.mu.
	rw          io.ReadWriteCloser // set when the channel opens, cleared when gone
	gone        error
	interrupted bool

	// Guarded by Transport.mu: local candidates not sent yet, and whether
	// the offer or answer has been (candidates never overtake it: a
	// browser's addIceCandidate refuses one before the remote
	// description), and a flush waits for it.
	bundle      []candidate
	bundleTimer *time.Timer
	described   bool
	flushWaits  bool

	// Touched by the signal loop only.
	remoteSet bool
	pending   []candidate

	// out holds the datagrams Send could not hand to the channel at once;
	// flushMu guards flushBuf, which the flush copies each into.
	out      *sendqueue.Queue
	flushMu  sync.Mutex
	flushBuf []byte
}

// waitLen is the number of datagrams that wait for a peer's channel while
// it holds more than Config.Tuning.SendThreshold bytes: eight, as QUIC's
// default queue, so that a player host's kinds (a state, a quality report
// and reply, a keep-alive, netplay's ping, pong and roster) each keep
// their newest when the peer's acknowledgements stall; with four, the
// fifth kind pushed out one alone of its own, stale.
const waitLen = 8

func newPeer(id transport.Peer) *peer {
	return &peer{id: id, out: sendqueue.New(waitLen), flushBuf: make([]byte, transport.MaxDatagram)}
}

// New starts a Transport that negotiates through c, a signaling client
// joined to a room; the Transport reads c's events from then on (read
// none yourself). The peers already present offer to it; it offers to
// every peer that joins later. New does not close c (close it after the
// Transport); Close stops reading from it.
func New(cfg Config, c *client.Client) (Transport, error) {
	if c == nil {
		return nil, fmt.Errorf("%w: webrtc: no signaling client", rollnet.ErrConfig)
	}
	a := newSignalingAdapter(c, false)
	t, err := newTransport(cfg, a, a)
	if err != nil {
		_ = a.Close()
		return nil, err
	}
	return t, nil
}

func newTransport(cfg Config, sig signaler, owned io.Closer) (*rtcTransport, error) {
	if sig == nil {
		return nil, fmt.Errorf("%w: webrtc: no signaler", rollnet.ErrConfig)
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	servers := cfg.ICEServers
	if servers == nil {
		servers = sig.iceServers()
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := &rtcTransport{
		cfg:      cfg,
		sig:      sig,
		owned:    owned,
		eng:      newEngine(cfg, servers),
		local:    transport.Peer(sig.localID()),
		start:    time.Now(),
		q:        recvqueue.New(cfg.Tuning.QueueLen),
		ctx:      ctx,
		cancel:   cancel,
		loopDone: make(chan struct{}),
		peers:    make(map[transport.Peer]*peer),
	}
	t.set = recvqueue.NewPeerSet[*peer](&t.mu, &t.closed, t.peers, (*peer).open, 4*cfg.MaxPeers, false)
	go t.run()
	return t, nil
}

// Local is this endpoint's signaling id.
func (t *rtcTransport) Local() transport.Peer { return t.local }

// Send hands b to the peer's data channel and returns at once. A datagram
// for a peer whose channel is not open yet is dropped and counted. One
// that finds the channel holding more than Config.Tuning.SendThreshold bytes
// waits (as do the ones sent after it, in order) until the peer's
// acknowledgements bring the channel down to it (in a browser, until a
// later Send finds it there): at most eight wait, and past
// that a datagram supersedes the oldest waiting one of its kind (the same
// first byte, and for netplay's messages the second: the newest state
// matters, not the first), or else the
// oldest one a newer one of its own kind follows is superseded (a reply
// waiting behind three states stays, the oldest state goes), or else it
// pushes out the oldest; what waited over 250 ms is dropped, so that after a
// blackout nothing stale is flushed to the peer. Each is counted (see
// Stats); Send returns nil, as for a datagram lost on the wire.
func (t *rtcTransport) Send(to transport.Peer, b []byte) error {
	_, err := t.send(to, b, false)
	return err
}

// SendBulk is Send for a datagram of a bulk transfer (rollnet's session
// feeding a peer that catches up: a burst of datagrams a tick, none made
// stale by the next): it queues behind up to Config.Tuning.BulkThreshold bytes
// rather than SendThreshold, and never waits in Send's queue. It reports
// whether the datagram was taken, so that the sender stops its burst at
// the first one dropped (and sends it again later) instead of leaving
// holes.
func (t *rtcTransport) SendBulk(to transport.Peer, b []byte) (bool, error) {
	return t.send(to, b, true)
}

// send is Send, or SendBulk; it reports whether b was taken.
func (t *rtcTransport) send(to transport.Peer, b []byte, bulk bool) (bool, error) {
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
	rw, c := p.rw, p.c
	t.mu.RUnlock()
	if rw == nil {
		t.c.sendsNotOpen.Add(1)
		return false, nil
	}
	if bulk {
		if c.bufferedAmount() > uint64(t.cfg.Tuning.BulkThreshold) {
			t.c.sendsSkipped.Add(1)
			return false, nil
		}
		t.write(rw, b)
		return true, nil
	}
	if p.out.Len() == 0 && c.bufferedAmount() <= uint64(t.cfg.Tuning.SendThreshold) {
		t.write(rw, b)
		return true, nil
	}
	now := int64(time.Since(t.start))
	switch p.out.Push(b, waitLen, now) {
	case sendqueue.Superseded:
		t.c.sendsSuperseded.Add(1)
	case sendqueue.PushedOut:
		t.c.sendsStale.Add(1)
	}
	t.flush(p, rw, c, now)
	return true, nil
}

// flush writes p's waiting datagrams to its channel while the channel
// holds at most Config.Tuning.SendThreshold bytes, dropping the stale ones.
func (t *rtcTransport) flush(p *peer, w io.Writer, c *conn, now int64) {
	p.flushMu.Lock()
	defer p.flushMu.Unlock()
	for c.bufferedAmount() <= uint64(t.cfg.Tuning.SendThreshold) {
		n, stale, ok := p.out.Pop(p.flushBuf, now-int64(sendqueue.MaxAge))
		if stale > 0 {
			t.c.sendsStale.Add(uint64(stale))
		}
		if !ok {
			return
		}
		t.write(w, p.flushBuf[:n])
	}
}

// flushWaiting is flush when p's channel drained to SendThreshold (the
// browser's tab aside, where the next Send flushes).
func (t *rtcTransport) flushWaiting(p *peer) {
	t.mu.RLock()
	rw, c, gone := p.rw, p.c, p.gone
	t.mu.RUnlock()
	if rw == nil || gone != nil || p.out.Len() == 0 {
		return
	}
	t.flush(p, rw, c, int64(time.Since(t.start)))
}

// write hands b to the channel and counts it.
func (t *rtcTransport) write(w io.Writer, b []byte) {
	if _, err := w.Write(b); err != nil {
		t.c.sendErrors.Add(1)
		return
	}
	t.c.packetsSent.Add(1)
	t.c.bytesSent.Add(uint64(len(b)))
}

// Receive copies the oldest received datagram of the next peer in turn into
// buf (peers are taken round robin, so one peer's flood cannot delay
// another's datagrams). It never blocks.
func (t *rtcTransport) Receive(buf []byte) (int, transport.Peer, error) {
	t.mu.RLock()
	closed := t.closed
	t.mu.RUnlock()
	if closed {
		return 0, "", transport.ErrClosed
	}
	return t.rc.Pop(t.q, buf)
}

// Expect names the peers whose datagrams Receive returns (see
// transport.Expecter): from now on the read loop of any other peer drops
// what it reads before it takes a queue slot, and that peer's datagrams
// still waiting are dropped; both count in Stats.ReceivesUnexpected. Each
// call replaces the last; with no peers nothing is received. Connections
// are unaffected: to choose whom to connect to, see Config.Accept.
func (t *rtcTransport) Expect(peers ...transport.Peer) {
	t.rc.Expect(t.q, peers)
}

// ExpectAnyone makes Receive return every peer's datagrams again (see
// transport.Expecter), as before the first Expect, until the next Expect.
// The lanes keep each peer to its share of the queue meanwhile.
func (t *rtcTransport) ExpectAnyone() { t.q.ExpectAnyone() }

// Peers appends the peers whose data channel is open to dst, sorted, and
// returns the extended slice.
func (t *rtcTransport) Peers(dst []transport.Peer) []transport.Peer {
	return t.set.Peers(dst)
}

// WaitPeers blocks until at least n peers have an open data channel and
// returns them, sorted. It fails with ctx's error, or transport.ErrClosed.
func (t *rtcTransport) WaitPeers(ctx context.Context, n int) ([]transport.Peer, error) {
	return t.set.WaitPeers(ctx, n)
}

// Events appends the peer events since the last call to dst and returns the
// extended slice (see transport.PeerSet): PeerConnected when a peer's data
// channel opens; PeerInterrupted when nothing came from it for
// Config.Tuning.ICEDisconnectedTimeout, PeerResumed when it is heard again;
// PeerGone, after Config.Tuning.ICEFailedTimeout more or when it closed or left,
// with Err ErrICEFailed, transport.ErrPeerClosed, ErrPeerLeft, ErrOversizeMessage or
// an error wrapping ErrSignaling. Events are kept up to a bound (4 per peer slot); past it
// they are dropped and counted in Stats.EventsDropped.
func (t *rtcTransport) Events(dst []transport.PeerEvent) []transport.PeerEvent {
	return t.set.Events(dst)
}

// signalingErr is nil while the signaling server connection is up, and
// why it ended (the client's Err, or io.EOF) once it did. Open data
// channels outlive it; new peers can no longer connect.
func (t *rtcTransport) signalingErr() error {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.sigErr
}

// Stats returns the counters.
func (t *rtcTransport) Stats() Stats {
	t.mu.RLock()
	dropped := t.set.DroppedLocked()
	t.mu.RUnlock()
	return Stats{
		PacketsSent:        t.c.packetsSent.Load(),
		BytesSent:          t.c.bytesSent.Load(),
		PacketsReceived:    t.rc.PacketsReceived.Load(),
		BytesReceived:      t.rc.BytesReceived.Load(),
		SendsSkipped:       t.c.sendsSkipped.Load(),
		SendsSuperseded:    t.c.sendsSuperseded.Load(),
		SendsStale:         t.c.sendsStale.Load(),
		SendsNotOpen:       t.c.sendsNotOpen.Load(),
		SendErrors:         t.c.sendErrors.Load(),
		ReceivesDropped:    t.rc.Dropped.Load(),
		ReceivesUnexpected: t.rc.Unexpected.Load(),
		PeersRefused:       t.c.peersRefused.Load(),
		OffersSkipped:      t.c.offersSkipped.Load(),
		ReceivesShort:      t.rc.Short.Load(),
		SignalsInvalid:     t.c.signalsInvalid.Load(),
		SignalErrors:       t.c.signalErrors.Load(),
		EventsDropped:      dropped,
	}
}

// Close closes every peer connection, stops reading the signaling server (and
// closes it if the Transport dialed it) and waits for every goroutine the
// Transport started. It is idempotent.
func (t *rtcTransport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.set.NotifyLocked()
	t.mu.Unlock()

	t.cancel()
	<-t.loopDone // no peer is created after this

	t.mu.RLock()
	conns := make([]*conn, 0, len(t.peers))
	for _, p := range t.peers {
		if p.c != nil {
			conns = append(conns, p.c)
		}
	}
	t.mu.RUnlock()
	var errs []error
	for _, c := range conns {
		if err := c.closeGracefully(); err != nil {
			errs = append(errs, err)
		}
	}
	if t.owned != nil {
		if err := t.owned.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	t.wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("webrtc: close: %w", err)
	}
	return nil
}

// emitLocked records a peer event. t.mu must be held for writing.
func (t *rtcTransport) emitLocked(e transport.PeerEvent) { t.set.EmitLocked(e) }

// open reports whether p's data channel is open. Transport.mu must be held.
func (p *peer) open() bool { return p.rw != nil && p.gone == nil }

var (
	_ transport.Transport  = (*rtcTransport)(nil)
	_ transport.Expecter   = (*rtcTransport)(nil)
	_ transport.PeerSet    = (*rtcTransport)(nil)
	_ transport.BulkSender = (*rtcTransport)(nil)
)
