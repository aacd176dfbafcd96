package link

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/transport"
)

// Endpoint is this end of every link: the transport, the clock, the links,
// the packet buffers and the events. Its owner (a P2P session, a
// spectator, an authoritative host or client) drives it once per tick:
//
//	e.Clock()
//	for { l, typ, b, ok := e.Receive(); if !ok { break }
//		switch typ { // the handshake, then the link's own messages, then the owner's
//		case codec.TypeSyncRequest, codec.TypeSyncReply: e.HandleSync(l, typ, b); continue }
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
	net      Settings
	protocol uint16
	start    time.Time
	t        int64 // nanoseconds since start, read once per poll
	links    []*Link
	byPeer   map[transport.Peer]int
	out      []byte
	in       []byte
	events   EventQueue
	unknown  uint64
	failErr  error
	closed   bool
}

// NewEndpoint returns an endpoint over tr with settings n, whose handshake
// requires protocol (the owner's protocol version) at both ends.
func NewEndpoint(tr transport.Transport, n Settings, protocol uint16) Endpoint {
	return Endpoint{
		tr:       tr,
		net:      n,
		protocol: protocol,
		start:    n.Now(),
		byPeer:   make(map[transport.Peer]int),
		out:      make([]byte, 0, codec.MaxPacket),
		in:       make([]byte, transport.MaxDatagram),
		events:   NewEventQueue(256),
	}
}

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
func (e *Endpoint) Clock() { e.t = e.net.Now().Sub(e.start).Nanoseconds() }

// Time is the time of the last Clock, in nanoseconds since the endpoint
// was made.
func (e *Endpoint) Time() int64 { return e.t }

// Err is the *SyncError of the first failed link that is not Optional, or
// nil.
func (e *Endpoint) Err() error { return e.failErr }

// Closed reports whether Close was called.
func (e *Endpoint) Closed() bool { return e.closed }

// Push queues an event of the owner's.
func (e *Endpoint) Push(ev Event) { e.events.Push(ev) }

// Events appends every queued event to dst, oldest first.
func (e *Endpoint) Events(dst []Event) []Event { return e.events.Drain(dst) }

// Buffer returns the empty packet buffer (capacity codec.MaxPacket) to
// append a message to before Send.
func (e *Endpoint) Buffer() []byte { return e.out[:0] }

