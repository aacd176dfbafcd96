package link

import (
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/transport"
)

// State is where a link stands.
type State uint8

// The states of a link.
const (
	Syncing      State = iota // handshake running
	Running                   // handshake completed; payload flows
	Disconnected              // gone for good (timeout, notice, or the owner said so)
	Failed                    // handshake failed (settings, protocol, timeout)
)

// pingRing is how many unanswered quality-report pings a link remembers: a
// reply must echo one of them exactly (a timestamp to the nanosecond, which
// only the peer that received the report can know), so the last pingRing
// reports, 3.2 s at the default interval, can still be answered.
const pingRing = 16

// SyncReplyBudget is how many handshake replies a peer gets per SyncRetry
// period: a flood of requests gets bounded replies.
const SyncReplyBudget = 8

// advWindow averages the newest samples of a frame advantage.
type advWindow struct {
	v    [MaxAdvSamples]int32
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
	if w.i++; w.i >= size { // (w.i+1) % size without a division: size is the session's, fixed
		w.i = 0
	}
}

func (w *advWindow) mean() float64 { return float64(w.sum) / float64(w.n) }

func (w *advWindow) reset() { w.n, w.i, w.sum = 0, 0, 0 }

// checkEntry is a checksum of the state after frame.
type checkEntry struct {
	frame rollnet.Frame
	sum   uint32
	seq   uint16 // a peer's report: the sequence number of the packet it rode on
	done  bool   // a peer's report: compared with ours already
	same  bool   // and equal to ours
}

const checkRing = 32

// Link is one remote end: its handshake, sequence numbers, timers,
// round trip, frame advantage, checksum reports and counters. The
// exported fields are the owner's to set before the link is added
// (Peer, Optional, Mask, Offer, Expect) or to keep as its payload flows
// (Acked, Sent).
type Link struct {
	Peer transport.Peer
	// Optional says the owner plays on without this link: its failed
	// handshake is reported (EventSyncFailed) but does not fail the
	// endpoint (a spectator at its host, a client at an authoritative
	// host).
	Optional bool
	// Mask is the owner's description of what the remote end holds (the
	// players behind it); the link does not read it.
	Mask uint64
	// Offer is the settings hash this end sends; Expect the one it
	// requires from the remote end (see SettingsHash).
	Offer, Expect uint64
	// Acked is the newest frame of what we send it that it acknowledged;
	// Sent the newest frame we sent it. UnackedFrames is Sent-Acked.
	Acked, Sent rollnet.Frame
	// LocalAdv is this end's frame advantage over the remote end, as the
	// owner last estimated it (AddLocalAdvantage sets it); it rides on
	// quality reports.
	LocalAdv int32

	index     int
	state     State
	nonce     uint64
	rounds    int
	syncSent  int64
	syncBegan int64 // when the first handshake request went out
	syncGoing bool  // a first request went out
	syncEver  bool
	budget    int
	budgetAt  int64
	seq       uint16 // next sequence number to send
	lastSeq   uint16 // the anchor: sequence number of the newest packet that proved it came from the peer
	seqValid  bool   // an anchor is set
	newestSeq uint16 // newest plausible sequence number heard
	lastRecv  int64
	lastSend  int64
	lastQual  int64
	interrupt bool
	leaving   bool  // sent a disconnect notice
	leaveAt   int64 // when

	// time sync
	rtt       int64
	raw       [RecentRTTs]int64 // the newest round-trip samples, unsmoothed (raw[rawN%RecentRTTs] the next)
	rawN      int
	pings     [pingRing]uint64 // pings sent and not answered yet (0: none)
	pingNext  int
	remoteAdv int32
	remoteAt  int64 // remote advantage samples received before this are stale
	locals    advWindow
	remotes   advWindow

	// checksums it reported, and the newest frame a desync was reported at
	checks     [checkRing]checkEntry
	desyncAt   rollnet.Frame
	quietTo    rollnet.Frame // no desync is reported at or before it (healed, or repaired)
	checkAgain int
	agreedAt   rollnet.Frame // newest frame compared equal

	// the checksum our messages carry to it until it acknowledges them
	carried    rollnet.Frame // frame of the checksum being carried, NoFrame none
	carriedEnd rollnet.Frame // newest frame of the first message that carried it, NoFrame until one had frames
	carriedN   int           // how many messages carried it
	carryAgain int           // for count-based carriage: how many more messages carry it

	// counters
	pktsSent, pktsRecv, bytesSent, bytesRecv, malformed uint64
	compared, agreed                                    uint64
	winStart                                            int64
	winSent, winRecv                                    uint64
	rateSent, rateRecv                                  int
}

// New returns a link to peer, in the Syncing state.
func New(peer transport.Peer) *Link {
	l := &Link{Peer: peer, Acked: rollnet.NoFrame, Sent: rollnet.NoFrame, desyncAt: rollnet.NoFrame, quietTo: rollnet.NoFrame, agreedAt: rollnet.NoFrame,
		carried: rollnet.NoFrame, carriedEnd: rollnet.NoFrame, budget: SyncReplyBudget}
	for i := range l.checks {
		l.checks[i].frame = rollnet.NoFrame
	}
	return l
}

