package session

// The P2P protocol, in brief (the messages are codec's):
//
//   - Handshake, per link: SyncRequest{random nonce, protocol, settings
//     hash} answered by SyncReply echoing the nonce, SyncRoundTrips times,
//     retried every SyncRetry with the same nonce, for at most SyncTimeout
//     (then SyncFailed, ReasonTimeout; a failed link answers no matching
//     request, so its peer times out too). The settings hash covers
//     players, input size, input delay, frame rate, the game's Settings and
//     which players each end holds; a mismatch fails the link on both ends
//     (SyncFailed, *SyncError). Replies are rate-limited per peer.
//   - Inputs: every tick each player link gets an Input with every local
//     frame it has not acknowledged (from its ack + 1, at most
//     codec.MaxFrames, shortened to fit codec.MaxPacket), our ack of its
//     inputs and, with three or more peers, our connection status of every
//     player. Received frames are taken only when they extend what was
//     heard, up to the core session's window.
//   - Agreement with three or more peers: a remote player's input is given
//     to the core session only up to the frame every other peer reports
//     having heard (until then it is the prediction, so nothing rolls back
//     for it). A disconnected player's last real frame is the smallest any
//     remaining peer heard; every peer computes the same one from the final
//     statuses, and repeats that input from there on.
//   - QualityReport{frame advantage, ping} / QualityReply{pong} every
//     QualityInterval; KeepAlive when nothing else went out; Checksum of
//     every ChecksumInterval-th confirmed frame (sent three times and with
//     each quality report); Disconnect on Close.
//   - Spectators: their host sends Input{every player, confirmed frames
//     from the spectator's ack + 1}; the spectator answers InputAck. One
//     added mid-match starts at frame 0 like the others: its host serves
//     the old frames from the spectator archive.

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/rollnet/rollnet/codec"
	"github.com/rollnet/rollnet/transport"
)

// protocolVersion is the P2P protocol's version, exchanged (and required to
// match) in the handshake. The wire version is codec.Version.
const protocolVersion = 1

// NetConfig holds the network settings a P2P session and a spectator share.
// The zero value of every field means its documented default.
type NetConfig struct {
	// FrameRate is the game's frames per second, for time sync and the
	// settings hash; 0 means 60.
	FrameRate int
	// ChecksumInterval is how many frames apart confirmed states are
	// checksummed and compared with every peer; 0 means 60, negative never.
	ChecksumInterval int
	// SyncRoundTrips is how many handshake round trips must succeed; 0
	// means 5.
	SyncRoundTrips int
	// SyncRetry is how long a handshake request waits for its reply before
	// it is sent again; 0 means 200 ms.
	SyncRetry time.Duration
	// SyncTimeout is how long a link's handshake may run without
	// completing, counted from its first request (for a spectator added
	// with AddSpectator, from the first poll after it was added); 0 means
	// 10 s. Then the link fails with ReasonTimeout: a SyncFailed event and,
	// for a player peer or a spectator's host, a *SyncError from
	// AdvanceFrame. A host whose spectator never answers only reports the
	// event and plays on.
	SyncTimeout time.Duration
	// KeepAlive is the longest a peer goes without a packet from us; 0
	// means 200 ms.
	KeepAlive time.Duration
	// QualityInterval is how often frame advantage and a timestamp (for the
	// round-trip time) are reported to each peer; 0 means 200 ms.
	QualityInterval time.Duration
	// DisconnectNotify is how long a peer may be silent before
	// EventNetworkInterrupted; 0 means 750 ms.
	DisconnectNotify time.Duration
	// DisconnectTimeout is how long a peer may be silent before it is
	// disconnected; 0 means 5 s.
	DisconnectTimeout time.Duration
	// TimeSyncWindow is how many frames of frame-advantage samples are
	// averaged for a wait recommendation; 0 means 30.
	TimeSyncWindow int
	// MinWait is the smallest wait worth recommending, in frames; 0 means 3.
	MinWait int
	// Settings is the game's own hash of anything peers must agree on (a
	// game version, a map, a rule set); it is mixed into the handshake's
	// settings hash, so a mismatch fails the handshake.
	Settings uint64
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Rand returns random 64-bit handshake nonces; nil means crypto/rand.
	// Tests pass a seeded source.
	Rand func() uint64
}

