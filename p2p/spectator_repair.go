package p2p

// A spectator's desync repair. A spectator compares its checksums with
// its host's only; when they differ (EventDesyncDetected) it asks its host
// for its state as a diverged player asks the truth (repair.go's messages:
// RepairAsk, the RepairParts over the bulk feed, RepairAck). The host
// serves a spectator only while it agrees with every player (no desync
// with one of them unhealed, no repair of its own under way), so the state
// a spectator takes is the players' truth: the arbiter's or the
// majority's. The spectator applies it once it has simulated the state's
// frame C itself: it starts its core over from it (session.Rebase) and
// simulates again, with the confirmed inputs it holds, to the frame it was
// at; EventDesyncRepaired tells it (Peer: the host; Player -1; Reason: the
// fields its state after C had wrong), PeerStats counts it
// (RepairsTaken), and the host's PeerStats of the spectator counts it
// served (RepairsServed).
//
// When the host was the one apart and is repaired by the players, its
// next checksum agrees with the spectator's: the desync heals, the ask is
// dropped (EventDesyncRepaired without a Reason, as a player is told of a
// peer repaired). A spectator whose repair does not come within
// repairTimeout (a host with Config.NoRepair never answers), or that
// diverges again maxRepairs times in a row, stops asking: its desync stays
// reported, and it plays on as before repair existed (the players are not
// concerned). A tick with no repair under way costs a comparison and
// allocates nothing.

import (
	"bytes"
	"fmt"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/replay"
	"github.com/rollnet/rollnet/rollback"
)

// watchRepair is a spectator's desync repair.
type watchRepair[S any] struct {
	taking[S]
	off     bool          // given up: no more asks
	seen    uint64        // the endpoint's desync count last looked at
	taken   int           // repairs taken from the host
	apartAt rollnet.Frame // the desync with the host not healed yet, or NoFrame
	apartT  int64         // when it was found
}

func newWatchRepair[S any]() watchRepair[S] {
	return watchRepair[S]{taking: newTaking[S](), apartAt: rollnet.NoFrame}
}

// repairs reports whether a repair needs the tick.
func (s *Spectator[S, I]) repairs() bool {
	r := &s.rp
	return s.ep.Desyncs() != r.seen || r.want != rollnet.NoFrame || r.apartAt != rollnet.NoFrame
}

// repairTick applies a state received whole, drops an ask healed or out
// of time, and asks for the host's state at a new desync.
func (s *Spectator[S, I]) repairTick() {
	r, h, now := &s.rp, s.host, s.ep.Time()
	if r.whole() && r.frame < s.core.Frame() {
		s.applyRepair()
	}
	if s.ep.Desyncs() != r.seen {
		r.seen = s.ep.Desyncs()
		if f := h.DesyncAt(); f != rollnet.NoFrame {
			if r.apartAt == rollnet.NoFrame {
				r.apartAt, r.apartT = f, now
			}
			if r.want == rollnet.NoFrame && !r.off && !r.begin(h, f, now) {
				r.off = true // maxRepairs in a row did not hold
			}
		}
	}
	if r.apartAt != rollnet.NoFrame && h.DesyncAt() == rollnet.NoFrame {
		// Healed: a later checksum agreed (the host was the one apart,
		// and was repaired); the ask is moot.
		r.want = rollnet.NoFrame
		s.ep.Push(rollnet.Event{Kind: rollnet.EventDesyncRepaired, Peer: h.Peer, Player: -1,
			Frame: r.apartAt, Agreed: h.AgreedAt(), Timeout: time.Duration(now - r.apartT)})
		r.apartAt = rollnet.NoFrame
	}
	if r.want != rollnet.NoFrame && now-r.found > int64(repairTimeout) {
		r.want = rollnet.NoFrame // the desync stays reported
	}
}

// handleRepair takes a Repair message from the host: a part of its state.
func (s *Spectator[S, I]) handleRepair(l *link.Link, b []byte) {
	var m wire.Repair
	if err := wire.ParseRepair(b, &m); err != nil || m.Kind != wire.RepairPart {
		l.Malformed() // a spectator serves nothing
		return
	}
	if s.ep.Accept(l, m.Seq) {
		s.rp.take(&s.ep, l, &m)
	}
}

// applyRepair takes the host's state received whole: checks it, names the
// fields this spectator had wrong at its frame C, starts the core over
// from it and simulates again to the frame it was at.
func (s *Spectator[S, I]) applyRepair() {
	r := &s.rp
	if !r.checked() {
		s.host.Malformed() // not the state its parts said: ask again
		return
	}
	c, target := r.frame, s.core.Frame()
	fields := fmt.Sprintf("the fields are unknown: frame %d is not held", c)
	if own, err := s.core.StateAt(c); err == nil {
		if bytes.Equal(rollback.BytesOf(own), rollback.BytesOf(r.state)) {
			// Right already (the host was the one apart, and its state
			// was repaired before its checksums agreeing with ours came):
			// the desync heals with the next checksum.
			r.applied(s.ep.Time())
			r.row-- // (not a repair)
			return
		}
		if d, err := replay.DescribeDesync(own, r.state, string(s.host.Peer)); err == nil {
			fields = d
		}
	}
	_ = s.core.Rebase(c, r.state) // c >= 0
	// The inputs after c, held still (those simulated long ago may be
	// gone: the host sends them again after the acknowledgement falls
	// back).
	s.recv = c
	for s.held(s.recv + 1) {
		s.recv++
	}
	for s.core.Frame() < target && s.core.Frame() <= s.recv {
		if s.step() != nil {
			break // (unreachable: the inputs are held)
		}
	}
	s.host.ForgetDesync(s.checks.Newest()) // our checksums so far were of the state repaired
	r.taken++
	f, took := r.applied(s.ep.Time())
	r.seen, r.apartAt = s.ep.Desyncs(), rollnet.NoFrame
	s.ep.Push(rollnet.Event{Kind: rollnet.EventDesyncRepaired, Peer: s.host.Peer, Player: -1,
		Frame: f, Agreed: c, Timeout: took, Reason: fields})
}
