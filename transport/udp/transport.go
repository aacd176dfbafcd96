package udp

import (
	"context"
	"crypto/cipher"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rollnet/rollnet/internal/recvqueue"
	"github.com/rollnet/rollnet/internal/sendqueue"
	"github.com/rollnet/rollnet/internal/tokenverify"
	"github.com/rollnet/rollnet/transport"
)

// connState is a connection's place in its life.
type connState uint32

const (
	// stateHandshake: a client's connection to its host, keys agreed,
	// nothing authentic heard from the host yet.
	stateHandshake connState = iota
	// statePending: a host's client, admitted (its token redeemed), not
	// yet heard under its keys.
	statePending
	// stateConnected: heard under its keys; Send reaches it.
	stateConnected
	// stateGone: timed out, disconnected, evicted, replaced or closed.
	stateGone
)

// conn is one connection: a host has one a client, a client one to its
// host.
type conn struct {
	id         transport.Peer
	addr       netip.AddrPort
	send, recv cipher.AEAD
	seq        atomic.Uint64 // the last sequence number sealed
	lastSent   atomic.Int64  // the clock's nanoseconds
	lastRecv   atomic.Int64
	since      int64 // admitted (host) or dialed (client)
	state      atomic.Uint32

	// Read and written under Transport.rmu only.
	win       window
	lane      *recvqueue.Lane
	recvNonce [12]byte

	sendNonce [12]byte // under Transport.out.mu

	// The round trip of its own (ping and pong): the stamp of the ping
	// waiting for its pong (0: none), the smoothed round trip (ns, 0
	// until measured), when housekeep last pinged (the clock's ns, under
	// Transport.hk), and the payloads' scratch (ping's under
	// Transport.hk, pong's under Transport.rmu).
	pingStamp atomic.Uint64
	rtt       atomic.Int64
	lastPing  int64
	pingBuf   [pingSize]byte
	pongBuf   [pongSize]byte

	// Host: the salts of the response that admitted it, to answer a
	// repeated response with a keep-alive.
	clientSalt [saltSize]byte
	hostSalt   uint64
}

func (c *conn) is(s connState) bool { return connState(c.state.Load()) == s }

// Transport is a host (Listen) or a client (Dial): a
// transport.Transport, transport.PeerSet, transport.BulkSender and
// transport.Expecter (their documentation is the contract; see the package
// documentation for this transport's rules), with its own calls below.
//
// What the contract leaves to a transport, this one does so:
//   - Local is "udp://" and the host's address on a host, "client-" and
//     the token's client id on a client.
//   - Send seals b for to and queues it for the socket; it never blocks. A
//     datagram that finds Config.SendQueueLen waiting supersedes the
//     oldest waiting one to the same peer of its kind (its first byte: a
//     rollnet message's type), because the newest state or input matters,
//     not the first (Stats.SendsSuperseded); with none of its kind waiting
//     it pushes out the oldest waiting datagram (Stats.SendsStale). A
//     datagram that waited 250 ms is dropped as stale by the write loop.
//     SendBulk takes b only while fewer than half of Config.SendQueueLen
//     wait, so that a catch-up leaves room for the frame's own datagrams;
//     a bulk datagram is never superseded, pushed out nor aged.
//   - Receive takes the peers round robin. Events keeps the latest
//     4*MaxPeers events, the oldest dropped first past that.
//   - Close sends every live connection a disconnect (three times,
//     sealed), closes the socket and waits for the transport's goroutines.
type Transport interface {
	transport.Transport
	transport.PeerSet
	transport.BulkSender
	transport.Expecter

	// Host is a client's host: "udp://" and the grant's address.
	Host() transport.Peer
	// LocalAddr is the socket's address.
	LocalAddr() net.Addr
	// Stats returns the counters.
	Stats() Stats
}