// netSettings is a NetConfig with the defaults applied, durations in
// nanoseconds.
type netSettings struct {
	frameRate, checkInterval, rounds, window, minWait int
	syncRetry, syncTimeout, keepAlive, quality        int64
	notify, timeout                                   int64
	settings                                          uint64
	now                                               func() time.Time
	rand                                              func() uint64
}

func (c NetConfig) resolve() (netSettings, error) {
	def := func(v, d int) int {
		if v == 0 {
			return d
		}
		return v
	}
	dur := func(v, d time.Duration) int64 {
		if v == 0 {
			return int64(d)
		}
		return int64(v)
	}
	n := netSettings{
		frameRate:     def(c.FrameRate, 60),
		checkInterval: def(c.ChecksumInterval, 60),
		rounds:        def(c.SyncRoundTrips, 5),
		window:        def(c.TimeSyncWindow, 30),
		minWait:       def(c.MinWait, 3),
		syncRetry:     dur(c.SyncRetry, 200*time.Millisecond),
		syncTimeout:   dur(c.SyncTimeout, 10*time.Second),
		keepAlive:     dur(c.KeepAlive, 200*time.Millisecond),
		quality:       dur(c.QualityInterval, 200*time.Millisecond),
		notify:        dur(c.DisconnectNotify, 750*time.Millisecond),
		timeout:       dur(c.DisconnectTimeout, 5*time.Second),
		settings:      c.Settings,
		now:           c.Now,
		rand:          c.Rand,
	}
	switch {
	case n.frameRate < 1 || n.frameRate > 1000:
		return n, fmt.Errorf("%w: FrameRate %d not in [1, 1000]", ErrConfig, c.FrameRate)
	case n.rounds < 1 || n.rounds > 100:
		return n, fmt.Errorf("%w: SyncRoundTrips %d not in [1, 100]", ErrConfig, c.SyncRoundTrips)
	case n.window < 1 || n.window > maxAdvSamples:
		return n, fmt.Errorf("%w: TimeSyncWindow %d not in [1, %d]", ErrConfig, c.TimeSyncWindow, maxAdvSamples)
	case n.minWait < 1:
		return n, fmt.Errorf("%w: MinWait %d < 1", ErrConfig, c.MinWait)
	case n.syncRetry < 0 || n.syncTimeout < 0 || n.keepAlive < 0 || n.quality < 0 || n.notify < 0 || n.timeout < 0:
		return n, fmt.Errorf("%w: negative duration", ErrConfig)
	case n.notify > n.timeout:
		return n, fmt.Errorf("%w: DisconnectNotify %v after DisconnectTimeout %v", ErrConfig, time.Duration(n.notify), time.Duration(n.timeout))
	}
	if n.now == nil {
		n.now = time.Now
	}
	if n.rand == nil {
		n.rand = cryptoRand
	}
	return n, nil
}

func cryptoRand() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

// settingsHash hashes what both ends of a link must agree on. from and to
// describe the sending and the receiving end (the players each holds, or a
// role for spectator links), so each end computes what it sends (its own
// view) and what it expects (the other's view).
func settingsHash(n *netSettings, players, size, delay int, from, to uint64) uint64 {
	h := fnv.New64a()
	var b [8 * 8]byte
	binary.LittleEndian.PutUint64(b[0:], protocolVersion)
	binary.LittleEndian.PutUint64(b[8:], uint64(players))
	binary.LittleEndian.PutUint64(b[16:], uint64(size))
	binary.LittleEndian.PutUint64(b[24:], uint64(delay))
	binary.LittleEndian.PutUint64(b[32:], uint64(n.frameRate))
	binary.LittleEndian.PutUint64(b[40:], n.settings)
	binary.LittleEndian.PutUint64(b[48:], from)
	binary.LittleEndian.PutUint64(b[56:], to)
	_, _ = h.Write(b[:])
	return h.Sum64()
}

// Roles in the settings hash of a spectator link (player masks never reach
// these values: bit 63 alone would be the mask of player 63 only, so the
// roles use impossible combinations with an empty mask's complement).
const (
	roleHost      = ^uint64(0) - 1
	roleSpectator = ^uint64(0) - 2
)

