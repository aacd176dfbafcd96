package authority

import (
	"time"

	"github.com/rollnet/rollnet"
	"github.com/rollnet/rollnet/internal/wire"
)

// A client under a host's absence policy (see absence.go): it simulates
// no frame at or past the furthest lease the host sent it, and shows the
// hold the host announces (WelcomeHold) until a lease past its stop
// comes.

// clientHold is the hold a client was told of: its stop (NoFrame none),
// since when (client time), and the players named, with their outcomes.
type clientHold struct {
	stop    rollnet.Frame
	since   int64
	forfeit bool
	n       int
	players [wire.MaxHoldPlayers]wire.HoldPlayer
}

// mayStep reports whether the next frame is within the host's lease.
func (c *Client[S, I]) mayStep() bool { return !c.leased || c.frame < c.until }

// holding reports whether the client waits at a hold the host announced.
func (c *Client[S, I]) holding() bool {
	return c.hold.stop != rollnet.NoFrame && (c.hold.forfeit || c.until <= c.hold.stop)
}

// waited counts a tick spent at the lease: a hold's (the host waits for a
// player), or the network's (the host's states are late).
func (c *Client[S, I]) waited() {
	if c.holding() {
		c.stats.HoldTicks++
	} else if c.started {
		c.stats.LeaseWaits++
	}
}

// takeHold takes the host's word on a hold: the lease it carries, the
// players, and an event for each player whose outcome is news (a copy, or
// one reordered behind a newer word, tells nothing new: outcomes only go
// forward within a hold).
func (c *Client[S, I]) takeHold(m *wire.Welcome) {
	c.leased, c.until = true, max(c.until, rollnet.Frame(m.Until))
	stop := rollnet.Frame(m.Stop)
	h := &c.hold
	if stop != h.stop {
		if stop < h.stop && !h.forfeit {
			return // an older hold's word, come late
		}
		*h = clientHold{stop: stop}
	}
	h.forfeit = h.forfeit || m.Forfeit
	h.since = c.t - int64(m.Age)*int64(time.Millisecond)
	for _, p := range m.Players[:m.N] {
		k := 0
		for k < h.n && h.players[k].Player != p.Player {
			k++
		}
		switch {
		case k == h.n && h.n < len(h.players):
			h.n++
		case k == h.n || p.Outcome <= h.players[k].Outcome:
			continue
		}
		h.players[k] = p
		kind := rollnet.EventPlayerAwaited
		switch {
		case p.Outcome == wire.HoldBack:
			kind = rollnet.EventPlayerRejoined
		case p.Outcome == wire.HoldDropped:
			kind = rollnet.EventPlayerDropped
		case m.Forfeit:
			kind = rollnet.EventPlayerForfeited
		}
		c.e.Push(rollnet.Event{Kind: kind, Peer: c.host, Player: int(p.Player), Frame: stop})
	}
}

// holdStats fills s's absence fields.
func (c *Client[S, I]) holdStats(s *ClientStats) {
	s.Awaited, s.HoldAt = -1, rollnet.NoFrame
	if !c.holding() {
		return
	}
	h := &c.hold
	s.HoldAt, s.HeldFor = h.stop, time.Duration(c.t-h.since)
	// Forfeited once at the stop with the host's state before it: every
	// peer holds the same.
	s.Forfeited = h.forfeit && c.frame >= h.stop && c.reconciled >= h.stop-1
	for _, p := range h.players[:h.n] {
		if p.Outcome == wire.HoldAwaited {
			if s.Awaiting++; s.Awaited < 0 {
				s.Awaited = int(p.Player)
			}
		}
	}
}