// udpTransport is the Transport Listen and Dial return.
type udpTransport struct {
	cfg   Config
	epoch time.Time // mono's zero
	host  bool
	local transport.Peer
	bc    *batchConn

	mu      sync.RWMutex
	closed  bool
	isDone  atomic.Bool
	peers   map[transport.Peer]*conn  // connected, and gone ones still known
	byAddr  map[netip.AddrPort]*conn  // every live connection
	pending []*conn                   // host: pending, oldest first
	perIP   map[netip.Addr]int        // host: live connections an IP holds
	set     *recvqueue.PeerSet[*conn] // Peers, WaitPeers, Events
	hk      sync.Mutex                // one housekeep at a time
	ka      []*conn                   // housekeep's scratch, under hk: keep-alives
	pings   []*conn                   // and pings
	q       *recvqueue.Queue
	rc      recvqueue.Counters

	out struct {
		mu        sync.Mutex
		cur, next *batch
	}
	wake, stop chan struct{}
	wg         sync.WaitGroup

	// The read side: the read loop and Receive's poll read under rmu,
	// into rb. lastPoll is when Receive last read the socket (mono);
	// while it reads, the read loop waits (yielding) for resume.
	rmu      sync.Mutex
	rb       *batch
	lastPoll atomic.Int64
	yielding atomic.Bool
	resume   chan struct{}

	c counters

	// Host.
	tokens *tokenverify.Verifier
	cookie cipher.AEAD
	ctr    atomic.Uint64 // the last host salt

	// Client.
	cl *clientState
}

// counters are Stats' sources.
type counters struct {
	packetsSent, bytesSent, sendErrors                    atomic.Uint64
	sendsSkipped, sendsSuperseded, sendsStale             atomic.Uint64
	malformed, forged, replayed, unknownAddr, oversize    atomic.Uint64
	versionRefused, tokensRefused, cookiesRefused         atomic.Uint64
	challenges, admitted, evicted, deniedAddr, deniedFull atomic.Uint64
	timedOut                                              atomic.Uint64
}

// Stats counts a Transport's traffic and what it refused. All only grow.
type Stats struct {
	// PacketsSent and BytesSent count packets handed to the socket
	// (sealed, with overhead), SendErrors those the kernel refused.
	PacketsSent, BytesSent, SendErrors uint64
	// SendsSuperseded counts datagrams never sent because a newer one of
	// their kind (to the same peer, with the same first byte: a rollnet
	// message's type) was sent while Config.SendQueueLen packets waited.
	// SendsStale counts datagrams dropped unsent for their age: pushed
	// out of a full queue by a datagram of another kind, or found waiting
	// since more than 250 ms by the write loop. SendsSkipped counts
	// datagrams SendBulk refused because half of Config.SendQueueLen
	// waited, and those refused because the queue was full of packets
	// that are never dropped (bulk, control and handshake packets).
	SendsSuperseded, SendsStale, SendsSkipped uint64
	// PacketsReceived and BytesReceived count datagrams queued for
	// Receive (the session's bytes); Dropped those a full queue refused
	// or displaced; Unexpected those of peers Expect left out.
	PacketsReceived, BytesReceived, Dropped, Unexpected uint64
	// Malformed counts packets of no known layout or size (oversized
	// ones included), Forged sealed packets or handshake tags that did
	// not open under their keys, Replayed sealed packets whose sequence
	// number was seen or is older than the replay window, UnknownAddr
	// sealed packets from an address with no connection.
	Malformed, Forged, Replayed, UnknownAddr uint64
	// Host: VersionRefused counts requests of another version,
	// TokensRefused connect tokens the verifier refused,
	// CookiesRefused responses whose cookie was forged, expired or for
	// another address, Challenges the challenges sent, Admitted the
	// clients admitted, Evicted pending clients dropped for newer ones,
	// DeniedAddr and DeniedFull clients refused because their address
	// held its share or the host was full.
	VersionRefused, TokensRefused, CookiesRefused         uint64
	Challenges, Admitted, Evicted, DeniedAddr, DeniedFull uint64
	// TimedOut counts connections dropped for silence.
	TimedOut uint64
}

// Stats returns the counters.
func (t *udpTransport) Stats() Stats {
	c := &t.c
	return Stats{
		PacketsSent: c.packetsSent.Load(), BytesSent: c.bytesSent.Load(),
		SendErrors:      c.sendErrors.Load(),
		SendsSuperseded: c.sendsSuperseded.Load(), SendsStale: c.sendsStale.Load(), SendsSkipped: c.sendsSkipped.Load(),
		PacketsReceived: t.rc.PacketsReceived.Load(), BytesReceived: t.rc.BytesReceived.Load(),
		Dropped: t.rc.Dropped.Load(), Unexpected: t.rc.Unexpected.Load(),
		Malformed: c.malformed.Load() + c.oversize.Load(), Forged: c.forged.Load(),
		Replayed: c.replayed.Load(), UnknownAddr: c.unknownAddr.Load(),
		VersionRefused: c.versionRefused.Load(), TokensRefused: c.tokensRefused.Load(),
		CookiesRefused: c.cookiesRefused.Load(), Challenges: c.challenges.Load(),
		Admitted: c.admitted.Load(), Evicted: c.evicted.Load(),
		DeniedAddr: c.deniedAddr.Load(), DeniedFull: c.deniedFull.Load(),
		TimedOut: c.timedOut.Load(),
	}
}