type linkState uint8

const (
	linkSyncing linkState = iota
	linkRunning
	linkDisconnected
	linkFailed
)

// maxAdvSamples bounds the time-sync windows.
const maxAdvSamples = 128

// syncReplyBudget is how many handshake replies a peer gets per SyncRetry
// period: a flood of requests gets bounded replies.
const syncReplyBudget = 8

// advWindow averages the newest samples of a frame advantage.
type advWindow struct {
	v    [maxAdvSamples]int32
	n, i int
	sum  int64
}

func (w *advWindow) add(x int32, size int) {
	if w.n == size {
		w.sum -= int64(w.v[w.i])
	} else {
		w.n++
	}
	w.v[w.i] = x
	w.sum += int64(x)
	w.i = (w.i + 1) % size
}

func (w *advWindow) mean() float64 { return float64(w.sum) / float64(w.n) }

func (w *advWindow) reset() { w.n, w.i, w.sum = 0, 0, 0 }

// checkEntry is a checksum of the state after frame.
type checkEntry struct {
	frame Frame
	sum   uint32
	done  bool // a peer's report: compared with ours already
}

const checkRing = 32

// link is one remote end: its handshake, sequence numbers, timers and
// counters.
type link struct {
	id        transport.Peer
	spectator bool   // the remote end is a spectator of ours
	host      bool   // the remote end is our host (we are a spectator)
	mask      uint64 // the players the remote end holds (player links)
	offer     uint64 // settings hash we send
	expect    uint64 // settings hash we expect

	state     linkState
	nonce     uint64
	rounds    int
	syncSent  int64
	syncBegan int64 // when the first handshake request went out
	syncGoing bool  // a first request went out
	syncEver  bool
	budget    int
	budgetAt  int64
	seq       uint16 // next sequence number to send
	lastSeq   uint16 // newest received
	seqValid  bool
	lastRecv  int64
	lastSend  int64
	lastQual  int64
	interrupt bool
	leaving   bool  // sent a disconnect notice
	leaveAt   int64 // when

	acked Frame // newest frame of what we send it that it acknowledged
	sent  Frame // newest frame we sent it

	// time sync
	rtt       int64
	lastPing  uint64
	localAdv  int32
	remoteAdv int32
	locals    advWindow
	remotes   advWindow

	// multi-peer connection status, as it last reported it, per player
	status []codec.PeerStatus

	// checksums it reported, and the newest frame a desync was reported at
	checks     [checkRing]checkEntry
	desyncAt   Frame
	checkAgain int

	// counters
	pktsSent, pktsRecv, bytesSent, bytesRecv, malformed uint64
	compared, agreed                                    uint64
	winStart                                            int64
	winSent, winRecv                                    uint64
	rateSent, rateRecv                                  int
}

func newLink(id transport.Peer, players int) *link {
	l := &link{id: id, acked: NoFrame, sent: NoFrame, desyncAt: NoFrame, budget: syncReplyBudget, status: make([]codec.PeerStatus, players)}
	for i := range l.checks {
		l.checks[i].frame = NoFrame
	}
	return l
}

