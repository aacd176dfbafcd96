package link

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/elapsed"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/transport"
)

// Endpoint is this end of every link: the transport, the clock, the links,
// the packet buffers and the events. Its owner (a P2P session, a
// spectator, an authoritative host or client) drives it once per tick:
//
//	e.Clock()
//	for { l, typ, b, ok := e.Receive(); if !ok { break }
//		switch typ { // the handshake, then the link's own messages, then the owner's
//		case wire.TypeSyncRequest, wire.TypeSyncReply: e.HandleSync(l, typ, b); continue }
//		if l.State() != Running || e.HandleCommon(l, typ, b) { continue }
//		... the owner's payload messages, e.RemoteChecksum for TypeChecksum
//	}
//	for _, l := range e.Links() { e.Tick(l) }
//	... the owner's payload: b := m.Append(e.Buffer()); e.Send(l, b)
//	e.KeepAlive(l, l.LocalAdv)
//
// An Endpoint is not safe for concurrent use.
type Endpoint struct {
	tr       transport.Transport
	bulk     transport.BulkSender // tr, if it is one
	net      Settings
	protocol uint16
	start    elapsed.Origin // when the endpoint was made
	t        int64          // nanoseconds since start, read once per poll
	links    []*Link
	byPeer   map[transport.Peer]int
	lastFrom transport.Peer // the sender Receive found last in byPeer ("" none), and its index:
	lastIdx  int            // a peer's datagrams come in runs, and a map lookup hashes the name
	out      []byte
	in       []byte
	events   EventQueue
	unknown  uint64
	strange  bool           // Receive returns strangers' Rejoin packets (AdmitStrangers)
	from     transport.Peer // the sender of the packet Receive returned last
	failErr  error
	desyncs  uint64 // desyncs reported (Desyncs)
	closed   bool
	maxAdv   int32
}

// NewEndpoint returns an endpoint over tr with settings n, whose handshake
// requires protocol (the owner's protocol version) at both ends.
func NewEndpoint(tr transport.Transport, n Settings, protocol uint16) Endpoint {
	bulk, _ := tr.(transport.BulkSender)
	return Endpoint{
		tr:       tr,
		bulk:     bulk,
		net:      n,
		protocol: protocol,
		start:    elapsed.From(n.Now()),
		byPeer:   make(map[transport.Peer]int),
		out:      make([]byte, 0, wire.MaxPacket),
		in:       make([]byte, transport.MaxDatagram),
		events:   NewEventQueue(256),
		maxAdv:   1<<20 - 1,
	}
}

// SetMaxAdvantage bounds the frame advantage a peer's quality report may
// claim: a report beyond ±n frames (more than the owner's window allows,
// so forged) is dropped as malformed. The default is 2^20-1.
func (e *Endpoint) SetMaxAdvantage(n int32) { e.maxAdv = n }

// AddLink adds l; a *ConfigError for a peer that is this endpoint, empty
// or already linked.
func (e *Endpoint) AddLink(l *Link) error {
	if l.Peer == "" || l.Peer == e.tr.Local() {
		return configError("peer %q is this endpoint or empty", l.Peer)
	}
	if _, dup := e.byPeer[l.Peer]; dup {
		return configError("peer %q listed twice", l.Peer)
	}
	l.index = len(e.links)
	e.byPeer[l.Peer] = len(e.links)
	e.links = append(e.links, l)
	return nil
}

// ReplaceLink puts l in place of the link at index i (a peer linked again
// after it left or failed), keeping i.
func (e *Endpoint) ReplaceLink(i int, l *Link) {
	l.index = i
	e.links[i] = l
}

// Links returns the links in the order they were added.
func (e *Endpoint) Links() []*Link { return e.links }

// Lookup returns the index of peer's link.
func (e *Endpoint) Lookup(peer transport.Peer) (int, bool) {
	i, ok := e.byPeer[peer]
	return i, ok
}

// Settings returns the resolved settings.
func (e *Endpoint) Settings() *Settings { return &e.net }

// Clock reads the clock; call it once per tick, before Receive.
func (e *Endpoint) Clock() { e.t = e.start.Nanos(e.net.Now()) }