func newTransport(cfg Config, host bool, udp *net.UDPConn, local transport.Peer) (*udpTransport, error) {
	bc, err := newBatchConn(udp, cfg.Tuning.Batch)
	if err != nil {
		return nil, err
	}
	t := &udpTransport{
		cfg: cfg, epoch: time.Now(), host: host, local: local, bc: bc,
		peers:  make(map[transport.Peer]*conn),
		byAddr: make(map[netip.AddrPort]*conn),
		perIP:  make(map[netip.Addr]int),
		q:      recvqueue.New(cfg.QueueLen),
		wake:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		resume: make(chan struct{}, 1),
		rb:     newBatch(cfg.Tuning.Batch, readBufSize),
	}
	t.set = recvqueue.NewPeerSet(&t.mu, &t.closed, t.peers, func(c *conn) bool { return c.is(stateConnected) }, 4*cfg.MaxPeers, true)
	t.out.cur = newSendBatch(cfg.SendQueueLen)
	t.out.next = newSendBatch(cfg.SendQueueLen)
	return t, nil
}

// start runs the read, write and housekeeping loops.
func (t *udpTransport) start() {
	t.wg.Add(3)
	go t.readLoop()
	go t.writeLoop()
	go t.timerLoop()
}

func (t *udpTransport) now() int64 { return t.cfg.Now().UnixNano() }

// mono is the send queue's clock, the real one whatever Config.Now is:
// nanoseconds since the Transport was made.
func (t *udpTransport) mono() int64 { return int64(time.Since(t.epoch)) }

// Local is this endpoint's identity: "udp://" and the host's address on
// a host, "client-" and the token's client id on a client.
func (t *udpTransport) Local() transport.Peer { return t.local }

// Send seals b for to and queues it for the socket; it never blocks. A
// datagram that finds Config.SendQueueLen waiting supersedes the oldest
// waiting one to the same peer of its kind (its first byte: a rollnet
// message's type), because the newest state or input matters, not the
// first (Stats.SendsSuperseded); with none of its kind waiting it pushes
// out the oldest waiting datagram (Stats.SendsStale). A datagram that
// waited 250 ms is dropped as stale by the write loop.
func (t *udpTransport) Send(to transport.Peer, b []byte) error {
	_, err := t.send(to, b, false)
	return err
}

// SendBulk is Send for a burst: it takes b only while fewer than half of
// Config.SendQueueLen wait, so that a catch-up leaves room for the
// frame's own datagrams, and says whether it did. A bulk datagram is
// never superseded, pushed out nor aged.
func (t *udpTransport) SendBulk(to transport.Peer, b []byte) (bool, error) {
	return t.send(to, b, true)
}

func (t *udpTransport) send(to transport.Peer, b []byte, bulk bool) (bool, error) {
	if t.isDone.Load() {
		return false, transport.ErrClosed
	}
	if len(b) > transport.MaxDatagram {
		return false, transport.ErrTooLarge
	}
	t.mu.RLock()
	c := t.peers[to]
	t.mu.RUnlock()
	if c == nil {
		return false, transport.ErrUnknownPeer
	}
	if !c.is(stateConnected) {
		return false, transport.ErrPeerGone
	}
	how := sendPayload
	if bulk {
		how = sendBulk
	}
	return t.sendSealed(c, kindPayload, b, how), nil
}

// sendHow is how sendSealed queues a packet.
type sendHow uint8

const (
	// sendPayload: Send's datagram. When Config.SendQueueLen packets
	// wait it supersedes the oldest payload of c of its kind or pushes
	// out the oldest payload (batch.makeRoom).
	sendPayload sendHow = iota
	// sendBulk: SendBulk's, skipped when half of Config.SendQueueLen
	// wait; never removed once queued.
	sendBulk
	// sendControl: a keep-alive, disconnect or denied packet; it pushes
	// out the oldest payload of a full queue, and is never removed.
	sendControl
)