// PeerStats are the network statistics of one peer.
type PeerStats struct {
	Peer         transport.Peer
	Spectator    bool // the peer is a spectator of this session
	Synchronized bool // the handshake completed
	Interrupted  bool // silent for more than the disconnect notify time
	Disconnected bool
	// RTT is the smoothed round-trip time as the game loop sees it: from
	// the tick that sends a quality report to the tick that reads its
	// reply. Packets are read only when the game calls AdvanceFrame or
	// Poll, so it includes each packet's wait for the receiving loop's
	// next tick: with steady loops it is a whole number of this session's
	// ticks, at least one however short the link (on loopback at 60 fps,
	// 16.7 or 33 ms, smoothed in between). That is what an input meets on
	// its way, and what time sync needs; the network's own round trip is
	// about one tick less, and a transport may know it exactly (WebRTC's
	// ICE round trip).
	RTT time.Duration
	// LocalFrameAdvantage is how many frames this session runs ahead of the
	// peer, as estimated here; RemoteFrameAdvantage is the peer's estimate
	// of how far it runs ahead of this session, as it last reported.
	LocalFrameAdvantage, RemoteFrameAdvantage int
	// UnackedFrames is how many frames sent to the peer it has not
	// acknowledged yet.
	UnackedFrames int
	// Bytes per second each way over the last whole second.
	SendBytesPerSecond, ReceiveBytesPerSecond int
	PacketsSent, PacketsReceived              uint64
	BytesSent, BytesReceived                  uint64
	// Malformed counts packets from the peer dropped because they did not
	// decode or made claims that cannot be true (acks of frames never sent).
	Malformed uint64
	// ChecksumsCompared counts the confirmed frames whose checksum both
	// this session and the peer computed and compared here (one every
	// NetConfig.ChecksumInterval frames, each counted once however often
	// the report arrives); ChecksumsAgreed counts those that were equal.
	// ChecksumsCompared > ChecksumsAgreed means a desync (see
	// EventDesyncDetected). A spectator's own stats count its comparisons
	// with its host.
	ChecksumsCompared, ChecksumsAgreed uint64
}

func (l *link) stats() PeerStats {
	return PeerStats{
		Peer:                  l.id,
		Spectator:             l.spectator,
		Synchronized:          l.state == linkRunning || (l.state == linkDisconnected && l.syncEver),
		Interrupted:           l.interrupt,
		Disconnected:          l.state == linkDisconnected,
		RTT:                   time.Duration(l.rtt),
		LocalFrameAdvantage:   int(l.localAdv),
		RemoteFrameAdvantage:  int(l.remoteAdv),
		UnackedFrames:         max(0, int(l.sent-l.acked)),
		SendBytesPerSecond:    l.rateSent,
		ReceiveBytesPerSecond: l.rateRecv,
		PacketsSent:           l.pktsSent,
		PacketsReceived:       l.pktsRecv,
		BytesSent:             l.bytesSent,
		BytesReceived:         l.bytesRecv,
		Malformed:             l.malformed,
		ChecksumsCompared:     l.compared,
		ChecksumsAgreed:       l.agreed,
	}
}

// endpoint is the machinery a P2P session and a spectator share: the
// transport, the clock, the links, buffers and events.
type endpoint struct {
	tr      transport.Transport
	net     netSettings
	start   time.Time
	t       int64 // nanoseconds since start, read once per poll
	links   []*link
	byPeer  map[transport.Peer]int
	out     []byte
	in      []byte
	events  eventQueue
	unknown uint64
	failErr error
	closed  bool
}

func newEndpoint(tr transport.Transport, n netSettings) endpoint {
	return endpoint{
		tr:     tr,
		net:    n,
		start:  n.now(),
		byPeer: make(map[transport.Peer]int),
		out:    make([]byte, 0, codec.MaxPacket),
		in:     make([]byte, transport.MaxDatagram),
		events: newEventQueue(256),
	}
}

func (e *endpoint) addLink(l *link) error {
	if l.id == "" || l.id == e.tr.Local() {
		return fmt.Errorf("%w: peer %q is this endpoint or empty", ErrConfig, l.id)
	}
	if _, dup := e.byPeer[l.id]; dup {
		return fmt.Errorf("%w: peer %q listed twice", ErrConfig, l.id)
	}
	e.byPeer[l.id] = len(e.links)
	e.links = append(e.links, l)
	return nil
}

func (e *endpoint) clock() { e.t = e.net.now().Sub(e.start).Nanoseconds() }

// send sends e.out to l.
func (e *endpoint) send(l *link) {
	b := e.out
	err := e.tr.Send(l.id, b)
	l.seq++
	l.lastSend = e.t
	if err != nil {
		if errors.Is(err, transport.ErrPeerGone) && l.state == linkRunning {
			e.disconnect(l)
		}
		return
	}
	l.pktsSent++
	l.bytesSent += uint64(len(b))
	l.winSent += uint64(len(b))
}

// disconnect drops l for good.
func (e *endpoint) disconnect(l *link) {
	if l.state == linkDisconnected {
		return
	}
	l.state = linkDisconnected
	e.events.push(Event{Kind: EventDisconnected, Peer: l.id})
}