// Send sends b (built on Buffer, or any buffer of the owner's) to l; l's
// sequence number advances. A peer the transport reports gone is
// disconnected.
func (e *Endpoint) Send(l *Link, b []byte) {
	err := e.tr.Send(l.Peer, b)
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

// Disconnect drops l for good (EventDisconnected, once).
func (e *Endpoint) Disconnect(l *Link) {
	if l.state == Disconnected {
		return
	}
	l.state = Disconnected
	e.events.Push(Event{Kind: EventDisconnected, Peer: l.Peer})
}

// fail ends l's handshake for reason. A failed link fails the whole
// endpoint (Err) unless it is Optional, which is only reported.
func (e *Endpoint) fail(l *Link, reason string) {
	if l.state == Failed {
		return
	}
	l.state = Failed
	e.events.Push(Event{Kind: EventSyncFailed, Peer: l.Peer, Reason: reason})
	if e.failErr == nil && !l.Optional {
		e.failErr = &SyncError{Peer: l.Peer, Reason: reason}
	}
}

// Receive reads the next datagram from a known peer. It returns the link,
// the message type and the packet; ok is false when nothing waits.
// Packets from unknown peers are counted and skipped; packets whose header
// does not parse are counted as malformed (or fail a handshake with a peer
// of another wire version).
func (e *Endpoint) Receive() (l *Link, typ codec.Type, b []byte, ok bool) {
	for {
		n, from, err := e.tr.Receive(e.in)
		if err != nil {
			if errors.Is(err, transport.ErrNoPacket) || errors.Is(err, transport.ErrClosed) {
				return nil, 0, nil, false
			}
			continue // a datagram too large for the buffer: dropped
		}
		i, known := e.byPeer[from]
		if !known {
			e.unknown++
			continue
		}
		l = e.links[i]
		b = e.in[:n]
		if l.state == Disconnected {
			continue
		}
		l.pktsRecv++
		l.bytesRecv += uint64(n)
		l.winRecv += uint64(n)
		t, seq, _, err := codec.ParseHeader(b)
		if err != nil {
			if errors.Is(err, codec.ErrVersion) && l.state == Syncing {
				e.fail(l, ReasonWire)
			}
			l.malformed++
			continue
		}
		_ = seq // noted by Heard, once the packet proved valid
		return l, t, b, true
	}
}

// seqWindow is how far ahead of the newest sequence number a valid packet
// may move it: forged packets with random sequence numbers rarely land in
// it, so they cannot make the peer's real packets look old.
const seqWindow = 1024

// Plausible reports whether seq is near the newest sequence number heard
// from l: what a packet must show before it may change much (a checksum
// report, a disconnect notice).
func (l *Link) Plausible(seq uint16) bool {
	d := int16(seq - l.lastSeq)
	return l.seqValid && d > -seqWindow && d <= seqWindow
}

// Heard notes a valid packet from l (the one Receive returned last): the
// peer is alive, and its sequence number advances.
func (e *Endpoint) Heard(l *Link) {
	if seq := binary.LittleEndian.Uint16(e.in[1:3]); !l.seqValid || (int16(seq-l.lastSeq) > 0 && int16(seq-l.lastSeq) <= seqWindow) {
		l.lastSeq, l.seqValid = seq, true
	}
	l.lastRecv = e.t
	if l.interrupt {
		l.interrupt = false
		e.events.Push(Event{Kind: EventNetworkResumed, Peer: l.Peer})
	}
}

// HandleSync handles a handshake message; it returns true if l just
// completed its handshake.
func (e *Endpoint) HandleSync(l *Link, typ codec.Type, b []byte) bool {
	switch typ {
	case codec.TypeSyncRequest:
		m, _, err := codec.ParseSyncRequest(b)
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
		reply := codec.SyncReply{Seq: l.seq, Nonce: m.Nonce, Protocol: e.protocol, Settings: l.Offer}
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
			e.Heard(l)
		}
	case codec.TypeSyncReply:
		m, _, err := codec.ParseSyncReply(b)
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
		e.Heard(l)
		l.rounds++
		l.nonce = 0
		if l.rounds >= e.net.Rounds {
			l.state = Running
			l.syncEver = true
			e.events.Push(Event{Kind: EventSynchronized, Peer: l.Peer})
			return true
		}
		e.events.Push(Event{Kind: EventSynchronizing, Peer: l.Peer, Count: l.rounds, Total: e.net.Rounds})
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
	m := codec.SyncRequest{Seq: l.seq, Nonce: l.nonce, Protocol: e.protocol, Settings: l.Offer}
	l.syncSent = e.t
	if !l.syncGoing {
		l.syncGoing, l.syncBegan = true, e.t
	}
	e.Send(l, m.Append(e.out[:0]))
}

// HandleCommon handles the link's own running messages (quality reports
// and replies, keep-alives, disconnect notices); it returns false for
// other types, which are the owner's.
func (e *Endpoint) HandleCommon(l *Link, typ codec.Type, b []byte) bool {
	switch typ {
	case codec.TypeQualityReport:
		m, _, err := codec.ParseQualityReport(b)
		if err != nil {
			l.malformed++
			return true
		}
		e.Heard(l)
		if m.FrameAdvantage > -1<<20 && m.FrameAdvantage < 1<<20 {
			l.remoteAdv = m.FrameAdvantage
			l.remotes.add(m.FrameAdvantage, e.net.Window)
		}
		r := codec.QualityReply{Seq: l.seq, Pong: m.Ping}
		e.Send(l, r.Append(e.out[:0]))
	case codec.TypeQualityReply:
		m, _, err := codec.ParseQualityReply(b)
		if err != nil {
			l.malformed++
			return true
		}
		e.Heard(l)
		now := uint64(e.t) + 1
		if m.Pong <= l.lastPing || m.Pong > now {
			return true // replayed or forged
		}
		l.lastPing = m.Pong
		rtt := int64(now - m.Pong)
		if l.rtt == 0 {
			l.rtt = rtt
		} else {
			l.rtt += (rtt - l.rtt) / 4
		}
	case codec.TypeKeepAlive:
		if _, _, err := codec.ParseKeepAlive(b); err != nil {
			l.malformed++
			return true
		}
		e.Heard(l)
	case codec.TypeDisconnect:
		m, _, err := codec.ParseDisconnect(b)
		if err != nil {
			l.malformed++
			return true
		}
		// Only a notice just after the newest packet counts (a replayed one
		// is old, a forged one must guess the sequence), and only if the
		// peer then stays silent (a forged one cannot silence it): the
		// peer is dropped after twice the keep-alive instead of the
		// timeout.
		if d := int16(m.Seq - l.lastSeq); l.state == Running && l.seqValid && d > 0 && d <= 16 && !l.leaving {
			l.leaving, l.leaveAt = true, e.t
		}
	default:
		return false
	}
	return true
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
			e.events.Push(Event{Kind: EventNetworkInterrupted, Peer: l.Peer, Timeout: time.Duration(e.net.Timeout - silent)})
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

// KeepAlive sends what l is owed on a timer: a quality report, a
// keep-alive. adv is this end's frame advantage over l.
func (e *Endpoint) KeepAlive(l *Link, adv int32) {
	if l.state != Running {
		return
	}
	if e.t-l.lastQual >= e.net.Quality {
		l.lastQual = e.t
		m := codec.QualityReport{Seq: l.seq, FrameAdvantage: adv, Ping: uint64(e.t) + 1}
		e.Send(l, m.Append(e.out[:0]))
	}
	if e.t-l.lastSend >= e.net.KeepAlive {
		m := codec.KeepAlive{Seq: l.seq}
		e.Send(l, m.Append(e.out[:0]))
	}
}

// Close sends every running link a disconnect notice. Calling it again
// does nothing.
func (e *Endpoint) Close() {
	if e.closed {
		return
	}
	e.Clock()
	for _, l := range e.links {
		if l.state == Running {
			m := codec.Disconnect{Seq: l.seq}
			e.Send(l, m.Append(e.out[:0]))
		}
	}
	e.closed = true
}

// Unknown counts datagrams dropped because their sender has no link here.
func (e *Endpoint) Unknown() uint64 { return e.unknown }