// Time is the time of the last Clock, in nanoseconds since the endpoint
// was made.
func (e *Endpoint) Time() int64 { return e.t }

// Err is the *SyncError of the first failed link that is not Optional, or
// nil.
func (e *Endpoint) Err() error { return e.failErr }

// Closed reports whether Close was called.
func (e *Endpoint) Closed() bool { return e.closed }

// Push queues an event of the owner's.
func (e *Endpoint) Push(ev rollnet.Event) { e.events.Push(ev) }

// Events appends every queued event to dst, oldest first.
func (e *Endpoint) Events(dst []rollnet.Event) []rollnet.Event { return e.events.Drain(dst) }

// Buffer returns the empty packet buffer (capacity wire.MaxPacket) to
// append a message to before Send.
func (e *Endpoint) Buffer() []byte { return e.out[:0] }

// Send sends b (built on Buffer, or any buffer of the owner's) to l; l's
// sequence number advances. A peer the transport reports gone is
// disconnected.
func (e *Endpoint) Send(l *Link, b []byte) {
	e.sent(l, b, e.tr.Send(l.Peer, b))
}

// sent accounts for b sent to l, the transport's answer err.
func (e *Endpoint) sent(l *Link, b []byte, err error) {
	l.seq++
	l.lastSend = e.t
	if err != nil {
		if errors.Is(err, transport.ErrPeerGone) && l.state == Running {
			e.Disconnect(l)
		}
		return
	}
	l.pktsSent++
	l.bytesSent += uint64(len(b))
	l.winSent += uint64(len(b))
}

// SendBulk is Send for a datagram of a bulk transfer: through the
// transport's SendBulk when it has one. It reports whether the transport
// took b (always, for a transport without SendBulk: as far as it knows).
func (e *Endpoint) SendBulk(l *Link, b []byte) bool {
	if e.bulk == nil {
		e.Send(l, b)
		return true
	}
	taken, err := e.bulk.SendBulk(l.Peer, b)
	e.sent(l, b, err)
	return taken && err == nil
}

// Disconnect drops l for good (EventDisconnected, once).
func (e *Endpoint) Disconnect(l *Link) {
	if l.state == Disconnected {
		return
	}
	l.state = Disconnected
	e.events.Push(rollnet.Event{Kind: rollnet.EventDisconnected, Peer: l.Peer})
}

// fail ends l's handshake for reason. A failed link fails the whole
// endpoint (Err) unless it is Optional, which is only reported.
func (e *Endpoint) fail(l *Link, reason string) {
	if l.state == Failed {
		return
	}
	l.state = Failed
	e.events.Push(rollnet.Event{Kind: rollnet.EventSyncFailed, Peer: l.Peer, Reason: reason})
	if e.failErr == nil && !l.Optional {
		e.failErr = &rollnet.SyncError{Peer: l.Peer, Reason: reason}
	}
}

// Receive reads the next datagram from a known peer. It returns the link,
// the message type and the packet; ok is false when nothing waits.
// Packets from unknown peers are counted and skipped, but for a Rejoin
// packet while AdmitStrangers is on: it is returned with a nil link (From
// names its sender). Packets whose header does not parse are counted as
// malformed (or fail a handshake with a peer of another wire version).
func (e *Endpoint) Receive() (l *Link, typ wire.Type, b []byte, ok bool) {
	for {
		n, from, err := e.tr.Receive(e.in)
		if err != nil {
			if err == transport.ErrNoPacket || errors.Is(err, transport.ErrNoPacket) || errors.Is(err, transport.ErrClosed) { // the first, every tick: errors.Is reflects on its target
				return nil, 0, nil, false
			}
			continue // a datagram too large for the buffer: dropped
		}
		e.from = from
		i, known := e.lastIdx, from == e.lastFrom && from != ""
		if !known {
			if i, known = e.byPeer[from]; known {
				e.lastFrom, e.lastIdx = from, i
			}
		}
		if !known {
			if e.strange {
				if t, _, _, err := wire.ParseHeader(e.in[:n]); err == nil && t == wire.TypeRejoin {
					return nil, t, e.in[:n], true
				}
			}
			e.unknown++
			continue
		}
		l = e.links[i]
		b = e.in[:n]
		t, seq, _, err := wire.ParseHeader(b)
		if l.state == Disconnected && (err != nil || t != wire.TypeRejoin) {
			continue // gone, unless it asks to come back
		}
		l.pktsRecv++
		l.bytesRecv += uint64(n)
		l.winRecv += uint64(n)
		if err != nil {
			if errors.Is(err, wire.ErrVersion) && l.state == Syncing {
				e.fail(l, ReasonWire)
			}
			l.malformed++
			continue
		}
		_ = seq // noted by Heard, once the packet proved valid
		return l, t, b, true
	}
}