// sendSealed seals p as a packet of kind for c and queues it as how says;
// a packet that finds no room is skipped (Stats.SendsSkipped). It reports
// whether p was queued.
func (t *udpTransport) sendSealed(c *conn, kind byte, p []byte, how sendHow) bool {
	var first byte
	if len(p) > 0 {
		first = p[0]
	}
	o := &t.out
	o.mu.Lock()
	bt := o.cur
	if how == sendBulk && bt.n >= t.cfg.SendQueueLen/2 ||
		bt.n >= t.cfg.SendQueueLen && !t.makeRoomLocked(bt, c, first, how == sendPayload && len(p) > 0) {
		o.mu.Unlock()
		t.c.sendsSkipped.Add(1)
		return false
	}
	pkt := sealPacket(bt.bufs[bt.n][:0], c.send, &c.sendNonce, kind, c.seq.Add(1), p)
	bt.lens[bt.n], bt.addrs[bt.n] = len(pkt), c.addr
	bt.out[bt.n] = outMeta{c: c, at: t.mono(), kind: first, payload: how == sendPayload}
	bt.n++
	o.mu.Unlock()
	c.lastSent.Store(t.now())
	t.kick()
	return true
}

// makeRoomLocked makes room for a packet of c in a full batch and counts
// what it removed (batch.makeRoom); with ofKind, one of c of kind is
// superseded first. t.out.mu must be held.
func (t *udpTransport) makeRoomLocked(bt *batch, c *conn, kind byte, ofKind bool) bool {
	superseded, stale := bt.makeRoom(c, kind, ofKind)
	switch {
	case superseded:
		t.c.sendsSuperseded.Add(1)
	case stale:
		t.c.sendsStale.Add(1)
	default:
		return false
	}
	return true
}

// sendRaw queues a handshake packet for to.
func (t *udpTransport) sendRaw(to netip.AddrPort, build func(b []byte) []byte) bool {
	o := &t.out
	o.mu.Lock()
	bt := o.cur
	if bt.n >= len(bt.bufs) && !t.makeRoomLocked(bt, nil, 0, false) {
		o.mu.Unlock()
		t.c.sendsSkipped.Add(1)
		return false
	}
	pkt := build(bt.bufs[bt.n][:0])
	bt.lens[bt.n], bt.addrs[bt.n] = len(pkt), to
	bt.out[bt.n] = outMeta{at: t.mono()}
	bt.n++
	o.mu.Unlock()
	t.kick()
	return true
}

func (t *udpTransport) kick() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// Receive copies the next waiting datagram into buf, the peers taken
// round robin. It reads the socket itself when nothing waits, or when it
// last did pollEvery ago; while it is called, the read loop waits (see
// readLoop), so that a datagram costs no goroutine's wake-up.
func (t *udpTransport) Receive(buf []byte) (int, transport.Peer, error) {
	if t.isDone.Load() {
		return 0, "", transport.ErrClosed
	}
	n, from, err := t.rc.Pop(t.q, buf)
	if pollable && (err == transport.ErrNoPacket || t.mono()-t.lastPoll.Load() >= int64(pollEvery)) {
		if t.poll() && err == transport.ErrNoPacket {
			n, from, err = t.rc.Pop(t.q, buf)
		}
	}
	return n, from, err
}

// pollEvery is how often Receive reads the socket while datagrams wait
// in its queue, so that the socket's are not left behind a consumer that
// takes fewer than arrive.
const pollEvery = time.Millisecond

// poll reads and handles what waits at the socket, unless the read loop
// is reading; it reports whether it read anything.
func (t *udpTransport) poll() bool {
	if !t.rmu.TryLock() {
		return false
	}
	defer t.rmu.Unlock()
	t.lastPoll.Store(t.mono())
	got := false
	for {
		if err := t.bc.poll(t.rb); err != nil || t.rb.n == 0 {
			return got
		}
		got = true
		t.handleBatch()
		if t.rb.n < len(t.rb.bufs) {
			return true
		}
	}
}

