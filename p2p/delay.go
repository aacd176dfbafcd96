package p2p

// An input delay that follows the network (Config.MaxInputDelay > 0).
//
// Each player peer keeps a wish: the delay its own links' round trips
// call for, ceil((RTT/2) / frame), moved only past a hysteresis: up when
// the last two samples of a link (Quality pings, 5 a second) both need
// more than the current target with a quarter frame to spare (it then
// wishes for what the newest sample needs, so a step is followed in one
// change); down when the last three samples all fit a smaller delay with a
// quarter frame to spare. Wishes ride on every Input message.
//
// The leader (the peer of the lowest seat whose player is connected)
// decides: the most any running peer wishes, within [MinInputDelay,
// MaxInputDelay]. It announces a change (from, to, at) on every Input
// message, one change at a time (the next once the last one is over on
// its side), at = its newest input frame + the prediction window + 2: a
// peer cannot reach that frame without the leader's next input, which
// carries the change, so every peer applies it at the same frame. (A peer
// that hears a change only after that frame applies it at its next tick:
// one fed the leader's frozen input, and a rejoining player, which plays
// from R with the match's first delay and takes the match's from the
// leader's next message, TestP2PDelayRejoin.)
//
// What local input does on the frame the delay changes, exactly. The
// input given at the tick where Frame() is F is for frame F+d(F):
//
//   - The delay grows by k at F: frames F+d .. F+d+k-1 get the input of
//     frame F+d-1 repeated (the previous tick's), and the tick's input is
//     for F+d+k. The repeated input is what every other peer predicts, so
//     the fill causes no rollback anywhere; a press is delayed k frames,
//     never lengthened or shortened.
//   - The delay shrinks: one frame at a time, every shrinkEvery ticks from
//     F. At each step the tick's input would be for a frame the previous
//     tick already gave: it is dropped (AddLocalInput takes it and it
//     counts for nothing). So a shrink by k drops k tick inputs, never two
//     in a row; a button held longer than shrinkEvery ticks is never lost.
//
// The other peers see one input per frame as always: nothing skipped,
// nothing given twice, every peer's simulation the same.

import (
	"fmt"
	"math/bits"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/link"
	"github.com/rollnet/rollnet/internal/wire"
	"github.com/rollnet/rollnet/rollback"
	"github.com/rollnet/rollnet/session"
)

// shrinkEvery is the ticks between two steps of a shrinking delay.
const shrinkEvery = 2

// downSamples is how many round-trip samples in a row must fit a smaller
// delay before a peer wishes for it (up: 2).
const downSamples = 3

// delayTag marks the delay policy in the settings hash.
const delayTag = uint64(0xde1a) << 48

// delayChange is one change of the match's delay: from `from` to `to` at
// frame at, at once when it grows, one frame every shrinkEvery ticks when
// it shrinks.
type delayChange struct {
	from, to int
	at       rollnet.Frame
}

// eval is the delay of the tick at frame f, for f at or after the change.
func (c delayChange) eval(f rollnet.Frame) int {
	if f < c.at {
		return c.from
	}
	if c.to >= c.from {
		return c.to
	}
	return max(c.to, c.from-1-int(f-c.at)/shrinkEvery)
}

// done is the first frame at which the change is over.
func (c delayChange) done() rollnet.Frame {
	if c.to >= c.from {
		return c.at
	}
	return c.at + rollnet.Frame((c.from-c.to-1)*shrinkEvery)
}

// follower is a session's delay that follows the network.
type follower struct {
	on       bool
	min, max int
	prev     delayChange     // the change before cur (for a tick before cur.at)
	cur      delayChange     // the newest change known
	now      int             // the delay of the tick last played
	tick     rollnet.Frame   // the frame of the tick last played, NoFrame before the first
	ticks    []rollnet.Frame // per local player: the frame of the tick of its last input, NoFrame before the first
	dropped  uint64          // local players whose input of this tick a shrinking step dropped
	wish     int
	wishes   []uint8 // per player link: its peer's wish, 0 unknown
}