// seqWindow is how far from the anchor (the sequence number of the newest
// packet that proved it came from the peer) a plausible packet's sequence
// number may be: forged packets with random sequence numbers land in it
// one time in 32, and cannot move the anchor.
const seqWindow = 1024

// Plausible reports whether seq is near the anchor of l: what every packet
// from a running peer must show before it may change anything. Only
// packets that prove they come from the peer (a handshake reply echoing
// our nonce, a quality reply echoing one of our pings) move the anchor, so
// forged packets, even plausible ones, cannot make the peer's real
// packets look implausible.
func (l *Link) Plausible(seq uint16) bool {
	d := int16(seq - l.lastSeq)
	return l.seqValid && d > -seqWindow && d <= seqWindow
}

// Accept is the rule every handler applies to a running peer's packet once
// its content proved valid and before it acts on it: a packet whose
// sequence number is not Plausible is counted malformed and refused
// (false); otherwise the peer is alive (Heard) and Accept returns true. On
// a link with no anchor yet (one that skipped the handshake), the packet
// becomes the anchor.
func (e *Endpoint) Accept(l *Link, seq uint16) bool {
	if !l.seqValid {
		// No anchor yet: a link its owner runs without the handshake
		// (MarkSynchronized before any packet). The first packet anchors.
		e.authentic(l, seq)
		return true
	}
	if !l.Plausible(seq) {
		l.malformed++
		return false
	}
	if d := int16(seq - l.newestSeq); d > 0 {
		l.newestSeq = seq
	}
	e.alive(l)
	return true
}

// Heard is Accept for the packet Receive returned last, its answer
// ignored: prefer Accept, whose answer says whether to act on the packet.
func (e *Endpoint) Heard(l *Link) {
	e.Accept(l, binary.LittleEndian.Uint16(e.in[1:3]))
}

// authentic notes a packet that proved it comes from l: its sequence
// number becomes the anchor if newer.
func (e *Endpoint) authentic(l *Link, seq uint16) {
	first := !l.seqValid
	if first || int16(seq-l.lastSeq) > 0 {
		l.lastSeq, l.seqValid = seq, true
	}
	if first || int16(seq-l.newestSeq) > 0 {
		l.newestSeq = seq
	}
	e.alive(l)
}

// alive notes that l was heard now.
func (e *Endpoint) alive(l *Link) {
	l.lastRecv = e.t
	if l.interrupt {
		l.interrupt = false
		e.events.Push(rollnet.Event{Kind: rollnet.EventNetworkResumed, Peer: l.Peer})
	}
}