// handleBatch handles the packets read into rb; rmu must be held.
func (t *udpTransport) handleBatch() {
	rb := t.rb
	for i := range rb.n {
		t.handle(rb.bufs[i][:rb.lens[i]], rb.addrs[i], rb.stamps[i])
	}
}

// Expect implements transport.Expecter.
func (t *udpTransport) Expect(peers ...transport.Peer) { t.rc.Expect(t.q, peers) }

// ExpectAnyone implements transport.Expecter.
func (t *udpTransport) ExpectAnyone() { t.q.ExpectAnyone() }

// Peers implements transport.PeerSet.
func (t *udpTransport) Peers(dst []transport.Peer) []transport.Peer { return t.set.Peers(dst) }

// WaitPeers implements transport.PeerSet.
func (t *udpTransport) WaitPeers(ctx context.Context, n int) ([]transport.Peer, error) {
	return t.set.WaitPeers(ctx, n)
}

// Events implements transport.PeerSet. It keeps the latest 4*MaxPeers
// events, the oldest dropped first past that.
func (t *udpTransport) Events(dst []transport.PeerEvent) []transport.PeerEvent {
	return t.set.Events(dst)
}

// LocalAddr is the socket's address.
func (t *udpTransport) LocalAddr() net.Addr { return t.bc.local }

// Close sends every live connection a disconnect (three times, sealed),
// closes the socket and waits for the transport's goroutines.
func (t *udpTransport) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.isDone.Store(true)
	for _, c := range t.byAddr {
		if c.is(stateConnected) || c.is(statePending) {
			for range 3 {
				t.sendSealed(c, kindDisconnect, nil, sendControl)
			}
		}
		c.state.Store(uint32(stateGone))
	}
	t.set.NotifyLocked()
	t.mu.Unlock()
	if t.cl != nil {
		t.cl.fail(transport.ErrClosed)
	}
	close(t.stop) // the writer flushes the disconnects first
	t.wg.Wait()
	return nil
}

// readLoop reads batches and handles each packet, while Receive does
// not: from a read after which Receive was seen reading the socket within
// yieldFor, it waits until the timer loop sees Receive stop (resume).
func (t *udpTransport) readLoop() {
	defer t.wg.Done()
	polling := func() bool { return pollable && t.mono()-t.lastPoll.Load() < int64(t.yieldFor()) }
	for {
		if polling() {
			t.yielding.Store(true)
			select {
			case <-t.stop:
				return
			case <-t.resume:
			}
			t.yielding.Store(false)
			continue
		}
		if err := t.bc.read(t.rb, &t.rmu, polling); err != nil {
			if errors.Is(err, net.ErrClosed) || t.isDone.Load() {
				return
			}
			continue
		}
		t.handleBatch()
		t.rmu.Unlock()
	}
}

// yieldFor is how long after Receive last read the socket the read loop
// leaves it to Receive: two of the timer loop's periods.
func (t *udpTransport) yieldFor() time.Duration { return 2 * t.cfg.Tuning.Housekeep }

// writeLoop hands the queued packets to the socket, a batch at a time.
func (t *udpTransport) writeLoop() {
	defer t.wg.Done()
	defer t.bc.close() // after the last flush: the read loop then ends
	for {
		stopping := false
		select {
		case <-t.wake:
		case <-t.stop:
			stopping = true
		}
		t.flushOut()
		if stopping {
			return
		}
	}
}

// flushOut hands the packets queued now to the socket, those that waited
// sendqueue.MaxAge dropped as stale.
func (t *udpTransport) flushOut() {
	o := &t.out
	o.mu.Lock()
	bt := o.cur
	o.cur, o.next = o.next, bt
	o.mu.Unlock()
	if stale := bt.dropStale(t.mono() - int64(sendqueue.MaxAge)); stale > 0 {
		t.c.sendsStale.Add(uint64(stale))
	}
	if bt.n == 0 {
		return
	}
	failed, err := t.bc.write(bt)
	sent := bt.n - failed
	if err != nil {
		sent = 0
	}
	t.c.sendErrors.Add(uint64(bt.n - sent))
	t.c.packetsSent.Add(uint64(sent))
	var bytes int
	for i := range bt.n {
		bytes += bt.lens[i]
	}
	t.c.bytesSent.Add(uint64(bytes))
	clear(bt.out[:bt.n]) // no connection kept alive by the batch
	bt.n = 0
}

