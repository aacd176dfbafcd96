package p2p

// The bulk feed: a peer far behind the match (a rejoining player, from its
// sponsor; a spectator that joined late, or fell behind, from its host)
// gets every player's confirmed inputs in bulk, by one function, feedBulk:
//
//   - every tick, up to feedBurst datagrams of up to wire.MaxFrames frames
//     each, within a byte budget refilled at feedRate (bytes per second,
//     at most feedBurst full packets banked);
//   - never more than feedWindow frames past the peer's acknowledgement
//     (the receiver's buffer holds them all: catchFrames, spectatorBuffer);
//   - go-back-N: each frame goes once, and when the acknowledgement has not
//     moved for two round trips and two ticks, the feed goes back to the
//     frame after it and sends again; each go-back in a row without
//     progress doubles that wait (up to 16 times), so a peer that stops
//     acknowledging costs one window per wait, not a burst per tick;
//   - fast retransmit: the receiver keeps the frames past a lost datagram
//     and acknowledges what it holds contiguously every tick something
//     arrives, so an acknowledgement repeated twice with frames in flight
//     says the datagram after it was lost: it is sent again at once
//     (once a round trip), without waiting for the go-back.
//
// The feed's datagrams go through the transport's bulk path when it has
// one (transport.BulkSender; webrtc.Transport's SendBulk queues up to 64 KiB
// where Send drops above 256 B, so that a live stream never waits behind
// stale datagrams): the burst stops at the first datagram the transport
// does not take, and sends it again next tick, so that none is lost to the
// feed's own haste (through Send at WebRTC's default threshold two in
// three were, and the feed crawled: 21 s for 36,000 frames).
//
// A spectator within liveGap frames of the confirmed frame (256 for small
// inputs: two Inputs' worth) gets the live stream instead (sendLive): every
// frame it has not acknowledged, every tick, in up to liveDatagrams Inputs,
// so that a lost datagram costs nothing more than a tick. A spectator cut
// off for a few seconds comes back on it: its host learns what was lost a
// round trip after the cut ends, too late for the bulk feed's resend (at
// 200 ms one way and 10% loss, a 1.5 s cut cost 0.70 to 1.57 s fed in
// bulk, 0.25 s on the live stream: TestSpectatorPartitionLossy). The live
// stream costs at most liveDatagrams packets a tick, whatever the
// spectator acknowledges.

import (
	"errors"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/wire"
)

const (
	// feedBurst is the most bulk-feed datagrams one peer gets per tick: at
	// most 16 × wire.MaxFrames = 2048 frames.
	feedBurst = 16
	// feedRate is the bulk feed's budget per peer, in bytes per second
	// (1 MB/s, 16.7 kB a tick at 60 fps), at most feedBurst full packets
	// banked. Small inputs (pong's: 2 players of 2 bytes, 530-byte
	// datagrams) meet feedBurst first, large ones feedRate.
	feedRate = 1_000_000
	// feedWindow is the most frames in flight past the peer's
	// acknowledgement: with feedBurst, the feed runs at a burst a tick up
	// to a round trip of 2 ticks, a window a round trip beyond (1024 frames
	// a tick at 4 ticks, a 67 ms loop round trip at 60 fps).
	feedWindow = 4096
	// feedLive is how far behind the confirmed frame a spectator may be
	// and not be CatchingUp (fast-forwarding), and the least liveGap.
	feedLive = 32
	// feedMaxBackoff bounds the doubling of the go-back wait (1 << 4).
	feedMaxBackoff = 4
)

// feed is the bulk-feed state of one catching-up peer.
type feed struct {
	on     bool          // feeding in bulk
	ack    rollnet.Frame // its acknowledgement: the newest to arrive stands
	to     rollnet.Frame // newest frame sent since the last go-back
	high   rollnet.Frame // newest frame ever sent: acks above it are impossible
	at     int64         // when the acknowledgement last moved forward, or we went back
	backs  int           // go-backs in a row without progress
	dups   int           // acknowledgements in a row that repeated ack with frames in flight
	fixed  rollnet.Frame // the ack whose next frames were sent again early, NoFrame none
	fixAt  int64         // when
	tokens int64         // bytes the budget allows now
	filled int64         // when tokens was last refilled
}

// start begins a bulk feed to a peer that holds every frame up to ack.
func (f *feed) start(ack rollnet.Frame, now int64) {
	*f = feed{on: true, ack: ack, to: ack, high: ack, at: now, fixed: rollnet.NoFrame,
		tokens: feedBurst * wire.MaxPacket, filled: now}
}