// HandleSync handles a handshake message; it returns true if l just
// completed its handshake.
func (e *Endpoint) HandleSync(l *Link, typ wire.Type, b []byte) bool {
	switch typ {
	case wire.TypeSyncRequest:
		m, _, err := wire.ParseSyncRequest(b)
		if err != nil {
			l.malformed++
			return false
		}
		if e.t-l.budgetAt >= e.net.SyncRetry {
			l.budgetAt, l.budget = e.t, SyncReplyBudget
		}
		if l.budget <= 0 {
			return false
		}
		if l.state == Failed && m.Protocol == e.protocol && m.Settings == l.Expect {
			// Failed here for another reason (a timeout): no reply, so the
			// peer's handshake cannot complete with an end that will not
			// play; it times out too.
			return false
		}
		l.budget--
		reply := wire.SyncReply{Seq: l.seq, Nonce: m.Nonce, Protocol: e.protocol, Settings: l.Offer}
		e.Send(l, reply.Append(e.out[:0]))
		switch {
		case l.state != Syncing:
			// After the handshake a request changes nothing: the peer
			// missed a reply, or someone forged it.
		case m.Protocol != e.protocol:
			e.fail(l, ReasonProtocol)
		case m.Settings != l.Expect:
			e.fail(l, ReasonSettings)
		default:
			e.alive(l)
		}
	case wire.TypeSyncReply:
		m, _, err := wire.ParseSyncReply(b)
		if err != nil {
			l.malformed++
			return false
		}
		if l.state != Syncing || m.Nonce != l.nonce || l.nonce == 0 {
			return false // a late, duplicated or forged reply
		}
		switch {
		case m.Protocol != e.protocol:
			e.fail(l, ReasonProtocol)
			return false
		case m.Settings != l.Expect:
			e.fail(l, ReasonSettings)
			return false
		}
		e.authentic(l, m.Seq)
		// The handshake's round trips seed the estimate, before any
		// quality report (whose reply a stalled peer may read late).
		l.sampleRTT(max(e.t-l.syncSent, 1))
		l.rounds++
		l.nonce = 0
		if l.rounds >= e.net.Rounds {
			l.state = Running
			l.syncEver = true
			e.events.Push(rollnet.Event{Kind: rollnet.EventSynchronized, Peer: l.Peer})
			return true
		}
		e.events.Push(rollnet.Event{Kind: rollnet.EventSynchronizing, Peer: l.Peer, Count: l.rounds, Total: e.net.Rounds})
		e.syncRequest(l)
	}
	return false
}

// syncRequest sends l a handshake request, keeping the outstanding nonce
// (a reply to a retried request still counts).
func (e *Endpoint) syncRequest(l *Link) {
	if l.nonce == 0 {
		l.nonce = e.net.Rand() | 1<<63 // never 0, which means none outstanding
	}
	m := wire.SyncRequest{Seq: l.seq, Nonce: l.nonce, Protocol: e.protocol, Settings: l.Offer}
	l.syncSent = e.t
	if !l.syncGoing {
		l.syncGoing, l.syncBegan = true, e.t
	}
	e.Send(l, m.Append(e.out[:0]))
}

// HandleCommon handles the link's own running messages (quality reports
// and replies, keep-alives, disconnect notices); it returns false for
// other types, which are the owner's.
func (e *Endpoint) HandleCommon(l *Link, typ wire.Type, b []byte) bool {
	switch typ {
	case wire.TypeQualityReport:
		m, _, err := wire.ParseQualityReport(b)
		if err != nil {
			l.malformed++
			return true
		}
		if m.FrameAdvantage < -e.maxAdv || m.FrameAdvantage > e.maxAdv {
			l.malformed++ // more than the window allows
			return true
		}
		if !e.Accept(l, m.Seq) {
			return true
		}
		l.remoteAdv = m.FrameAdvantage
		if e.t >= l.remoteAt {
			l.remotes.add(m.FrameAdvantage, e.net.Window)
		}
		r := wire.QualityReply{Seq: l.seq, Pong: m.Ping}
		e.Send(l, r.Append(e.out[:0]))
	case wire.TypeQualityReply:
		m, _, err := wire.ParseQualityReply(b)
		if err != nil {
			l.malformed++
			return true
		}
		i := l.ping(m.Pong)
		if i < 0 {
			return true // replayed, answered already, too late or forged
		}
		l.pings[i] = 0
		e.authentic(l, m.Seq)
		l.sampleRTT(max(int64(uint64(e.t)+1-m.Pong), 1))
	case wire.TypeKeepAlive:
		m, _, err := wire.ParseKeepAlive(b)
		if err != nil {
			l.malformed++
			return true
		}
		e.Accept(l, m.Seq)
	case wire.TypeDisconnect:
		m, _, err := wire.ParseDisconnect(b)
		if err != nil {
			l.malformed++
			return true
		}
		// Only a plausible notice just after the newest packet counts (a
		// replayed one is old, a forged one must guess the sequence), and
		// only if the peer then stays silent (a forged one cannot silence
		// it): the peer is dropped after twice the keep-alive instead of
		// the timeout.
		if d := int16(m.Seq - l.newestSeq); l.state == Running && l.Plausible(m.Seq) && d > 0 && d <= 16 && !l.leaving {
			l.leaving, l.leaveAt = true, e.t
		}
	default:
		return false
	}
	return true
}

