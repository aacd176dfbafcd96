package p2p

// Absence: what a match does while a player is away (Config.Absence).
//
// Under AbsenceFreeze and AbsenceForfeit, when every remaining peer has
// agreed on a disconnected player's last real frame (agree: the smallest
// frame any of them heard, EventPlayerDisconnected), each also computes the
// stop frame P = H + MaxPrediction + 1, where H is the largest frame any of
// them heard of the player (the same final reports, so the same P
// everywhere). No peer can have simulated frame P: a peer simulates frame
// F only when F - ConfirmedFrame() <= MaxPrediction, and its confirmed
// frame is at most what it heard of the player, at most H. From then on
// every peer feeds the frozen input up to P-1 only, simulates up to P-1
// (the inputs of those frames are confirmed: no rollback) and refuses
// frame P (ErrAwaiting) while the player is awaited.
//
//   - The player comes back (Rejoin): the sponsor picks R = P (not a frame
//     ahead, as under AbsencePredict: no peer moves meanwhile), the peers
//     wait on at P while the player replays the match, and each resumes
//     when the player's first live input, for frame P, arrives: a one-way
//     trip after the player plays again.
//   - Its rejoin window (NetConfig.RejoinWindow) passes on a peer: that
//     peer drops it (EventPlayerDropped) and resumes at P with its input
//     frozen, as AbsencePredict would have from the start.
//   - AbsenceForfeit: every peer stops at P for good (ErrForfeited,
//     EventPlayerForfeited) with the same state; the player may not
//     rejoin; the game decides.
//
// Spectators follow: their host sends them confirmed frames only, so they
// stop at P too. Two players away at once stop the match at the smaller
// of their P; each one's R is its own P.

import (
	"math"
	"math/bits"
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
)

// absenceTag marks the absence policy in the settings hash.
const absenceTag = uint64(0xab5e) << 48

// await starts awaiting player pl, frozen now, whose highest frame any
// remaining peer heard is heard.
func (p *Session[S, I]) await(pl int, heard rollnet.Frame) {
	if p.awaitAt[pl] == rollnet.NoFrame { // (awaited again before it was heard back: the same stop)
		p.awaitAt[pl] = heard + rollnet.Frame(p.maxPred) + 1
		p.awaitT[pl] = p.ep.Time()
	}
	p.awaiting |= 1 << pl
	kind := rollnet.EventPlayerAwaited
	if p.absence == rollnet.AbsenceForfeit {
		kind = rollnet.EventPlayerForfeited
		p.forfeit = true
	}
	p.ep.Push(rollnet.Event{Kind: kind, Player: pl, Frame: p.awaitAt[pl]})
}

// stopAt is the frame no peer simulates while a player is awaited: the
// smallest of the awaited players' stops (MaxInt32 when none).
func (p *Session[S, I]) stopAt() rollnet.Frame {
	stop := rollnet.Frame(math.MaxInt32)
	for mask := p.awaiting; mask != 0; mask &= mask - 1 {
		stop = min(stop, p.awaitAt[bits.TrailingZeros64(mask)])
	}
	return stop
}

// awaitTick drops the awaited players whose rejoin window passed (under
// AbsenceFreeze): the match resumes at their stop with their input
// frozen.
func (p *Session[S, I]) awaitTick() {
	if p.forfeit {
		return
	}
	n := p.ep.Settings()
	for mask := p.awaiting; mask != 0; mask &= mask - 1 {
		pl := bits.TrailingZeros64(mask)
		i := p.owner[pl]
		l := p.ep.Links()[i]
		if l.State() != link.Disconnected || p.rj.peers[i].pending {
			continue // taken back: awaited until its first live input
		}
		if gone := p.rj.peers[i].goneAt; n.Rejoin < 0 || (gone >= 0 && p.ep.Time()-gone > n.Rejoin) {
			p.ep.Push(rollnet.Event{Kind: rollnet.EventPlayerDropped, Player: pl, Frame: p.awaitAt[pl]})
			p.unawait(pl)
		}
	}
}

// unawait ends the wait for player pl (back, or dropped).
func (p *Session[S, I]) unawait(pl int) {
	p.awaitAt[pl] = rollnet.NoFrame
	p.awaiting &^= 1 << pl
}

// awaitR is the frame R a rejoin of link l's players is agreed at under
// AbsenceFreeze while they are awaited: their stop, which no peer passed;
// NoFrame when they are not awaited.
func (p *Session[S, I]) awaitR(l *link.Link) rollnet.Frame {
	return p.awaitAt[bits.TrailingZeros64(l.Mask)]
}

// awaitError is AdvanceFrame's error at the stop frame (a sentinel: a
// tick that waits allocates nothing; the events name the player).
func (p *Session[S, I]) awaitError() error {
	if p.forfeit {
		return ErrForfeited
	}
	return ErrAwaiting
}

// Awaited returns the players this session waits for (bit p for player p,
// under AbsenceFreeze or AbsenceForfeit), the frame every peer stops at
// (NoFrame when none) and how long the first of them has been awaited.
// It allocates nothing.
func (p *Session[S, I]) Awaited() (players uint64, stop rollnet.Frame, since time.Duration) {
	if p.awaiting == 0 {
		return 0, rollnet.NoFrame, 0
	}
	t := p.ep.Time()
	first := t
	for mask := p.awaiting; mask != 0; mask &= mask - 1 {
		first = min(first, p.awaitT[bits.TrailingZeros64(mask)])
	}
	return p.awaiting, p.stopAt(), time.Duration(t - first)
}