// initFollower checks cfg's delay bounds and sets p up to follow the
// network within them.
func (p *Session[S, I]) initFollower(cfg Config[I]) error {
	if cfg.MaxInputDelay == 0 && cfg.MinInputDelay == 0 {
		return nil
	}
	d0 := cfg.Session.InputDelay
	if cfg.MinInputDelay < 0 || cfg.MinInputDelay > d0 || d0 > cfg.MaxInputDelay || cfg.MaxInputDelay > wire.MaxDelay {
		return fmt.Errorf("%w: MinInputDelay %d <= InputDelay %d <= MaxInputDelay %d <= %d", errConfig,
			cfg.MinInputDelay, d0, cfg.MaxInputDelay, wire.MaxDelay)
	}
	if cfg.MaxInputDelay-d0 > p.maxPred {
		return fmt.Errorf("%w: MaxInputDelay %d more than the prediction window %d past InputDelay %d (raise Capacity)",
			errConfig, cfg.MaxInputDelay, p.maxPred, d0)
	}
	p.dl = follower{on: true, min: cfg.MinInputDelay, max: cfg.MaxInputDelay,
		prev: delayChange{from: d0, to: d0}, cur: delayChange{from: d0, to: d0}, now: d0, tick: rollnet.NoFrame,
		ticks: make([]rollnet.Frame, p.players), wish: d0, wishes: make([]uint8, p.nPlayers)}
	for pl := range p.dl.ticks {
		p.dl.ticks[pl] = rollnet.NoFrame
	}
	return nil
}

// delayAt is the delay of the tick at frame f.
func (d *follower) delayAt(f rollnet.Frame) int {
	if f >= d.cur.at {
		return d.cur.eval(f)
	}
	return d.prev.eval(f)
}

// addLocal is AddLocalInput for a session whose delay follows the
// network: the input is kept (and fills a grown delay's gap) in the
// history; AdvanceFrame gives it to the core.
func (p *Session[S, I]) addLocal(player int, in I) {
	d := &p.dl
	f := p.core.Frame()
	if f != d.tick {
		if n := d.delayAt(f); n != d.now {
			to := d.prev.to
			if f >= d.cur.at {
				to = d.cur.to
			}
			p.ep.Push(rollnet.Event{Kind: rollnet.EventDelayChanged, Frame: f, Frames: n, Count: d.now, Total: to})
			d.now = n
		}
		d.tick = f
	}
	t := f + rollnet.Frame(d.now)
	last := p.added[player]
	if d.ticks[player] != f { // the tick's first input
		d.ticks[player] = f
		d.dropped &^= 1 << player
		if last != rollnet.NoFrame && t <= last {
			d.dropped |= 1 << player
			return // a shrinking delay's step: the frame has the previous tick's input
		}
		if last != rollnet.NoFrame && t > last+1 {
			if b, ok := p.hist.get(last, player); ok {
				for g := last + 1; g < t; g++ {
					p.hist.put(g, player, b) // a grown delay's gap: the previous tick's input repeats
				}
			}
		}
	} else if d.dropped&(1<<player) != 0 {
		return // dropped at this tick already
	}
	p.hist.put(t, player, rollback.BytesOf(&in))
	p.added[player] = t
}

// localReady reports whether every local player gave its input for this
// tick, and returns the newest frame local input covers.
func (p *Session[S, I]) localReady() (rollnet.Frame, bool) {
	f := p.core.Frame()
	newest := rollnet.NoFrame
	for mask := p.local; mask != 0; mask &= mask - 1 {
		pl := bits.TrailingZeros64(mask)
		if p.dl.ticks[pl] != f {
			return rollnet.NoFrame, false
		}
		newest = max(newest, p.added[pl])
	}
	return newest, true
}

// commitLocal gives the core the local inputs not given yet (fed to
// added), once AdvanceFrame will not refuse: a local input may still be
// replaced until its frame advances.
func (p *Session[S, I]) commitLocal() error {
	if int(p.core.Frame())-int(p.core.ConfirmedFrame()) > p.maxPred {
		return session.ErrPredictionLimit
	}
	for mask := p.local; mask != 0; mask &= mask - 1 {
		pl := bits.TrailingZeros64(mask)
		for g := p.fed[pl] + 1; g <= p.added[pl]; g++ {
			b, ok := p.hist.get(g, pl)
			if !ok {
				break
			}
			var in I
			copyInput(rollback.BytesOf(&in), b)
			if err := p.core.AddRemoteInput(pl, g, in); err != nil {
				return err
			}
			p.fed[pl] = g
		}
	}
	return nil
}