// acked takes the peer's acknowledgement a (already checked to be at most
// f.high). The newest one stands even below the one before: a forged one
// lasts until the next real one, which the feed then serves from.
func (f *feed) acked(a rollnet.Frame, now int64) {
	switch {
	case a > f.ack:
		f.at, f.backs, f.dups = now, 0, 0
	case a == f.ack && f.to > a:
		f.dups++ // later frames arrive, the next one does not: lost
	}
	f.ack = a
}

// refill adds to the budget what feedRate allows since the last refill,
// at most feedBurst full packets banked.
func (f *feed) refill(now int64) {
	f.tokens = min(f.tokens+min(now-f.filled, int64(time.Second))*feedRate/int64(time.Second), feedBurst*wire.MaxPacket)
	f.filled = now
}

// rewind goes back to the frame after the acknowledgement when it has
// not moved for wait (two round trips and two ticks), doubled for each
// go-back in a row without progress; it reports whether it went back.
func (f *feed) rewind(now, wait int64) bool {
	if f.to <= f.ack || now-f.at <= wait<<min(f.backs, feedMaxBackoff) {
		return false
	}
	f.to, f.at = f.ack, now
	f.backs++
	return true
}

// lost reports whether the datagram after the acknowledgement is to be
// sent again now (fast retransmit): the acknowledgement repeated twice
// while later frames arrive, and it was not sent again for this
// acknowledgement within wait (a round trip and a tick).
func (f *feed) lost(now, wait int64) bool {
	if f.dups < 2 || f.to <= f.ack || f.fixed == f.ack && now-f.fixAt <= wait {
		return false
	}
	f.fixed, f.fixAt, f.dups = f.ack, now, 0
	return true
}

// next returns the frames the next datagram of a burst may carry, up to
// last: after everything sent, within feedWindow of the acknowledgement;
// false when none is due (all sent, the window full, the budget spent).
func (f *feed) next(last rollnet.Frame) (start, end rollnet.Frame, ok bool) {
	start = max(f.ack, f.to) + 1
	end = min(last, f.ack+feedWindow)
	return start, end, start <= end && f.tokens > 0
}

// sent notes a datagram of bytes bytes carrying frames frames from start
// (frames 0: a datagram sent again, which moves nothing but the budget).
func (f *feed) sent(start rollnet.Frame, frames, bytes int) {
	f.tokens -= int64(bytes)
	if frames > 0 {
		f.to = start + rollnet.Frame(frames) - 1
		f.high = max(f.high, f.to)
	}
}

// feedBulk sends l every player's confirmed inputs after f's
// acknowledgement up to last, within f's window and budget (see the top of
// this file). It returns false when a frame to send is no longer held (in
// the history or the spectator archive): the peer cannot catch up. A
// spectator's datagrams carry the checksum its link is owed and, in Ack,
// the newest frame confirmed here (see Spectator.Behind); a rejoining
// player's carry Ack -1. It allocates nothing.
func (p *Session[S, I]) feedBulk(l *link.Link, f *feed, last rollnet.Frame) bool {
	t := p.ep.Time()
	f.refill(t)
	tick := int64(time.Second) / int64(p.ep.Settings().FrameRate)
	f.rewind(t, 2*l.RTT()+2*tick)
	if f.lost(t, l.RTT()+tick) {
		// The acknowledgement repeats while later frames arrive, so the
		// datagram after it was lost: send it again, once a round trip.
		_, bytes, ok := p.feedOne(l, f.ack+1, f.to, last)
		if !ok {
			return false
		}
		f.sent(f.ack+1, 0, bytes)
	}
	for range feedBurst {
		start, end, due := f.next(last)
		if !due {
			return true
		}
		sent, bytes, ok := p.feedOne(l, start, end, last)
		if !ok {
			return false
		}
		if sent == 0 {
			return true // not one frame fits a packet
		}
		f.sent(start, sent, bytes)
	}
	return true
}