// handle takes one packet from from, which the kernel received at at
// (the real clock's Unix nanoseconds; 0 when not known).
func (t *udpTransport) handle(b []byte, from netip.AddrPort, at int64) {
	if len(b) == 0 || len(b) > maxPacket {
		t.c.oversize.Add(1)
		return
	}
	switch b[0] {
	case kindPayload, kindKeepAlive, kindDisconnect, kindDenied, kindPing, kindPong:
		t.handleSealed(b, from, at)
	case kindRequest:
		if t.host {
			t.handleRequest(b, from)
			return
		}
		t.c.malformed.Add(1)
	case kindResponse:
		if t.host {
			t.handleResponse(b, from)
			return
		}
		t.c.malformed.Add(1)
	case kindChallenge, kindVersion:
		if !t.host {
			t.cl.handleHandshake(t, b, from)
			return
		}
		t.c.malformed.Add(1)
	default:
		t.c.malformed.Add(1)
	}
}

// handleSealed opens a sealed packet from a connection's address.
func (t *udpTransport) handleSealed(b []byte, from netip.AddrPort, at int64) {
	kind, seq, err := parseSealed(b)
	if err != nil {
		t.c.malformed.Add(1)
		return
	}
	t.mu.RLock()
	c := t.byAddr[from]
	t.mu.RUnlock()
	if c == nil || c.is(stateGone) {
		t.c.unknownAddr.Add(1)
		return
	}
	if !c.win.fresh(seq) {
		t.c.replayed.Add(1)
		return
	}
	p, err := openPacket(b, c.recv, &c.recvNonce, seq)
	if err != nil {
		t.c.forged.Add(1)
		return
	}
	c.win.mark(seq)
	c.lastRecv.Store(t.now())
	switch {
	case c.is(statePending):
		t.confirm(c)
	case c.is(stateHandshake):
		if kind == kindDenied {
			t.cl.fail(deniedError(p))
			return
		}
		t.cl.established(t, c)
	}
	switch kind {
	case kindPayload:
		if c.is(stateConnected) {
			t.rc.Received(t.q, c.lane, p)
		}
	case kindDisconnect:
		t.mu.Lock()
		t.dropLocked(c, transport.ErrPeerClosed, false)
		t.mu.Unlock()
	case kindDenied:
		if !t.host && c.is(stateConnected) {
			t.mu.Lock()
			t.dropLocked(c, deniedError(p), false)
			t.mu.Unlock()
		}
	case kindPing:
		stamp, err := parsePing(p)
		switch {
		case err != nil:
			t.c.malformed.Add(1)
		case c.is(stateConnected):
			t.sendSealed(c, kindPong, appendPong(c.pongBuf[:0], stamp, waited(at)), sendControl)
		}
	case kindPong:
		t.pong(c, p, at)
	}
}

// pingEvery is how often each side pings a connected peer.
const pingEvery = time.Second

// ping sends c a ping stamped with now (the clock's ns); the pong that
// echoes the stamp gives a round trip. An unanswered ping is forgotten.
// Transport.hk must be held.
func (t *udpTransport) ping(c *conn, now int64) {
	c.lastPing = now
	c.pingStamp.Store(uint64(now))
	t.sendSealed(c, kindPing, appendPing(c.pingBuf[:0], uint64(now)), sendControl)
}

// pong takes c's answer to the ping waiting, which arrived at at: the
// round trip is the time since its stamp (by Config.Now), less what the
// ping waited at the peer before it was read and answered, and what the
// pong waited here (by the kernel's receive times), so that neither
// end's frame loop is in it. It is smoothed as TCP's and QUIC's are (a
// new sample weighs 1/8). A pong for no ping waiting (late, or for a
// ping since replaced) is ignored.
func (t *udpTransport) pong(c *conn, p []byte, at int64) {
	stamp, held, err := parsePong(p)
	if err != nil {
		t.c.malformed.Add(1)
		return
	}
	if stamp == 0 || !c.pingStamp.CompareAndSwap(stamp, 0) {
		return
	}
	rtt := time.Duration(t.now()-int64(stamp)) - held - waited(at)
	if rtt <= 0 {
		return // a clock stepped back, or a peer's wait longer than the round trip
	}
	if old := c.rtt.Load(); old != 0 {
		rtt = time.Duration(old) + (rtt-time.Duration(old))/8
	}
	c.rtt.Store(int64(rtt))
}