// TickDue reports whether Tick has anything to do for l now; false on
// most frames of a match (l running, heard lately, its byte-rate window
// not over), where a caller that skips Tick skips its call.
func (e *Endpoint) TickDue(l *Link) bool {
	return l.state != Running || l.leaving || e.t-l.lastRecv >= e.net.Notify || e.t-l.winStart >= int64(time.Second)
}

// Tick runs l's timers: handshake retries, disconnect notice and timeout,
// byte rates. It returns true if l just timed out.
func (e *Endpoint) Tick(l *Link) bool {
	if e.t-l.winStart >= int64(time.Second) {
		span := e.t - l.winStart
		l.rateSent = int(l.winSent * uint64(time.Second) / uint64(span))
		l.rateRecv = int(l.winRecv * uint64(time.Second) / uint64(span))
		l.winStart, l.winSent, l.winRecv = e.t, 0, 0
	}
	switch l.state {
	case Syncing:
		if l.syncGoing && e.t-l.syncBegan >= e.net.SyncTimeout {
			e.fail(l, ReasonTimeout)
			return false
		}
		if l.nonce == 0 || e.t-l.syncSent >= e.net.SyncRetry {
			e.syncRequest(l)
		}
	case Running:
		silent := e.t - l.lastRecv
		if l.leaving && l.lastRecv > l.leaveAt {
			l.leaving = false // it spoke after its notice: not leaving
		}
		if l.leaving && e.t-l.leaveAt >= 2*e.net.KeepAlive {
			e.Disconnect(l)
			return true
		}
		if silent >= e.net.Timeout {
			e.Disconnect(l)
			return true
		}
		if silent >= e.net.Notify && !l.interrupt {
			l.interrupt = true
			e.events.Push(rollnet.Event{Kind: rollnet.EventNetworkInterrupted, Peer: l.Peer, Timeout: time.Duration(e.net.Timeout - silent)})
		}
	}
	return false
}

// Started notes that the owner starts playing now: links that completed
// their handshake earlier count their silence from now.
func (e *Endpoint) Started() {
	for _, l := range e.links {
		l.lastRecv = max(l.lastRecv, e.t)
	}
}

// Synced notes that l completed its handshake now (HandleSync returned
// true): its silence counts from now.
func (e *Endpoint) Synced(l *Link) { l.lastRecv = e.t }

// QualityDue reports whether l's next quality report is due this tick.
func (e *Endpoint) QualityDue(l *Link) bool { return e.t-l.lastQual >= e.net.Quality }

// KeepAliveDue reports whether KeepAlive would send l anything now (false
// on most frames of a match), as TickDue does for Tick.
func (e *Endpoint) KeepAliveDue(l *Link) bool {
	return l.state == Running && (e.t-l.lastQual >= e.net.Quality || e.t-l.lastSend >= e.net.KeepAlive)
}

// KeepAlive sends what l is owed on a timer: a quality report, a
// keep-alive. adv is this end's frame advantage over l.
func (e *Endpoint) KeepAlive(l *Link, adv int32) {
	if l.state != Running {
		return
	}
	if e.t-l.lastQual >= e.net.Quality {
		l.lastQual = e.t
		m := wire.QualityReport{Seq: l.seq, FrameAdvantage: adv, Ping: uint64(e.t) + 1}
		l.pings[l.pingNext] = m.Ping
		l.pingNext = (l.pingNext + 1) % pingRing
		e.Send(l, m.Append(e.out[:0]))
	}
	if e.t-l.lastSend >= e.net.KeepAlive {
		m := wire.KeepAlive{Seq: l.seq}
		e.Send(l, m.Append(e.out[:0]))
	}
}