// feedOne sends l one datagram of the frames from start, up to end, and
// returns how many frames it carried in how many bytes; false when one is
// no longer held.
func (p *Session[S, I]) feedOne(l *link.Link, start, end, last rollnet.Frame) (int, int, bool) {
	stride := p.players * p.size
	n := min(int(end-start+1), wire.MaxFrames)
	if p.archive.holds(start, n) {
		copy(p.block[:n*stride], p.archive.span(start, n)) // the archive's rows are the datagram's
	} else {
		for k := range n {
			for pl := range p.players {
				b, ok := p.confirmedInput(start+rollnet.Frame(k), pl)
				if !ok {
					return 0, 0, false
				}
				copy(p.block[k*stride+pl*p.size:], b)
			}
		}
	}
	m := wire.Input{Seq: l.Seq(), Ack: -1, Start: int32(start), Frames: n, Players: p.all, Size: p.size}
	var bytes int
	if l.Index() >= p.nPlayers {
		m.Ack = int32(last)
		bytes = p.sendInput(l, &m, stride, true)
	} else {
		bytes = p.sendPlain(l, &m, stride)
	}
	if bytes <= 0 {
		return 0, 0, true // nothing fits, or the transport did not take it
	}
	return m.Frames, bytes, true
}

// feedTicks is about how many ticks the bulk feed takes to send frames
// frames over a link whose round trip is rtt, at rate ticks a second: a
// burst a tick, or a window a round trip when that is less.
func feedTicks(frames int, rtt int64, rate int) int {
	per := int64(feedBurst * wire.MaxFrames)
	if rtt > 0 {
		per = min(per, feedWindow*int64(time.Second)/(rtt*int64(rate)))
	}
	return frames / int(max(per, 1))
}

// sendPlain sends m, shortened until it fits a packet, through the
// transport's bulk path, and returns the bytes sent (0: nothing fits, -1:
// the transport did not take it).
func (p *Session[S, I]) sendPlain(l *link.Link, m *wire.Input, stride int) int {
	b := p.encode(m, stride)
	if b == nil {
		return 0
	}
	if !p.ep.SendBulk(l, b) {
		return -1
	}
	return len(b)
}

// encode codes m (its inputs from m.Inputs, or p.block when nil) into the
// endpoint's buffer, shortened until it fits a packet, to no frames at
// worst; nil when not even that fits. A message that fits (every one but a bulk feed's first
// tries) is coded once: the inputs' coding is walked by Append alone, not
// measured before.
func (p *Session[S, I]) encode(m *wire.Input, stride int) []byte {
	buf := p.ep.Buffer()
	src := m.Inputs
	if src == nil {
		src = p.block
	}
	for {
		m.Inputs = src[:m.Frames*stride]
		if b := m.Append(buf); len(b) > len(buf) {
			return b
		}
		if err := m.Check(); !errors.Is(err, wire.ErrTooLarge) || m.Frames == 0 {
			return nil
		}
		m.Frames = m.Frames * 3 / 4
	}
}

// liveDatagrams is the most Inputs of the live stream a spectator gets a
// tick.
const liveDatagrams = 2

// liveFrames is how many frames one Input of the live stream carries: as
// many as always fit a packet (half a packet of inputs fits with every
// other field at its largest), up to wire.MaxFrames.
func (p *Session[S, I]) liveFrames() int {
	return max(1, min(wire.MaxFrames, wire.MaxPacket/2/(p.players*p.size)))
}

// liveGap is how far behind the confirmed frame a spectator may be and
// still get the live stream: what liveDatagrams Inputs carry, at least
// feedLive (256 frames for small inputs: a spectator cut off for 3 s on
// a 400 ms round trip).
func (p *Session[S, I]) liveGap() rollnet.Frame {
	return rollnet.Frame(max(feedLive, liveDatagrams*p.liveFrames()))
}

// sendLive sends spectator link l the live stream: every confirmed frame
// up to c it has not acknowledged, every tick, in up to liveDatagrams
// Inputs, so that a lost datagram costs a tick and not a round trip. It
// returns false when a frame to send is no longer held. It allocates
// nothing.
func (p *Session[S, I]) sendLive(l *link.Link, c rollnet.Frame) bool {
	stride := p.players * p.size
	start := l.Acked + 1
	for range liveDatagrams {
		if start > c {
			return true
		}
		n := min(int(c-start+1), p.liveFrames())
		for k := range n {
			for pl := range p.players {
				b, ok := p.confirmedInput(start+rollnet.Frame(k), pl)
				if !ok {
					return false
				}
				copy(p.block[k*stride+pl*p.size:], b)
			}
		}
		m := wire.Input{Seq: l.Seq(), Ack: int32(c), Start: int32(start), Frames: n, Players: p.all, Size: p.size}
		if p.sendInput(l, &m, stride, false) <= 0 || m.Frames == 0 {
			return true
		}
		start += rollnet.Frame(m.Frames)
	}
	return true
}