// waited is how long a packet the kernel received at at (Unix ns, 0 when
// not known) waited before it was handled.
func waited(at int64) time.Duration {
	if at == 0 {
		return 0
	}
	return max(time.Duration(time.Now().UnixNano()-at), 0)
}

// dropLocked ends c for reason; with notify it tells the peer (sealed).
// t.mu must be held for writing.
func (t *udpTransport) dropLocked(c *conn, reason error, notify bool) {
	was := connState(c.state.Swap(uint32(stateGone)))
	if was == stateGone {
		return
	}
	if notify && (was == stateConnected || was == statePending) {
		if errors.Is(reason, ErrEvicted) {
			t.sendSealed(c, kindDenied, []byte{deniedEvicted}, sendControl)
		} else {
			t.sendSealed(c, kindDisconnect, nil, sendControl)
		}
	}
	if t.byAddr[c.addr] == c {
		delete(t.byAddr, c.addr)
		if t.host {
			ip := c.addr.Addr()
			if t.perIP[ip]--; t.perIP[ip] <= 0 {
				delete(t.perIP, ip)
			}
		}
	}
	if was == statePending {
		for i, p := range t.pending {
			if p == c {
				t.pending = append(t.pending[:i], t.pending[i+1:]...)
				break
			}
		}
	}
	if was == stateConnected && t.peers[c.id] == c {
		t.q.Forget(c.id)
		t.set.EmitLocked(transport.PeerEvent{Kind: transport.PeerGone, Peer: c.id, Err: reason})
	}
}

// pruneLocked forgets the oldest-known gone peers past 2*MaxPeers, so that
// Send to them is ErrUnknownPeer rather than ErrPeerGone: what a host
// remembers stays bounded.
func (t *udpTransport) pruneLocked() {
	if len(t.peers) <= 2*t.cfg.MaxPeers {
		return
	}
	for id, c := range t.peers {
		if c.is(stateGone) {
			delete(t.peers, id)
			if len(t.peers) <= t.cfg.MaxPeers {
				return
			}
		}
	}
}

// timerLoop runs housekeep on the real clock's ticks.
func (t *udpTransport) timerLoop() {
	defer t.wg.Done()
	tick := time.NewTicker(t.cfg.Tuning.Housekeep)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
			if t.yielding.Load() && t.mono()-t.lastPoll.Load() >= int64(t.yieldFor()) {
				select {
				case t.resume <- struct{}{}:
				default:
				}
			}
			t.housekeep()
		}
	}
}

// housekeep drops silent connections, sends keep-alives and repeats a
// client's handshake, by the Config's clock.
func (t *udpTransport) housekeep() {
	t.hk.Lock()
	defer t.hk.Unlock()
	now := t.now()
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return
	}
	t.ka, t.pings = t.ka[:0], t.pings[:0]
	for _, c := range t.byAddr {
		switch connState(c.state.Load()) {
		case statePending:
			if now-c.since > int64(t.cfg.PendingTimeout) {
				t.c.timedOut.Add(1)
				t.dropLocked(c, ErrTimeout, false)
				continue
			}
		case stateConnected:
			if now-c.lastRecv.Load() > int64(t.cfg.Timeout) {
				t.c.timedOut.Add(1)
				t.dropLocked(c, ErrTimeout, true)
				continue
			}
			if c.lastPing == 0 || now-c.lastPing >= int64(pingEvery) {
				t.pings = append(t.pings, c)
				continue // the ping keeps it alive
			}
		default:
			continue
		}
		if now-c.lastSent.Load() >= int64(t.cfg.KeepAlive) {
			t.ka = append(t.ka, c)
		}
	}
	t.pruneLocked()
	t.mu.Unlock()
	for _, c := range t.ka {
		t.sendSealed(c, kindKeepAlive, nil, sendControl)
	}
	for _, c := range t.pings {
		t.ping(c, now)
	}
	if t.cl != nil {
		t.cl.housekeep(t, now)
	}
}

var (
	_ transport.Transport  = (*udpTransport)(nil)
	_ transport.PeerSet    = (*udpTransport)(nil)
	_ transport.Expecter   = (*udpTransport)(nil)
	_ transport.BulkSender = (*udpTransport)(nil)
	_ transport.HostDialer = Dialer{}
)