// leads reports whether this session decides the match's delay: it holds
// the lowest seat whose player is connected.
func (p *Session[S, I]) leads() bool {
	return p.leader() < 0
}

// leader returns the index of the player link that decides the match's
// delay, or -1 when this session does.
func (p *Session[S, I]) leader() int {
	for pl := range p.players {
		if p.local&(1<<pl) != 0 {
			return -1
		}
		if o := p.owner[pl]; !p.disc[pl] && p.ep.Links()[o].State() == link.Running && !p.rj.absent(o) {
			return o
		}
	}
	return -1
}

// follow runs after each frame: this peer's wish and, on the leader, the
// next change.
func (p *Session[S, I]) follow() {
	d := &p.dl
	d.wish = p.wishFor(d.cur.to)
	if !p.leads() || p.core.Frame() <= d.cur.done() {
		return
	}
	want := d.wish
	for i, l := range p.ep.Links()[:p.nPlayers] {
		if w := int(d.wishes[i]); w > 0 && l.State() == link.Running {
			want = max(want, w)
		}
	}
	want = min(max(want, d.min), d.max)
	if want == d.cur.to {
		return
	}
	d.prev = d.cur
	d.cur = delayChange{from: d.cur.to, to: want, at: p.newest + rollnet.Frame(p.maxPred+2)}
}

// wishFor is the delay this peer's links call for, against the current
// target ref, with the hysteresis above.
func (p *Session[S, I]) wishFor(ref int) int {
	frame := int64(1e9) / int64(p.ep.Settings().FrameRate)
	margin := frame / 4
	var up, last, hi int64 // the worst of the links: the least of two, the newest, the most of four samples
	var ok2, ok4 bool
	for _, l := range p.ep.Links()[:p.nPlayers] {
		if l.State() != link.Running {
			continue
		}
		if lo, _, n, ok := l.RecentRTT(2); ok {
			up, last, ok2 = max(up, lo), max(last, n), true
		}
		if _, h, _, ok := l.RecentRTT(downSamples); ok {
			hi, ok4 = max(hi, h), true
		} else {
			ok4 = false
		}
	}
	frames := func(oneWay int64) int { return int(max(oneWay+frame-1, 0) / frame) }
	w := ref
	switch {
	case ok2 && frames(up/2-margin) > ref:
		w = max(frames(up/2-margin), frames(last/2))
	case ok4 && frames(hi/2+margin) < ref:
		w = frames(hi/2 + margin)
	}
	return min(max(w, p.dl.min), p.dl.max)
}

// delayBlock fills m's delay block: this peer's wish and the newest
// change it knows.
func (p *Session[S, I]) delayBlock(m *wire.Input) {
	d := &p.dl
	m.HasDelay = true
	m.DelayWish, m.DelayFrom, m.DelayTo, m.DelayAt = uint8(d.wish), uint8(d.cur.from), uint8(d.cur.to), int32(d.cur.at)
}

// delayValid reports whether m's delay block, if any, is within the
// bounds (a block outside them is malformed).
func (d *follower) delayValid(m *wire.Input) bool {
	return !m.HasDelay || (inBounds(m.DelayWish, d) && inBounds(m.DelayFrom, d) && inBounds(m.DelayTo, d))
}

func inBounds(v uint8, d *follower) bool { return int(v) >= d.min && int(v) <= d.max }

// takeDelay reads player link l's delay block (valid): its wish, and from
// the leader, a change newer than ours. A message without one (a
// rejoin's catch-up traffic) says nothing.
func (p *Session[S, I]) takeDelay(l *link.Link, m *wire.Input) {
	d := &p.dl
	if !m.HasDelay {
		return
	}
	d.wishes[l.Index()] = m.DelayWish
	at := rollnet.Frame(m.DelayAt)
	if at <= d.cur.at || p.rejoining() || p.leader() != l.Index() {
		return
	}
	c := delayChange{from: int(m.DelayFrom), to: int(m.DelayTo), at: at}
	if f := p.core.Frame(); at <= f {
		// Heard too late to apply where the others did: from the next tick.
		c.from, c.at = d.delayAt(f), f+1
	}
	d.prev, d.cur = d.cur, c
}