// fail ends l's handshake for reason. A failed player link (or a
// spectator's host link) fails the whole session; a failed spectator link
// at its host is only reported: the players never wait for a spectator.
func (e *endpoint) fail(l *link, reason string) {
	if l.state == linkFailed {
		return
	}
	l.state = linkFailed
	e.events.push(Event{Kind: EventSyncFailed, Peer: l.id, Reason: reason})
	if e.failErr == nil && !l.spectator {
		e.failErr = &SyncError{Peer: l.id, Reason: reason}
	}
}

// receive reads the next datagram from a known peer. It returns the link,
// the message type and the packet; ok is false when nothing waits.
// Packets from unknown peers are counted and skipped; packets whose header
// does not parse are counted as malformed (or fail a handshake with a peer
// of another wire version).
func (e *endpoint) receive() (l *link, typ codec.Type, b []byte, ok bool) {
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
		if l.state == linkDisconnected {
			continue
		}
		l.pktsRecv++
		l.bytesRecv += uint64(n)
		l.winRecv += uint64(n)
		t, seq, _, err := codec.ParseHeader(b)
		if err != nil {
			if errors.Is(err, codec.ErrVersion) && l.state == linkSyncing {
				e.fail(l, ReasonWire)
			}
			l.malformed++
			continue
		}
		_ = seq // noted by heard, once the packet proved valid
		return l, t, b, true
	}
}

// seqWindow is how far ahead of the newest sequence number a valid packet
// may move it: forged packets with random sequence numbers rarely land in
// it, so they cannot make the peer's real packets look old.
const seqWindow = 1024

// plausible reports whether seq is near the newest sequence number heard
// from l: what a packet must show before it may change much (a checksum
// report, a disconnect notice).
func (l *link) plausible(seq uint16) bool {
	d := int16(seq - l.lastSeq)
	return l.seqValid && d > -seqWindow && d <= seqWindow
}

// heard notes a valid packet from l: the peer is alive, and its sequence
// number advances.
func (e *endpoint) heard(l *link) {
	if seq := binary.LittleEndian.Uint16(e.in[1:3]); !l.seqValid || (int16(seq-l.lastSeq) > 0 && int16(seq-l.lastSeq) <= seqWindow) {
		l.lastSeq, l.seqValid = seq, true
	}
	l.lastRecv = e.t
	if l.interrupt {
		l.interrupt = false
		e.events.push(Event{Kind: EventNetworkResumed, Peer: l.id})
	}
}

// handleSync handles a handshake message; it returns true if l just
// completed its handshake.
func (e *endpoint) handleSync(l *link, typ codec.Type, b []byte) bool {
	switch typ {
	case codec.TypeSyncRequest:
		m, _, err := codec.ParseSyncRequest(b)
		if err != nil {
			l.malformed++
			return false
		}
		if e.t-l.budgetAt >= e.net.syncRetry {
			l.budgetAt, l.budget = e.t, syncReplyBudget
		}
		if l.budget <= 0 {
			return false
		}
		if l.state == linkFailed && m.Protocol == protocolVersion && m.Settings == l.expect {
			// Failed here for another reason (a timeout): no reply, so the
			// peer's handshake cannot complete with a session that will
			// not play; it times out too.
			return false
		}
		l.budget--
		reply := codec.SyncReply{Seq: l.seq, Nonce: m.Nonce, Protocol: protocolVersion, Settings: l.offer}
		e.out = reply.Append(e.out[:0])
		e.send(l)
		switch {
		case l.state != linkSyncing:
			// After the handshake a request changes nothing: the peer
			// missed a reply, or someone forged it.
		case m.Protocol != protocolVersion:
			e.fail(l, ReasonProtocol)
		case m.Settings != l.expect:
			e.fail(l, ReasonSettings)
		default:
			e.heard(l)
		}
	case codec.TypeSyncReply:
		m, _, err := codec.ParseSyncReply(b)
		if err != nil {
			l.malformed++
			return false
		}
		if l.state != linkSyncing || m.Nonce != l.nonce || l.nonce == 0 {
			return false // a late, duplicated or forged reply
		}
		switch {
		case m.Protocol != protocolVersion:
			e.fail(l, ReasonProtocol)
			return false
		case m.Settings != l.expect:
			e.fail(l, ReasonSettings)
			return false
		}
		e.heard(l)
		l.rounds++
		l.nonce = 0
		if l.rounds >= e.net.rounds {
			l.state = linkRunning
			l.syncEver = true
			e.events.push(Event{Kind: EventSynchronized, Peer: l.id})
			return true
		}
		e.events.push(Event{Kind: EventSynchronizing, Peer: l.id, Count: l.rounds, Total: e.net.rounds})
		e.syncRequest(l)
	}
	return false
}