// disconnectNotices is how many disconnect notices Close sends each peer,
// back to back: one lost costs the peer the whole timeout.
const disconnectNotices = 3

// Close sends every running link a disconnect notice, three times (each
// with the next sequence number, so any one that arrives counts). Calling
// it again does nothing.
func (e *Endpoint) Close() {
	if e.closed {
		return
	}
	e.Clock()
	for _, l := range e.links {
		if l.state == Running {
			for range disconnectNotices {
				m := wire.Disconnect{Seq: l.seq}
				e.Send(l, m.Append(e.out[:0]))
			}
		}
	}
	e.closed = true
}

// Unknown counts datagrams dropped because their sender has no link here,
// the strangers' packets the owner refused (RefuseStranger) included.
func (e *Endpoint) Unknown() uint64 { return e.unknown }

// From is the sender of the packet Receive returned last: the link's peer,
// or a stranger's address when the link was nil.
func (e *Endpoint) From() transport.Peer { return e.from }

// AdmitStrangers sets whether Receive returns Rejoin packets from senders
// with no link (a player coming back from a new address, a late joiner):
// the owner turns it on while a slot can be taken and off after, and
// checks who each stranger is before it gives it a link (Rebind). A
// transport that implements transport.Expecter is told too: ExpectAnyone
// while on, the links' peers (ExpectPeers) once off again. It allocates
// when the setting changes (the transport's new set), never otherwise.
func (e *Endpoint) AdmitStrangers(on bool) {
	if on == e.strange {
		return
	}
	e.strange = on
	if !on {
		e.ExpectPeers()
		return
	}
	if x, ok := e.tr.(transport.Expecter); ok {
		x.ExpectAnyone()
	}
}

// StrangersAdmitted reports whether AdmitStrangers is on.
func (e *Endpoint) StrangersAdmitted() bool { return e.strange }

// RefuseStranger counts in Unknown a stranger's packet its owner read and
// refused (a rejoin request that did not prove who sent it).
func (e *Endpoint) RefuseStranger() { e.unknown++ }

// SendTo sends b to peer, which has no link here (a refusal to a
// stranger): nothing is counted on any link. It returns the transport's
// error.
func (e *Endpoint) SendTo(peer transport.Peer, b []byte) error { return e.tr.Send(peer, b) }

// Rebind moves link i to peer, a new address of the same remote end (a
// restarted process, a player whose network changed; its owner checked
// who it is): datagrams from peer reach link i from now on, and those from
// its old address are unknown. Nothing else of the link changes. The
// transport is told the new set of peers (ExpectPeers). It returns a
// *ConfigError for an index out of range, a peer that is empty, this
// endpoint, or another link's. It allocates.
func (e *Endpoint) Rebind(i int, peer transport.Peer) error {
	if i < 0 || i >= len(e.links) {
		return configError("no link %d", i)
	}
	l := e.links[i]
	if peer == l.Peer {
		return nil
	}
	if peer == "" || peer == e.tr.Local() {
		return configError("peer %q is this endpoint or empty", peer)
	}
	if _, dup := e.byPeer[peer]; dup {
		return configError("peer %q has a link already", peer)
	}
	delete(e.byPeer, l.Peer)
	e.byPeer[peer] = i
	e.lastFrom = ""
	l.Peer = peer
	e.ExpectPeers()
	return nil
}

// ExpectPeers tells the transport, if it implements transport.Expecter,
// that the peers of this endpoint's links are the only ones it expects,
// so datagrams from anyone else are dropped before they take a receive
// slot. Call it once the links are added and whenever they change; it
// allocates. While strangers are admitted (AdmitStrangers) it does
// nothing: the transport hears the set when they no longer are.
func (e *Endpoint) ExpectPeers() {
	x, ok := e.tr.(transport.Expecter)
	if !ok || e.strange {
		return
	}
	peers := make([]transport.Peer, len(e.links))
	for i, l := range e.links {
		peers[i] = l.Peer
	}
	x.Expect(peers...)
}