// ping returns the index of ping among the unanswered pings, or -1.
func (l *Link) ping(ping uint64) int {
	for i, p := range l.pings {
		if p == ping && p != 0 {
			return i
		}
	}
	return -1
}

// sampleRTT smooths a round-trip sample into l's estimate. A sample more
// than twice the estimate counts as twice it: a reply the peer's stalled
// loop (a pause, a hitch) read late says little of the network, and would
// skew time sync for seconds.
func (l *Link) sampleRTT(rtt int64) {
	l.raw[l.rawN%RecentRTTs] = rtt
	l.rawN++
	switch {
	case l.rtt == 0:
		l.rtt = rtt
	default:
		rtt = min(rtt, 2*l.rtt)
		l.rtt += (rtt - l.rtt) / 4
	}
}

// RecentRTTs is how many raw round-trip samples a link keeps.
const RecentRTTs = 4

// RecentRTT returns the newest n raw round-trip samples' least and most
// (n at most RecentRTTs) and the newest, unsmoothed: what an input delay
// that follows the network reads, since the smoothed RTT takes seconds to
// follow a step. ok is false until n samples were taken.
func (l *Link) RecentRTT(n int) (lo, hi, last int64, ok bool) {
	if n < 1 || n > RecentRTTs || l.rawN < n {
		return 0, 0, 0, false
	}
	last = l.raw[(l.rawN-1)%RecentRTTs]
	lo, hi = last, last
	for k := 2; k <= n; k++ {
		v := l.raw[(l.rawN-k)%RecentRTTs]
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, last, true
}

// Index is the link's position in its endpoint's Links.
func (l *Link) Index() int { return l.index }

// State is where the link stands.
func (l *Link) State() State { return l.state }

// Seq is the sequence number the next packet to the peer carries.
func (l *Link) Seq() uint16 { return l.seq }

// RTT is the smoothed round-trip time in nanoseconds (0 before the first
// quality reply).
func (l *Link) RTT() int64 { return l.rtt }

// Interrupted reports whether the peer has been silent past
// DisconnectNotify (EventNetworkInterrupted) and not heard since.
func (l *Link) Interrupted() bool { return l.interrupt }

// Malformed counts one more packet from the peer dropped as malformed or
// implausible.
func (l *Link) Malformed() { l.malformed++ }

// MarkSynchronized puts a link in the Running state as if its handshake
// had completed, with sequence number 0 as its anchor: for tests that feed
// an endpoint packets directly.
func (l *Link) MarkSynchronized() { l.state, l.syncEver, l.seqValid = Running, true, true }

// MarkGone puts a link in the Disconnected state without an event: a
// peer its owner knows is absent from the start (an open slot).
func (l *Link) MarkGone() { l.state = Disconnected }

// AddLocalAdvantage records adv, this end's frame advantage over the peer
// as the owner estimates it this frame, into a window of size samples.
func (l *Link) AddLocalAdvantage(adv int32, size int) {
	l.LocalAdv = adv
	l.locals.add(adv, size)
}

// Advantages returns the mean frame advantage of this end over the peer
// (its own samples) and of the peer over this end (the peer's reports);
// ok is false until there are at least minLocal local samples and one
// remote.
func (l *Link) Advantages(minLocal int) (local, remote float64, ok bool) {
	if l.locals.n < minLocal || l.remotes.n == 0 {
		return 0, 0, false
	}
	return l.locals.mean(), l.remotes.mean(), true
}

// DiscardRemoteUntil makes the peer's frame-advantage reports received
// before t (endpoint time, ns) count for nothing: after a wait, the reports
// the peer sent before it saw us wait describe the old lead. A report
// reflects our wait once our inputs after it reached the peer and its
// report came back: t = end of the wait + the round trip.
func (l *Link) DiscardRemoteUntil(t int64) { l.remoteAt = t }

// ResetAdvantages forgets the frame-advantage samples (after a wait was
// recommended, the old ones describe the old lead).
func (l *Link) ResetAdvantages() {
	l.locals.reset()
	l.remotes.reset()
}

// Stats returns the link's statistics (Spectator is left to the owner).
func (l *Link) Stats() rollnet.PeerStats {
	return rollnet.PeerStats{
		Peer:                  l.Peer,
		Synchronized:          l.state == Running || (l.state == Disconnected && l.syncEver),
		Interrupted:           l.interrupt,
		Disconnected:          l.state == Disconnected,
		RTT:                   time.Duration(l.rtt),
		LocalFrameAdvantage:   int(l.LocalAdv),
		RemoteFrameAdvantage:  int(l.remoteAdv),
		UnackedFrames:         max(0, int(l.Sent-l.Acked)),
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