// syncRequest sends l a handshake request, keeping the outstanding nonce
// (a reply to a retried request still counts).
func (e *endpoint) syncRequest(l *link) {
	if l.nonce == 0 {
		l.nonce = e.net.rand() | 1<<63 // never 0, which means none outstanding
	}
	m := codec.SyncRequest{Seq: l.seq, Nonce: l.nonce, Protocol: protocolVersion, Settings: l.offer}
	e.out = m.Append(e.out[:0])
	l.syncSent = e.t
	if !l.syncGoing {
		l.syncGoing, l.syncBegan = true, e.t
	}
	e.send(l)
}

// handleQuality handles quality reports and replies; it returns false for
// other types.
func (e *endpoint) handleCommon(l *link, typ codec.Type, b []byte) bool {
	switch typ {
	case codec.TypeQualityReport:
		m, _, err := codec.ParseQualityReport(b)
		if err != nil {
			l.malformed++
			return true
		}
		e.heard(l)
		if m.FrameAdvantage > -1<<20 && m.FrameAdvantage < 1<<20 {
			l.remoteAdv = m.FrameAdvantage
			l.remotes.add(m.FrameAdvantage, e.net.window)
		}
		r := codec.QualityReply{Seq: l.seq, Pong: m.Ping}
		e.out = r.Append(e.out[:0])
		e.send(l)
	case codec.TypeQualityReply:
		m, _, err := codec.ParseQualityReply(b)
		if err != nil {
			l.malformed++
			return true
		}
		e.heard(l)
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
		e.heard(l)
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
		if d := int16(m.Seq - l.lastSeq); l.state == linkRunning && l.seqValid && d > 0 && d <= 16 && !l.leaving {
			l.leaving, l.leaveAt = true, e.t
		}
	default:
		return false
	}
	return true
}

// tick runs l's timers: handshake retries, disconnect notice and timeout,
// byte rates. It returns true if l just timed out.
func (e *endpoint) tick(l *link) bool {
	if e.t-l.winStart >= int64(time.Second) {
		span := e.t - l.winStart
		l.rateSent = int(l.winSent * uint64(time.Second) / uint64(span))
		l.rateRecv = int(l.winRecv * uint64(time.Second) / uint64(span))
		l.winStart, l.winSent, l.winRecv = e.t, 0, 0
	}
	switch l.state {
	case linkSyncing:
		if l.syncGoing && e.t-l.syncBegan >= e.net.syncTimeout {
			e.fail(l, ReasonTimeout)
			return false
		}
		if l.nonce == 0 || e.t-l.syncSent >= e.net.syncRetry {
			e.syncRequest(l)
		}
	case linkRunning:
		silent := e.t - l.lastRecv
		if l.leaving && l.lastRecv > l.leaveAt {
			l.leaving = false // it spoke after its notice: not leaving
		}
		if l.leaving && e.t-l.leaveAt >= 2*e.net.keepAlive {
			e.disconnect(l)
			return true
		}
		if silent >= e.net.timeout {
			e.disconnect(l)
			return true
		}
		if silent >= e.net.notify && !l.interrupt {
			l.interrupt = true
			e.events.push(Event{Kind: EventNetworkInterrupted, Peer: l.id, Timeout: time.Duration(e.net.timeout - silent)})
		}
	}
	return false
}

// keepAlive sends what l is owed on a timer: a quality report, a
// keep-alive. adv is this end's frame advantage over l.
func (e *endpoint) keepAlive(l *link, adv int32) {
	if l.state != linkRunning {
		return
	}
	if e.t-l.lastQual >= e.net.quality {
		l.lastQual = e.t
		m := codec.QualityReport{Seq: l.seq, FrameAdvantage: adv, Ping: uint64(e.t) + 1}
		e.out = m.Append(e.out[:0])
		e.send(l)
	}
	if e.t-l.lastSend >= e.net.keepAlive {
		m := codec.KeepAlive{Seq: l.seq}
		e.out = m.Append(e.out[:0])
		e.send(l)
	}
}

// sendChecksum sends l the checksum c.
func (e *endpoint) sendChecksum(l *link, c checkEntry) {
	m := codec.Checksum{Seq: l.seq, Frame: int32(c.frame), Checksum: c.sum}
	e.out = m.Append(e.out[:0])
	e.send(l)
}

// checks holds this end's own checksums of confirmed frames.
type checks struct {
	interval int
	next     Frame
	ring     [checkRing]checkEntry
	newest   checkEntry
}

func newChecks(interval int) checks {
	c := checks{interval: interval, next: Frame(interval), newest: checkEntry{frame: NoFrame}}
	for i := range c.ring {
		c.ring[i].frame = NoFrame
	}
	return c
}

func (c *checks) find(f Frame) (uint32, bool) {
	e := c.ring[int(f/Frame(max(c.interval, 1)))%checkRing]
	return e.sum, e.frame == f
}

func (c *checks) store(f Frame, sum uint32) {
	c.ring[int(f/Frame(max(c.interval, 1)))%checkRing] = checkEntry{frame: f, sum: sum}
	c.newest = checkEntry{frame: f, sum: sum}
}

// remoteChecksum records l's checksum report and compares it with ours.
func (e *endpoint) remoteChecksum(l *link, own *checks, b []byte) {
	m, _, err := codec.ParseChecksum(b)
	if err != nil || m.Frame < 0 {
		l.malformed++
		return
	}
	f := Frame(m.Frame)
	if own.interval <= 0 || int(f)%own.interval != 0 || !l.plausible(m.Seq) {
		l.malformed++
		return
	}
	e.heard(l)
	r := &l.checks[int(f/Frame(own.interval))%checkRing]
	if r.frame == f && r.done {
		return // a repeat of a report already compared
	}
	*r = checkEntry{frame: f, sum: m.Checksum}
	if sum, ok := own.find(f); ok {
		r.done = true
		e.compare(l, f, sum, m.Checksum)
	}
}

// compare counts a comparison with l at f (once per frame: the callers
// mark the report done) and reports a desync with l at f once.
func (e *endpoint) compare(l *link, f Frame, local, remote uint32) {
	l.compared++
	if local == remote {
		l.agreed++
	}
	if local == remote || f <= l.desyncAt {
		return
	}
	l.desyncAt = f
	e.events.push(Event{Kind: EventDesyncDetected, Peer: l.id, Frame: f, Local: local, Remote: remote})
}

// localChecksum records our checksum at f, compares it with what each
// link reported, and sends it to every running link.
func (e *endpoint) localChecksum(own *checks, f Frame, sum uint32) {
	own.store(f, sum)
	slot := int(f/Frame(own.interval)) % checkRing
	for _, l := range e.links {
		if l.state != linkRunning {
			continue
		}
		if r := &l.checks[slot]; r.frame == f && !r.done {
			r.done = true
			e.compare(l, f, sum, r.sum)
		}
		e.sendChecksum(l, own.newest)
		l.checkAgain = 2
	}
}

// PeerStats returns the statistics of peer.
func (e *endpoint) peerStats(peer transport.Peer) (PeerStats, error) {
	i, ok := e.byPeer[peer]
	if !ok {
		return PeerStats{}, fmt.Errorf("%w: %q", ErrNotAPeer, string(peer))
	}
	return e.links[i].stats(), nil
}

// close sends every live link a disconnect notice.
func (e *endpoint) close() {
	if e.closed {
		return
	}
	e.clock()
	for _, l := range e.links {
		if l.state == linkRunning {
			m := codec.Disconnect{Seq: l.seq}
			e.out = m.Append(e.out[:0])
			e.send(l)
		}
	}
	e.closed = true
}
